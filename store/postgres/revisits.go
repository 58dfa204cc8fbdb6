package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// hostRevisitsSQL counts a host's URLs by where they stand in their
// revisit schedules (host, now, soon); a fetched URL is due as Prepare
// finds it due.
const hostRevisitsSQL = `SELECT COUNT(*),
	COUNT(*) FILTER (WHERE state IN ('queued', 'deferred', 'in-flight')),
	COUNT(*) FILTER (WHERE ` + refreshable + ` AND (due_at <= $2 OR lastmod > fetched_at)),
	COUNT(*) FILTER (WHERE ` + refreshable + ` AND due_at > $2 AND due_at <= $3 AND lastmod <= fetched_at),
	COUNT(*) FILTER (WHERE revisit_ns > 0),
	COALESCE(MIN(revisit_ns) FILTER (WHERE revisit_ns > 0), 0), COALESCE(MAX(revisit_ns), 0)
	FROM frontier WHERE host = $1`

// refreshable is the states a new pass asks for again when due.
const refreshable = `(state IN ('done', 'not-modified') OR (state = 'dead' AND due_at > 0))`

// HostRevisits tells how host's URLs stand in their revisit schedules,
// over every job: due by now, due after now but by soon, and the spread
// of their learned intervals.
func (f *Frontier) HostRevisits(host string, now, soon time.Time) (frontier.HostRevisits, error) {
	var r frontier.HostRevisits
	err := f.read("read revisits of "+host, func(ctx context.Context, tx pgx.Tx) error {
		var lo, hi int64
		err := tx.QueryRow(ctx, hostRevisitsSQL, host, toNanos(now), toNanos(soon)).
			Scan(&r.URLs, &r.Waiting, &r.DueNow, &r.DueSoon, &r.Learned, &lo, &hi)
		if err != nil || r.Learned == 0 {
			return err
		}
		var mid int64
		err = tx.QueryRow(ctx, `SELECT revisit_ns FROM frontier WHERE host = $1 AND revisit_ns > 0
			ORDER BY revisit_ns LIMIT 1 OFFSET $2`, host, (r.Learned-1)/2).Scan(&mid)
		r.MinEvery, r.MedianEvery, r.MaxEvery = time.Duration(lo), time.Duration(mid), time.Duration(hi)
		return err
	})
	return r, err
}
