package store

// The queue of a job's frontier: a new pass prepared, the hosts with
// queued entries, and entries taken by lease (marked in flight).

import (
	"database/sql"
	"fmt"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// Prepare readies a job for a new run: entries left in flight by a dead run
// and deferred ones become queued; done and not-modified entries fetched
// before refreshBefore and due by dueBy (their revisit's due time; a zero
// dueBy: every one; a page whose sitemap lastmod is after its last fetch
// is due whatever its interval) become queued again (keeping ETag and Last-Modified
// for a conditional request); excluded ones too, as robots.txt may change.
// Refreshed entries start again at zero attempts. Dead entries stay dead,
// but for a gone page (one its revisit schedule keeps a due time for),
// refreshed as the others. A zero refreshBefore refreshes nothing.
func (f *Frontier) Prepare(job string, refreshBefore, dueBy time.Time) error {
	tx, err := f.beginWrite("prepare job")
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := prepare(tx, job, refreshBefore, dueBy); err != nil {
		return err
	}
	return commit("prepare job "+job, tx)
}

func prepare(tx *sql.Tx, job string, refreshBefore, dueBy time.Time) error {
	_, err := tx.Exec(`UPDATE frontier SET state = ? WHERE job = ? AND state IN (?, ?, ?)`,
		frontier.Queued, job, frontier.InFlight, frontier.Deferred, frontier.Excluded)
	if err != nil {
		return fmt.Errorf("prepare job %s: %w", job, explain(err))
	}
	if refreshBefore.IsZero() {
		return nil
	}
	_, err = tx.Exec(`UPDATE frontier SET state = ?, attempts = 0
		WHERE job = ? AND (state IN (?, ?) OR (state = ? AND due_at > 0)) AND fetched_at < ?
			AND (? = 0 OR due_at <= ? OR lastmod > fetched_at)`,
		frontier.Queued, job, frontier.Done, frontier.NotModified, frontier.Dead, toNanos(refreshBefore),
		toNanos(dueBy), toNanos(dueBy))
	if err != nil {
		return fmt.Errorf("prepare job %s: refresh: %w", job, explain(err))
	}
	return nil
}

// queuedHostsSQL counts queued entries per host (job, state).
const queuedHostsSQL = `SELECT host, COUNT(*), MIN(next_at) FROM frontier
	WHERE job = ? AND state = ? GROUP BY host ORDER BY host`

// QueuedHosts returns every host of the job with queued entries, sorted by
// host.
func (f *Frontier) QueuedHosts(job string) ([]frontier.HostQueue, error) {
	tx, err := f.beginRead("list queued hosts")
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	rows, err := tx.Query(queuedHostsSQL, job, frontier.Queued)
	if err != nil {
		return nil, fmt.Errorf("list queued hosts of %s: %w", job, explain(err))
	}
	defer rows.Close()
	var hs []frontier.HostQueue
	for rows.Next() {
		var (
			h    frontier.HostQueue
			next int64
		)
		if err := rows.Scan(&h.Host, &h.Queued, &next); err != nil {
			return nil, fmt.Errorf("list queued hosts of %s: %w", job, err)
		}
		h.NextAt = fromNanos(next)
		hs = append(hs, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list queued hosts of %s: %w", job, explain(err))
	}
	return hs, nil
}

// takeSQL picks the next eligible entries of one host (job, state, host,
// now, n).
const takeSQL = `SELECT ` + entryColumns + ` FROM frontier
	WHERE job = ? AND state = ? AND host = ? AND next_at <= ?
	ORDER BY priority DESC, id LIMIT ?`

// Take marks up to n queued entries of host that are eligible at now as in
// flight and returns them, highest priority first, then oldest first.
func (f *Frontier) Take(job, host string, now time.Time, n int) ([]frontier.Entry, error) {
	taken, err := f.TakeHosts(job, []string{host}, now, n)
	return taken[host], err
}

// TakeHosts takes up to n entries of each of hosts as Take does, all in
// one transaction: a crawl meeting many hosts at once commits once for
// them. A host with none due is left out of the map.
func (f *Frontier) TakeHosts(job string, hosts []string, now time.Time, n int) (map[string][]frontier.Entry, error) {
	if n <= 0 || len(hosts) == 0 {
		return nil, nil
	}
	tx, err := f.beginWrite("take")
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	taken := make(map[string][]frontier.Entry, len(hosts))
	for _, host := range hosts {
		es, err := f.take(tx, job, host, now, n)
		if err != nil {
			return nil, err
		}
		if len(es) > 0 {
			taken[host] = es
		}
	}
	return taken, commit("take", tx)
}

// take selects, then updates by id, inside the caller's IMMEDIATE
// transaction, so no other writer can take the same rows. (PostgreSQL
// would say SELECT ... FOR UPDATE SKIP LOCKED.)
func (f *Frontier) take(tx *sql.Tx, job, host string, now time.Time, n int) ([]frontier.Entry, error) {
	sel, err := f.stmt(tx, takeSQL)
	if err != nil {
		return nil, fmt.Errorf("take from %s: %w", host, err)
	}
	rows, err := sel.Query(job, frontier.Queued, host, toNanos(now), n)
	if err != nil {
		return nil, fmt.Errorf("take from %s: %w", host, explain(err))
	}
	es, err := scanEntries(rows)
	if err != nil {
		return nil, fmt.Errorf("take from %s: %w", host, err)
	}
	if len(es) == 0 {
		return nil, nil
	}
	stmt, err := f.stmt(tx, takeMarkSQL)
	if err != nil {
		return nil, fmt.Errorf("take from %s: %w", host, err)
	}
	for i := range es {
		if _, err := stmt.Exec(frontier.InFlight, es[i].ID); err != nil {
			return nil, fmt.Errorf("take %s: %w", es[i].URL, explain(err))
		}
		es[i].State = frontier.InFlight
	}
	return es, nil
}

// BoundWait brings every queued or deferred entry of host in job that is
// due after latest forward to latest, and returns how many it moved. A
// crawl calls it with now+--max-hold when it finds a wait no hold may
// reach any more (one stored by an older polite, to 2036 or 9999), so
// that the wait ends once, at most a --max-hold after it was found.
func (f *Frontier) BoundWait(job, host string, latest time.Time) (int, error) {
	tx, err := f.beginWrite("bound waits")
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	res, err := tx.Exec(`UPDATE frontier SET next_at = ?
		WHERE job = ? AND host = ? AND state IN (?, ?) AND next_at > ?`,
		toNanos(latest), job, host, frontier.Queued, frontier.Deferred, toNanos(latest))
	if err != nil {
		return 0, fmt.Errorf("bound waits of %s: %w", host, explain(err))
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("bound waits of %s: %w", host, err)
	}
	return int(n), commit("bound waits of "+host, tx)
}
