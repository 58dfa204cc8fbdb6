package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/store/internal/column"
)

const entryColumns = `id, job, url, host, state, attempts, next_at, priority, depth, hops, parent,
	etag, last_modified, last_status, reason, fetched_at, file, sha256, bytes,
	warc_id, warc_date, warc_digest, kind, lastmod, listed_by, ` + column.Revisit

const enqueueColumns = `job, url, host, state, attempts, next_at, priority, depth, hops, parent,
	etag, last_modified, last_status, reason, fetched_at, file, sha256, bytes, kind, lastmod, listed_by`

// enqueueParams is how many parameters one enqueued row takes.
const enqueueParams = 21

// enqueueRows is how many entries one INSERT carries (enqueueParams
// each, far below PostgreSQL's 65535).
const enqueueRows = 256

// Enqueue adds entries that the job does not have yet (by URL) and returns
// how many were new, as store.DB.Enqueue.
func (f *Frontier) Enqueue(job string, es []frontier.Entry) (int, error) {
	if job == "" {
		return 0, errors.New("enqueue: no job")
	}
	if len(es) == 0 {
		return 0, nil
	}
	n := 0
	err := f.write("enqueue", func(ctx context.Context, tx pgx.Tx) error {
		p, err := newProgress(job, f.worker.Load(), es, nil, nil)
		if err == nil {
			n, _, err = p.inTx(ctx, tx)
		}
		return err
	})
	return n, err
}

// checkEntry refuses an entry the frontier could never schedule.
func checkEntry(e frontier.Entry) error {
	switch e.State {
	case frontier.Queued, frontier.InFlight, frontier.Done, frontier.NotModified, frontier.Excluded, frontier.Deferred, frontier.Dead:
	default:
		return fmt.Errorf("entry %s: unknown state %q", e.URL, e.State)
	}
	switch {
	case e.URL == "":
		return errors.New("entry without a url")
	case e.Host == "":
		return fmt.Errorf("entry %s without a host", e.URL)
	case e.Host != strings.ToLower(e.Host):
		return fmt.Errorf("entry %s: host %q is not lowercased", e.URL, e.Host)
	}
	return nil
}

// Prepare readies a job for a new run, as store.DB.Prepare, except that
// in-flight entries become queued only when their lease has run out: the
// entries other live workers are fetching stay theirs.
func (f *Frontier) Prepare(job string, refreshBefore, dueBy time.Time) error {
	return f.write("prepare job "+job, func(ctx context.Context, tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `UPDATE frontier SET state = 'queued', lease_owner = 0, lease_until = 0
			WHERE job = $1 AND (state IN ('deferred', 'excluded')
				OR (state = 'in-flight' AND lease_until <= `+sqlNow("$2")+`))`, job, f.nowArg())
		if err != nil || refreshBefore.IsZero() {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE frontier SET state = 'queued', attempts = 0
			WHERE job = $1 AND (state IN ('done', 'not-modified') OR (state = 'dead' AND due_at > 0))
				AND fetched_at < $2 AND ($3::bigint = 0 OR due_at <= $3::bigint OR lastmod > fetched_at)`,
			job, toNanos(refreshBefore), toNanos(dueBy))
		return err
	})
}

// QueuedHosts returns every host of the job with queued entries, sorted by
// host. Entries in flight whose lease ran out (their worker died) count
// as queued: Take hands them out again.
func (f *Frontier) QueuedHosts(job string) ([]frontier.HostQueue, error) {
	var hs []frontier.HostQueue
	err := f.read("list queued hosts of "+job, func(ctx context.Context, tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT host, COUNT(*), MIN(next_at) FROM frontier
			WHERE job = $1 AND (state = 'queued' OR (state = 'in-flight' AND lease_until <= `+sqlNow("$2")+`))
			GROUP BY host ORDER BY host`, job, f.nowArg())
		if err != nil {
			return err
		}
		hs, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (frontier.HostQueue, error) {
			var (
				h    frontier.HostQueue
				next int64
			)
			err := r.Scan(&h.Host, &h.Queued, &next)
			h.NextAt = fromNanos(next)
			return h, err
		})
		return err
	})
	return hs, err
}

// updateSQL writes back an entry ($1..$28 the fields, $29 id, or $29 job
// and $30 url), ending any lease unless it stays in flight.
const updateSQL = `UPDATE frontier SET host = $1, state = $2, attempts = $3, next_at = $4, priority = $5,
	depth = $6, hops = $7, parent = $8, etag = $9, last_modified = $10, last_status = $11, reason = $12,
	fetched_at = $13, file = $14, sha256 = $15, bytes = $16,
	warc_id = $17, warc_date = $18, warc_digest = $19, kind = $20, lastmod = $21, listed_by = $22,
	revisit_ns = $23, due_at = $24, fetch_count = $25, change_count = $26, changed_at = $27, last_change = $28,
	lease_owner = CASE WHEN $2 = 'in-flight' THEN lease_owner ELSE 0 END,
	lease_until = CASE WHEN $2 = 'in-flight' THEN lease_until ELSE 0 END `

// Update writes back the entries in one transaction, as store.DB.Update,
// whoever holds their lease.
func (f *Frontier) Update(es []frontier.Entry) error {
	if len(es) == 0 {
		return nil
	}
	p, err := newProgress("", 0, nil, es, nil)
	if err != nil {
		return err
	}
	return f.write("update entries", func(ctx context.Context, tx pgx.Tx) error {
		_, _, err := p.inTx(ctx, tx)
		return err
	})
}

// Record writes one batch of a crawl's progress in one transaction, as
// store.DB.Record: new entries, changed entries and fetch records. It
// returns how many new entries were added. Once Acquire registered this
// DB as a worker, a changed entry is written only while the worker still
// holds its lease; before, whoever holds it. A change to an entry whose
// lease the worker lost (it ran out, and another worker took the entry)
// is not written, its fetch record is: that is an error, logged (see
// Options.Log) and counted (LeaseLost), never a silent drop.
func (f *Frontier) Record(job string, added, changed []frontier.Entry, fetches []frontier.Fetch) (int, error) {
	n, _, err := f.record("record progress", job, f.worker.Load(), added, changed, fetches)
	return n, err
}

// record is Record as worker (0: whoever holds the lease): it also
// returns the ids of the changed entries whose lease worker lost, once
// it has logged and counted them.
func (f *Frontier) record(op, job string, worker int64, added, changed []frontier.Entry, fetches []frontier.Fetch) (int, []int64, error) {
	if len(added)+len(changed)+len(fetches) == 0 {
		return 0, nil, nil
	}
	p, err := newProgress(job, worker, added, changed, fetches)
	if err != nil {
		return 0, nil, fmt.Errorf("%s: %w", op, err)
	}
	var (
		n    int
		lost []frontier.Entry
	)
	if worker != 0 {
		n, lost, err = f.alone(op, p) // one round trip
	} else {
		err = f.write(op, func(ctx context.Context, tx pgx.Tx) error {
			n, lost, err = p.inTx(ctx, tx)
			return err
		})
	}
	if err != nil {
		return 0, nil, err
	}
	return n, f.leaseLost(job, worker, lost), nil
}

// leaseLost logs and counts the entries worker recorded without holding
// their lease, and returns their ids.
func (c *conn) leaseLost(job string, worker int64, lost []frontier.Entry) []int64 {
	if len(lost) == 0 {
		return nil
	}
	ids := make([]int64, len(lost))
	urls := make([]string, len(lost))
	for i, e := range lost {
		ids[i], urls[i] = e.ID, e.URL
	}
	c.lost.Add(int64(len(lost)))
	if c.opts.Log != nil {
		c.opts.Log("entries recorded without their lease: their changes are dropped, another worker holds them",
			"job", job, "worker", worker, "count", len(lost), "urls", strings.Join(urls, " "))
	}
	return ids
}

// BoundWait brings host's waiting entries of job that are due after
// latest forward to latest, returning how many moved.
func (f *Frontier) BoundWait(job, host string, latest time.Time) (int, error) {
	var n int64
	err := f.write("bound waits of "+host, func(ctx context.Context, tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE frontier SET next_at = $1
			WHERE job = $2 AND host = $3 AND state IN ($4, $5) AND next_at > $1`,
			toNanos(latest), job, host, string(frontier.Queued), string(frontier.Deferred))
		n = tag.RowsAffected()
		return err
	})
	return int(n), err
}

// Counts returns how many entries of the job are in each state. States
// without entries are absent.
func (f *Frontier) Counts(job string) (map[frontier.State]int, error) {
	m := make(map[frontier.State]int)
	err := f.read("count entries of "+job, func(ctx context.Context, tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT state, COUNT(*) FROM frontier WHERE job = $1 GROUP BY state`, job)
		if err != nil {
			return err
		}
		var (
			s string
			n int
		)
		_, err = pgx.ForEachRow(rows, []any{&s, &n}, func() error { m[frontier.State(s)] = n; return nil })
		return err
	})
	return m, err
}

// Entries returns the job's entries in a state, oldest first (limit 0: all).
func (f *Frontier) Entries(job string, s frontier.State, limit int) ([]frontier.Entry, error) {
	var es []frontier.Entry
	err := f.read(fmt.Sprintf("list %s entries of %s", s, job), func(ctx context.Context, tx pgx.Tx) error {
		q := `SELECT ` + entryColumns + ` FROM frontier WHERE job = $1 AND state = $2 ORDER BY id`
		args := []any{job, string(s)}
		if limit > 0 {
			q += ` LIMIT $3`
			args = append(args, limit)
		}
		var err error
		es, err = queryEntries(ctx, tx, q, args...)
		return err
	})
	return es, err
}

// Get returns the job's entry for a URL; frontier.ErrNotFound if there is none.
func (f *Frontier) Get(job, url string) (frontier.Entry, error) {
	var es []frontier.Entry
	err := f.read("get entry "+url, func(ctx context.Context, tx pgx.Tx) error {
		var err error
		es, err = queryEntries(ctx, tx, `SELECT `+entryColumns+` FROM frontier WHERE job = $1 AND url = $2`, job, url)
		return err
	})
	if err != nil {
		return frontier.Entry{}, err
	}
	if len(es) == 0 {
		return frontier.Entry{}, fmt.Errorf("get entry %s of %s: %w", url, job, frontier.ErrNotFound)
	}
	return es[0], nil
}

// queryEntries runs q, which selects entryColumns.
func queryEntries(ctx context.Context, tx pgx.Tx, q string, args ...any) ([]frontier.Entry, error) {
	rows, err := tx.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (frontier.Entry, error) {
		var (
			e             frontier.Entry
			state         string
			next, fetched int64
			warcDate      int64
			kind          string
			lastmod       int64
			rv            column.RevisitScan
		)
		err := r.Scan(append([]any{&e.ID, &e.Job, &e.URL, &e.Host, &state, &e.Attempts, &next, &e.Priority,
			&e.Depth, &e.Hops, &e.Parent, &e.ETag, &e.LastModified, &e.LastStatus, &e.Reason,
			&fetched, &e.File, &e.SHA256, &e.Bytes, &e.WarcID, &warcDate, &e.WarcDigest, &kind, &lastmod, &e.ListedBy},
			rv.Dest()...)...)
		e.State, e.NextAt, e.FetchedAt = frontier.State(state), fromNanos(next), fromNanos(fetched)
		e.WarcDate, e.Kind, e.LastMod = fromNanos(warcDate), frontier.Kind(kind), fromNanos(lastmod)
		e.Revisit = rv.Revisit()
		return e, err
	})
}
