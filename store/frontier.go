package store

import (
	"database/sql"
	"errors"
	"fmt"
	"github.com/polite-crawler/polite/crawl/frontier"
	"strings"
	"time"
)

// ErrNotFound is returned when a run or entry does not exist.
var ErrNotFound = errors.New("not found")

// The records of a frontier are crawl/frontier's: store keeps them.
type (
	State     = frontier.State
	Entry     = frontier.Entry
	HostQueue = frontier.HostQueue
)

// The states of a frontier entry.
const (
	Queued      = frontier.Queued
	InFlight    = frontier.InFlight
	Done        = frontier.Done
	NotModified = frontier.NotModified
	Excluded    = frontier.Excluded
	Deferred    = frontier.Deferred
	Dead        = frontier.Dead
)

const entryColumns = `id, job, url, host, state, attempts, next_at, priority, depth, hops, parent,
	etag, last_modified, last_status, reason, fetched_at, file, sha256, bytes`

// Enqueue adds entries that the job does not have yet (by URL) and returns
// how many were new. Existing entries are left as they are. Each entry
// needs a URL and a Host; its Job and ID are ignored, and an empty State
// means Queued.
func (db *DB) Enqueue(job string, es []Entry) (int, error) {
	if job == "" {
		return 0, errors.New("enqueue: no job")
	}
	if len(es) == 0 {
		return 0, nil
	}
	tx, err := db.beginWrite("enqueue")
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	n, err := db.enqueue(tx, job, es)
	if err != nil {
		return 0, err
	}
	return n, commit("enqueue", tx)
}

// enqueueRows is how many entries one INSERT statement carries: fewer
// statements to step through, well under any limit on parameters.
const enqueueRows = 64

const enqueueColumns = `job, url, host, state, attempts, next_at, priority, depth, hops, parent,
	etag, last_modified, last_status, reason, fetched_at, file, sha256, bytes`

// enqueueSQL inserts n rows, skipping URLs the job has.
func enqueueSQL(n int) string {
	row := "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
	return `INSERT INTO frontier (` + enqueueColumns + `) VALUES ` +
		strings.Repeat(row+", ", n-1) + row + ` ON CONFLICT (job, url) DO NOTHING`
}

func (db *DB) enqueue(tx *sql.Tx, job string, es []Entry) (int, error) {
	var full *sql.Stmt
	if len(es) >= enqueueRows {
		var err error
		full, err = db.stmt(tx, enqueueSQL(enqueueRows))
		if err != nil {
			return 0, fmt.Errorf("enqueue: %w", err)
		}
	}
	added := 0
	args := make([]any, 0, 18*enqueueRows)
	for len(es) > 0 {
		chunk := es[:min(len(es), enqueueRows)]
		es = es[len(chunk):]
		args = args[:0]
		for _, e := range chunk {
			if e.State == "" {
				e.State = Queued
			}
			if err := checkEntry(e); err != nil {
				return 0, fmt.Errorf("enqueue: %w", err)
			}
			args = append(args, job, e.URL, e.Host, string(e.State), e.Attempts, toNanos(e.NextAt), e.Priority,
				e.Depth, e.Hops, e.Parent, e.ETag, e.LastModified, e.LastStatus, e.Reason, toNanos(e.FetchedAt),
				e.File, e.SHA256, e.Bytes)
		}
		var (
			res sql.Result
			err error
		)
		if len(chunk) == enqueueRows {
			res, err = full.Exec(args...)
		} else {
			res, err = tx.Exec(enqueueSQL(len(chunk)), args...)
		}
		if err != nil {
			return 0, fmt.Errorf("enqueue %s...: %w", chunk[0].URL, explain(err))
		}
		n, err := res.RowsAffected()
		if err != nil {
			return 0, fmt.Errorf("enqueue: %w", err)
		}
		added += int(n)
	}
	return added, nil
}

// checkEntry refuses an entry the frontier could never schedule.
func checkEntry(e Entry) error {
	switch {
	case e.URL == "":
		return errors.New("entry without a url")
	case e.Host == "":
		return fmt.Errorf("entry %s without a host", e.URL)
	case e.Host != strings.ToLower(e.Host):
		return fmt.Errorf("entry %s: host %q is not lowercased", e.URL, e.Host)
	case !e.State.Valid():
		return fmt.Errorf("entry %s: unknown state %q", e.URL, e.State)
	}
	return nil
}

// Prepare readies a job for a new run: entries left in flight by a dead run
// and deferred ones become queued; done and not-modified entries fetched
// before refreshBefore become queued again (keeping ETag and Last-Modified
// for a conditional request); excluded ones too, as robots.txt may change.
// Refreshed entries start again at zero attempts. Dead entries stay dead.
// A zero refreshBefore refreshes nothing.
func (db *DB) Prepare(job string, refreshBefore time.Time) error {
	tx, err := db.beginWrite("prepare job")
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := prepare(tx, job, refreshBefore); err != nil {
		return err
	}
	return commit("prepare job "+job, tx)
}

func prepare(tx *sql.Tx, job string, refreshBefore time.Time) error {
	_, err := tx.Exec(`UPDATE frontier SET state = ? WHERE job = ? AND state IN (?, ?, ?)`,
		Queued, job, InFlight, Deferred, Excluded)
	if err != nil {
		return fmt.Errorf("prepare job %s: %w", job, explain(err))
	}
	if refreshBefore.IsZero() {
		return nil
	}
	_, err = tx.Exec(`UPDATE frontier SET state = ?, attempts = 0
		WHERE job = ? AND state IN (?, ?) AND fetched_at < ?`,
		Queued, job, Done, NotModified, toNanos(refreshBefore))
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
func (db *DB) QueuedHosts(job string) ([]HostQueue, error) {
	tx, err := db.beginRead("list queued hosts")
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	rows, err := tx.Query(queuedHostsSQL, job, Queued)
	if err != nil {
		return nil, fmt.Errorf("list queued hosts of %s: %w", job, explain(err))
	}
	defer rows.Close()
	var hs []HostQueue
	for rows.Next() {
		var (
			h    HostQueue
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
func (db *DB) Take(job, host string, now time.Time, n int) ([]Entry, error) {
	if n <= 0 {
		return nil, nil
	}
	tx, err := db.beginWrite("take")
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	es, err := db.take(tx, job, host, now, n)
	if err != nil {
		return nil, err
	}
	return es, commit("take", tx)
}

// take selects, then updates by id, inside the caller's IMMEDIATE
// transaction, so no other writer can take the same rows. (PostgreSQL
// would say SELECT ... FOR UPDATE SKIP LOCKED.)
func (db *DB) take(tx *sql.Tx, job, host string, now time.Time, n int) ([]Entry, error) {
	sel, err := db.stmt(tx, takeSQL)
	if err != nil {
		return nil, fmt.Errorf("take from %s: %w", host, err)
	}
	rows, err := sel.Query(job, Queued, host, toNanos(now), n)
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
	stmt, err := db.stmt(tx, takeMarkSQL)
	if err != nil {
		return nil, fmt.Errorf("take from %s: %w", host, err)
	}
	for i := range es {
		if _, err := stmt.Exec(InFlight, es[i].ID); err != nil {
			return nil, fmt.Errorf("take %s: %w", es[i].URL, explain(err))
		}
		es[i].State = InFlight
	}
	return es, nil
}

// Update writes back the entries (state, attempts, next_at, validators,
// reason, file, ...) in one transaction. Entries are found by ID, or by Job
// and URL when ID is 0; one that does not exist is ErrNotFound, and then
// none is written.
func (db *DB) Update(es []Entry) error {
	if len(es) == 0 {
		return nil
	}
	tx, err := db.beginWrite("update entries")
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := db.update(tx, es); err != nil {
		return err
	}
	return commit("update entries", tx)
}

func (db *DB) update(tx *sql.Tx, es []Entry) error {
	byID, err := db.stmt(tx, updateByIDSQL)
	if err != nil {
		return fmt.Errorf("update entries: %w", err)
	}
	byURL, err := db.stmt(tx, updateByURLSQL)
	if err != nil {
		return fmt.Errorf("update entries: %w", err)
	}
	for _, e := range es {
		if err := checkEntry(e); err != nil {
			return fmt.Errorf("update entries: %w", err)
		}
		args := []any{e.Host, string(e.State), e.Attempts, toNanos(e.NextAt), e.Priority,
			e.Depth, e.Hops, e.Parent, e.ETag, e.LastModified, e.LastStatus, e.Reason,
			toNanos(e.FetchedAt), e.File, e.SHA256, e.Bytes}
		var res sql.Result
		if e.ID != 0 {
			res, err = byID.Exec(append(args, e.ID)...)
		} else {
			res, err = byURL.Exec(append(args, e.Job, e.URL)...)
		}
		if err != nil {
			return fmt.Errorf("update %s: %w", e.URL, explain(err))
		}
		n, err := res.RowsAffected()
		if err != nil {
			return fmt.Errorf("update %s: %w", e.URL, err)
		}
		if n == 0 {
			return fmt.Errorf("update %s: %w", e.URL, ErrNotFound)
		}
	}
	return nil
}

// countsSQL counts a job's entries per state (job).
const countsSQL = `SELECT state, COUNT(*) FROM frontier WHERE job = ? GROUP BY state`

// Counts returns how many entries of the job are in each state. States
// without entries are absent.
func (db *DB) Counts(job string) (map[State]int, error) {
	tx, err := db.beginRead("count entries")
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	rows, err := tx.Query(countsSQL, job)
	if err != nil {
		return nil, fmt.Errorf("count entries of %s: %w", job, explain(err))
	}
	defer rows.Close()
	m := make(map[State]int)
	for rows.Next() {
		var (
			s string
			n int
		)
		if err := rows.Scan(&s, &n); err != nil {
			return nil, fmt.Errorf("count entries of %s: %w", job, err)
		}
		m[State(s)] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("count entries of %s: %w", job, explain(err))
	}
	return m, nil
}

// Entries returns the job's entries in a state, oldest first (limit 0: all).
func (db *DB) Entries(job string, s State, limit int) ([]Entry, error) {
	tx, err := db.beginRead("list entries")
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	q := `SELECT ` + entryColumns + ` FROM frontier WHERE job = ? AND state = ? ORDER BY id`
	args := []any{job, string(s)}
	if limit > 0 {
		q += ` LIMIT ?`
		args = append(args, limit)
	}
	rows, err := tx.Query(q, args...)
	if err != nil {
		return nil, fmt.Errorf("list %s entries of %s: %w", s, job, explain(err))
	}
	es, err := scanEntries(rows)
	if err != nil {
		return nil, fmt.Errorf("list %s entries of %s: %w", s, job, err)
	}
	return es, nil
}

// Get returns the job's entry for a URL; ErrNotFound if there is none.
func (db *DB) Get(job, url string) (Entry, error) {
	tx, err := db.beginRead("get entry")
	if err != nil {
		return Entry{}, err
	}
	defer tx.Rollback()
	rows, err := tx.Query(`SELECT `+entryColumns+` FROM frontier WHERE job = ? AND url = ?`, job, url)
	if err != nil {
		return Entry{}, fmt.Errorf("get entry %s: %w", url, explain(err))
	}
	es, err := scanEntries(rows)
	if err != nil {
		return Entry{}, fmt.Errorf("get entry %s: %w", url, err)
	}
	if len(es) == 0 {
		return Entry{}, fmt.Errorf("get entry %s of %s: %w", url, job, ErrNotFound)
	}
	return es[0], nil
}

// scanEntries reads and closes rows of entryColumns.
func scanEntries(rows *sql.Rows) ([]Entry, error) {
	defer rows.Close()
	var es []Entry
	for rows.Next() {
		var (
			e             Entry
			state         string
			next, fetched int64
		)
		err := rows.Scan(&e.ID, &e.Job, &e.URL, &e.Host, &state, &e.Attempts, &next, &e.Priority,
			&e.Depth, &e.Hops, &e.Parent, &e.ETag, &e.LastModified, &e.LastStatus, &e.Reason,
			&fetched, &e.File, &e.SHA256, &e.Bytes)
		if err != nil {
			return nil, err
		}
		e.State, e.NextAt, e.FetchedAt = State(state), fromNanos(next), fromNanos(fetched)
		es = append(es, e)
	}
	if err := rows.Err(); err != nil {
		return nil, explain(err)
	}
	return es, nil
}

// Record writes one batch of a crawl's progress in a single transaction:
// new entries (as Enqueue), changed entries (as Update) and fetch records
// (as AddFetches). It returns how many new entries were added.
func (db *DB) Record(job string, added, changed []Entry, fetches []Fetch) (int, error) {
	if len(added)+len(changed)+len(fetches) == 0 {
		return 0, nil
	}
	tx, err := db.beginWrite("record progress")
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	n := 0
	if len(added) > 0 {
		if n, err = db.enqueue(tx, job, added); err != nil {
			return 0, err
		}
	}
	if len(changed) > 0 {
		if err := db.update(tx, changed); err != nil {
			return 0, err
		}
	}
	if len(fetches) > 0 {
		if err := db.addFetches(tx, fetches); err != nil {
			return 0, err
		}
	}
	return n, commit("record progress", tx)
}
