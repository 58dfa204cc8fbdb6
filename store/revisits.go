package store

import (
	"fmt"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// hostRevisitsSQL counts a host's URLs by where they stand in their
// revisit schedules (the states waiting, the states a pass refreshes,
// now, soon, host); a fetched URL is due as Prepare finds it due.
const hostRevisitsSQL = `SELECT COUNT(*),
	COALESCE(SUM(CASE WHEN state IN (?1, ?2, ?3) THEN 1 ELSE 0 END), 0),
	COALESCE(SUM(CASE WHEN ` + refreshable + ` AND (due_at <= ?7 OR lastmod > fetched_at) THEN 1 ELSE 0 END), 0),
	COALESCE(SUM(CASE WHEN ` + refreshable + ` AND due_at > ?7 AND due_at <= ?8 AND lastmod <= fetched_at THEN 1 ELSE 0 END), 0),
	COALESCE(SUM(CASE WHEN revisit_ns > 0 THEN 1 ELSE 0 END), 0),
	COALESCE(MIN(CASE WHEN revisit_ns > 0 THEN revisit_ns END), 0), COALESCE(MAX(revisit_ns), 0)
	FROM frontier WHERE host = ?9`

// refreshable is the states a new pass asks for again when due (?4, ?5:
// done and not-modified; ?6: dead, when its schedule keeps a due time).
const refreshable = `(state IN (?4, ?5) OR (state = ?6 AND due_at > 0))`

// HostRevisits tells how host's URLs stand in their revisit schedules,
// over every job: due by now, due after now but by soon, and the spread
// of their learned intervals.
func (f *Frontier) HostRevisits(host string, now, soon time.Time) (frontier.HostRevisits, error) {
	var r frontier.HostRevisits
	tx, err := f.beginRead("read revisits")
	if err != nil {
		return r, err
	}
	defer tx.Rollback()
	var lo, hi int64
	err = tx.QueryRow(hostRevisitsSQL, frontier.Queued, frontier.Deferred, frontier.InFlight,
		frontier.Done, frontier.NotModified, frontier.Dead, toNanos(now), toNanos(soon), host).
		Scan(&r.URLs, &r.Waiting, &r.DueNow, &r.DueSoon, &r.Learned, &lo, &hi)
	if err != nil {
		return r, fmt.Errorf("read revisits of %s: %w", host, explain(err))
	}
	r.MinEvery, r.MaxEvery = time.Duration(lo), time.Duration(hi)
	if r.Learned == 0 {
		return r, nil
	}
	var mid int64
	err = tx.QueryRow(`SELECT revisit_ns FROM frontier WHERE host = ? AND revisit_ns > 0
		ORDER BY revisit_ns LIMIT 1 OFFSET ?`, host, (r.Learned-1)/2).Scan(&mid)
	if err != nil {
		return r, fmt.Errorf("read revisits of %s: median: %w", host, explain(err))
	}
	r.MedianEvery = time.Duration(mid)
	return r, nil
}
