package postgres

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// leaseSQL takes up to $5 entries of job $1 (of host $2 unless it is
// empty), that are due: queued ones whose next_at has come by $3 (the
// caller's now, or NULL for the server's clock), and in-flight ones whose
// lease ran out by $7 (the store's clock: a worker that died). Rows
// another transaction is taking are skipped, not waited for, so workers
// leasing at once get disjoint entries. They become in flight, leased to
// worker $4 for $6 nanoseconds of the store's clock.
var leaseSQL = `WITH c AS (SELECT ` + sqlNow("$3") + ` AS now, ` + sqlNow("$7") + ` AS lnow),
picked AS (
	SELECT f.id FROM frontier f, c
	WHERE f.job = $1 AND ($2 = '' OR f.host = $2)
		AND ((f.state = 'queued' AND f.next_at <= c.now)
			OR (f.state = 'in-flight' AND f.lease_until <= c.lnow))
	ORDER BY f.priority DESC, f.id
	LIMIT $5
	FOR UPDATE OF f SKIP LOCKED
)
UPDATE frontier f SET state = 'in-flight', lease_owner = $4, lease_until = c.lnow + $6
FROM picked, c
WHERE f.id = picked.id
RETURNING ` + prefixed("f.", entryColumns)

// Lease takes up to n due entries of the job for worker, of one host or
// (host "") of any, highest priority first, then oldest first. They are
// the worker's until ttl from now: Finish writes their results while the
// lease holds, Renew extends it, and once it runs out (the worker died)
// Lease hands them to another worker.
func (db *DB) Lease(job, host string, worker int64, n int, ttl time.Duration) ([]frontier.Entry, error) {
	if n <= 0 {
		return nil, nil
	}
	if worker == 0 || ttl <= 0 {
		return nil, errors.New("lease: need a worker id and a positive lease time")
	}
	return db.lease("lease from "+job, job, host, worker, db.nowArg(), n, ttl)
}

func (db *DB) lease(op, job, host string, worker int64, now any, n int, ttl time.Duration) ([]frontier.Entry, error) {
	var es []frontier.Entry
	err := db.write(op, func(ctx context.Context, tx pgx.Tx) error {
		var err error
		es, err = queryEntries(ctx, tx, leaseSQL, job, host, now, worker, n, int64(ttl), db.nowArg())
		return err
	})
	slices.SortFunc(es, func(a, b frontier.Entry) int {
		if a.Priority != b.Priority {
			return b.Priority - a.Priority
		}
		return int(a.ID - b.ID)
	})
	return es, err
}

// Take marks up to n entries of host that are due at now as in flight and
// returns them, as store.DB.Take. They are leased to the worker that
// Acquire registered (owner 0 before it) for the lease time (LeaseTTL),
// which Heartbeat renews; entries whose lease ran out by the store's clock
// are taken again.
func (db *DB) Take(job, host string, now time.Time, n int) ([]frontier.Entry, error) {
	if n <= 0 {
		return nil, nil
	}
	return db.lease("take from "+host, job, host, db.worker.Load(), toNanos(now), n, db.leaseTTL())
}

// Finish writes one batch of a worker's progress in one transaction, as
// Record does, but writes a changed entry only while worker still holds
// its lease. It returns how many new entries were added and the ids of
// the changed entries whose lease was lost (it ran out and another worker
// took them); their results are dropped, the fetch records kept.
func (db *DB) Finish(job string, worker int64, added, changed []frontier.Entry, fetches []frontier.Fetch) (int, []int64, error) {
	if worker == 0 {
		return 0, nil, errors.New("finish: no worker id")
	}
	return db.record("finish leased entries", job, worker, added, changed, fetches)
}

// Renew extends every lease worker holds to ttl from now and returns how
// many it holds. A live worker renews with its heartbeat.
func (db *DB) Renew(worker int64, ttl time.Duration) (int, error) {
	n := 0
	err := db.write("renew leases", func(ctx context.Context, tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE frontier SET lease_until = `+sqlNow("$2")+` + $3
			WHERE state = 'in-flight' AND lease_owner = $1`, worker, db.nowArg(), int64(ttl))
		n = int(tag.RowsAffected())
		return err
	})
	return n, err
}

// Outlook is what a job holds for its workers.
type Outlook struct {
	Queued int       // entries queued, due or not
	Leased int       // entries in flight under a lease that still runs
	NextAt time.Time // earliest a queued entry is due or a lease runs out; zero when neither
}

// Done reports whether no worker has work left: nothing queued and nothing
// in flight.
func (o Outlook) Done() bool { return o.Queued == 0 && o.Leased == 0 }

// Outlook tells an idle worker whether to wait for the job's entries (and
// until when) or to end.
func (db *DB) Outlook(job string) (Outlook, error) {
	var o Outlook
	err := db.read("outlook of "+job, func(ctx context.Context, tx pgx.Tx) error {
		var next *int64
		err := tx.QueryRow(ctx, `SELECT
				COUNT(*) FILTER (WHERE state = 'queued'),
				COUNT(*) FILTER (WHERE state = 'in-flight'),
				MIN(CASE WHEN state = 'queued' THEN next_at ELSE lease_until END)
			FROM frontier WHERE job = $1 AND state IN ('queued', 'in-flight')`, job).
			Scan(&o.Queued, &o.Leased, &next)
		if next != nil {
			o.NextAt = fromNanos(*next)
		}
		return err
	})
	return o, err
}

// prefixed qualifies each of a comma-separated list of columns.
func prefixed(p, cols string) string {
	fs := strings.Split(cols, ",")
	for i, f := range fs {
		fs[i] = p + strings.TrimSpace(f)
	}
	return strings.Join(fs, ", ")
}
