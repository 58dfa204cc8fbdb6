package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/store/internal/proc"
)

// Worker is one crawl process working a job on this database.
type Worker struct {
	ID        int64 // given by Register; the owner of the worker's leases
	Hostname  string
	PID       int
	Job       string
	Started   time.Time
	Heartbeat time.Time // last sign of life
}

// Register records a worker (its Hostname, PID and Job) as started and
// alive now, and returns it with its ID.
func (rg *Registry) Register(w frontier.Holder) (Worker, error) {
	out := Worker{Hostname: w.Hostname, PID: w.PID, Job: w.Job}
	err := rg.write("register worker", func(ctx context.Context, tx pgx.Tx) error {
		var at int64
		err := tx.QueryRow(ctx, `INSERT INTO workers (hostname, pid, job, started_at, heartbeat_at)
			SELECT $1, $2, $3, t, t FROM (SELECT `+sqlNow("$4")+` AS t) AS c
			RETURNING id, started_at`, w.Hostname, w.PID, w.Job, rg.nowArg()).Scan(&out.ID, &at)
		out.Started, out.Heartbeat = fromNanos(at), fromNanos(at)
		return err
	})
	return out, err
}

// Beat records that the worker is alive now and extends its leases to
// lease from now (none when lease is 0). A worker that was deregistered
// (or never registered) is frontier.ErrNotFound: it should stop.
func (rg *Registry) Beat(id int64, lease time.Duration) error {
	return rg.write(fmt.Sprintf("heartbeat of worker %d", id), func(ctx context.Context, tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE workers SET heartbeat_at = `+sqlNow("$2")+` WHERE id = $1`, id, rg.nowArg())
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return frontier.ErrNotFound
		}
		if lease > 0 {
			_, err = tx.Exec(ctx, `UPDATE frontier SET lease_until = `+sqlNow("$2")+` + $3
				WHERE state = 'in-flight' AND lease_owner = $1`, id, rg.nowArg(), int64(lease))
		}
		return err
	})
}

// Workers returns the workers whose last heartbeat is within window of
// now, oldest first (for status).
func (rg *Registry) Workers(window time.Duration) ([]Worker, error) {
	var ws []Worker
	err := rg.read("list workers", func(ctx context.Context, tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT id, hostname, pid, job, started_at, heartbeat_at FROM workers
			WHERE heartbeat_at >= `+sqlNow("$1")+` - $2 ORDER BY id`, rg.nowArg(), int64(window))
		if err != nil {
			return err
		}
		ws, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (Worker, error) {
			var (
				w         Worker
				start, hb int64
			)
			err := r.Scan(&w.ID, &w.Hostname, &w.PID, &w.Job, &start, &hb)
			w.Started, w.Heartbeat = fromNanos(start), fromNanos(hb)
			return w, err
		})
		return err
	})
	return ws, err
}

// Deregister removes a worker that stops, and puts the entries it still
// holds back in the queue for the others. It returns how many.
func (rg *Registry) Deregister(id int64) (int, error) { return rg.deregister(id, false) }

// deregister is Deregister; a dead worker's hosts keep their next slot
// no earlier than where the worker's runs of claims may have left it (see
// claimRun): claimRunMargin before its ownership would have ended.
func (rg *Registry) deregister(id int64, dead bool) (int, error) {
	n := 0
	err := rg.write(fmt.Sprintf("deregister worker %d", id), func(ctx context.Context, tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE frontier SET state = 'queued', lease_owner = 0, lease_until = 0
			WHERE state = 'in-flight' AND lease_owner = $1`, id)
		if err != nil {
			return err
		}
		n = int(tag.RowsAffected())
		// Its hosts go to the others at once (its crawl saved their pace
		// state before).
		if _, err := tx.Exec(ctx, `UPDATE host_pace SET owner_until = 0,
			next_at = CASE WHEN $2 THEN GREATEST(next_at, owner_until - $3) ELSE next_at END
			WHERE owner = $1`, id, dead, int64(claimRunMargin)); err != nil {
			return err
		}
		if _, err = tx.Exec(ctx, `DELETE FROM workers WHERE id = $1`, id); err != nil {
			return err
		}
		return notify(ctx, tx, id) // its hosts and entries are free
	})
	return n, err
}

// Reap deregisters the workers proven dead, which Deregister would have
// removed had they stopped cleanly: those of this machine (hostname) whose
// process is gone, and those of any machine whose heartbeat is older than
// the lease time (three missed heartbeats). Their entries in flight go
// back in the queue and their hosts to the others at once. A live worker
// is never reaped, two on one machine and one job included. It returns
// how many entries went back.
func (rg *Registry) Reap(hostname string) (int, error) {
	var dead []int64
	err := rg.read("list workers to reap", func(ctx context.Context, tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT id, hostname, pid, heartbeat_at < `+sqlNow("$1")+` - $2 FROM workers ORDER BY id`,
			rg.nowArg(), int64(rg.leaseTTL()))
		if err != nil {
			return err
		}
		var (
			id     int64
			host   string
			pid    int
			silent bool
		)
		_, err = pgx.ForEachRow(rows, []any{&id, &host, &pid, &silent}, func() error {
			if silent || (host == hostname && hostname != "" && !proc.Alive(pid)) {
				dead = append(dead, id)
			}
			return nil
		})
		return err
	})
	n := 0
	for _, id := range dead {
		k, derr := rg.deregister(id, true)
		n, err = n+k, errors.Join(err, derr)
	}
	return n, err
}
