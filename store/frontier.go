package store

import (
	"database/sql"
	"errors"
	"fmt"
	"github.com/polite-crawler/polite/crawl/frontier"
	"strings"
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
	etag, last_modified, last_status, reason, fetched_at, file, sha256, bytes,
	warc_id, warc_date, warc_digest, kind, lastmod`

// Enqueue adds entries that the job does not have yet (by URL) and returns
// how many were new. Existing entries are left as they are, but for one
// thing: a new entry's non-zero LastMod (a sitemap's lastmod, read again)
// replaces the stored one. Each entry
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
	etag, last_modified, last_status, reason, fetched_at, file, sha256, bytes, kind, lastmod`

// enqueueSQL inserts n rows, skipping URLs the job has.
func enqueueSQL(n int) string {
	row := "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
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
	args := make([]any, 0, 20*enqueueRows)
	var lastmods []Entry
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
				e.File, e.SHA256, e.Bytes, string(e.Kind), toNanos(e.LastMod))
			if !e.LastMod.IsZero() {
				lastmods = append(lastmods, e)
			}
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
	return added, setLastMods(tx, job, lastmods)
}

// setLastMods gives existing entries the lastmod a sitemap listed anew.
func setLastMods(tx *sql.Tx, job string, es []Entry) error {
	if len(es) == 0 {
		return nil
	}
	stmt, err := tx.Prepare(`UPDATE frontier SET lastmod = ? WHERE job = ? AND url = ? AND lastmod <> ?`)
	if err != nil {
		return fmt.Errorf("enqueue: %w", explain(err))
	}
	defer stmt.Close()
	for _, e := range es {
		lm := toNanos(e.LastMod)
		if _, err := stmt.Exec(lm, job, e.URL, lm); err != nil {
			return fmt.Errorf("enqueue %s: %w", e.URL, explain(err))
		}
	}
	return nil
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
			toNanos(e.FetchedAt), e.File, e.SHA256, e.Bytes, e.WarcID, toNanos(e.WarcDate), e.WarcDigest,
			string(e.Kind), toNanos(e.LastMod)}
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
