package store

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/store/internal/column"
)

// ErrNotFound is returned when a run or entry does not exist.
var ErrNotFound = frontier.ErrNotFound

const entryColumns = `id, job, url, host, state, attempts, next_at, priority, depth, hops, parent,
	etag, last_modified, last_status, reason, fetched_at, file, sha256, bytes,
	warc_id, warc_date, warc_digest, kind, lastmod, listed_by, ` + column.Revisit

// Enqueue adds entries that the job does not have yet (by URL) and returns
// how many were new. Existing entries are left as they are, but for one
// thing: a new entry's non-zero LastMod (a sitemap's lastmod, read again)
// replaces the stored one, and its ListedBy with it. Each entry
// needs a URL and a Host; its Job and ID are ignored, and an empty State
// means Queued. During a load (BeginLoad) the entries join its
// transaction, and are committed with it.
func (f *Frontier) Enqueue(job string, es []frontier.Entry) (int, error) {
	if job == "" {
		return 0, errors.New("enqueue: no job")
	}
	if len(es) == 0 {
		return 0, nil
	}
	if n, ok, err := f.enqueueLoad(job, es); ok {
		return n, err
	}
	tx, err := f.beginWrite("enqueue")
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	n, err := f.enqueue(tx, job, es)
	if err != nil {
		return 0, err
	}
	return n, commit("enqueue", tx)
}

// enqueueRows is how many entries one INSERT statement carries: fewer
// statements to step through, well under any limit on parameters.
const enqueueRows = 64

const enqueueColumns = `job, url, host, state, attempts, next_at, priority, depth, hops, parent,
	etag, last_modified, last_status, reason, fetched_at, file, sha256, bytes, kind, lastmod, listed_by`

// newColumns are what a URL new to the frontier (a seed, a link) has; the
// other columns of enqueueColumns take their defaults (zero or empty), which is
// what a zero field binds to. Binding half the arguments is a tenth less
// CPU for a million seeds.
const newColumns = `job, url, host, state, next_at, priority, depth, hops, parent, kind`

// enqueueSQL inserts n rows of enqueueColumns, skipping URLs the job has.
func enqueueSQL(n int) string { return insertSQL(enqueueColumns, 21, n) }

// enqueueNewSQL inserts n rows of newColumns, skipping URLs the job has.
func enqueueNewSQL(n int) string { return insertSQL(newColumns, 10, n) }

// insertSQL inserts n rows of width columns. OR IGNORE skips a URL the
// job has, as ON CONFLICT (job, url) DO NOTHING would (no other
// constraint can fail: every column is bound a value), and spares
// SQLite a statement journal for each insert of many rows, which an
// insert that may abort half way needs: 6% less CPU for a million seeds.
func insertSQL(columns string, width, n int) string {
	row := "(?" + strings.Repeat(", ?", width-1) + ")"
	return `INSERT OR IGNORE INTO frontier (` + columns + `) VALUES ` +
		strings.Repeat(row+", ", n-1) + row
}

// isNew reports whether e has nothing but newColumns to store.
func isNew(e *frontier.Entry) bool {
	return e.Attempts == 0 && e.ETag == "" && e.LastModified == "" && e.LastStatus == 0 && e.Reason == "" &&
		e.FetchedAt.IsZero() && e.File == "" && e.SHA256 == "" && e.Bytes == 0 && e.LastMod.IsZero() && e.ListedBy == ""
}

// enqueuer inserts the entries of one transaction, a chunk of
// enqueueRows at a time, through the statements parsed at Open.
type enqueuer struct {
	c        *conn
	tx       *sql.Tx
	job      string
	full     map[bool]*sql.Stmt // by newness: enqueueRows rows
	args     []any
	lastmods []*frontier.Entry // into the caller's slice: no copy of a batch
}

func (f *Frontier) enqueue(tx *sql.Tx, job string, es []frontier.Entry) (int, error) {
	q := &enqueuer{c: f.conn, tx: tx, job: job, full: map[bool]*sql.Stmt{}, args: make([]any, 0, 21*enqueueRows)}
	added := 0
	for len(es) > 0 {
		chunk := es[:min(len(es), enqueueRows)]
		es = es[len(chunk):]
		n, err := q.insert(chunk)
		if err != nil {
			return 0, err
		}
		added += n
	}
	return added, setLastMods(tx, job, q.lastmods)
}

// insert inserts one chunk and returns how many rows were new: through
// the narrow statement when every entry of the chunk is new.
func (q *enqueuer) insert(chunk []frontier.Entry) (int, error) {
	narrow := true
	for i := range chunk {
		e := &chunk[i]
		if err := checkNew(e); err != nil {
			return 0, fmt.Errorf("enqueue: %w", err)
		}
		narrow = narrow && isNew(e)
		if !e.LastMod.IsZero() {
			q.lastmods = append(q.lastmods, e)
		}
	}
	q.args = q.args[:0]
	for i := range chunk {
		e := &chunk[i]
		state := string(e.State)
		if state == "" {
			state = string(frontier.Queued)
		}
		if narrow {
			q.args = append(q.args, q.job, e.URL, e.Host, state, toNanos(e.NextAt), e.Priority,
				e.Depth, e.Hops, e.Parent, string(e.Kind))
			continue
		}
		q.args = append(q.args, q.job, e.URL, e.Host, state, e.Attempts, toNanos(e.NextAt), e.Priority,
			e.Depth, e.Hops, e.Parent, e.ETag, e.LastModified, e.LastStatus, e.Reason, toNanos(e.FetchedAt),
			e.File, e.SHA256, e.Bytes, string(e.Kind), toNanos(e.LastMod), e.ListedBy)
	}
	res, err := q.exec(narrow, len(chunk))
	if err != nil {
		return 0, fmt.Errorf("enqueue %s...: %w", chunk[0].URL, explain(err))
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("enqueue: %w", err)
	}
	return int(n), nil
}

// exec runs the insert of n rows with the arguments in hand.
func (q *enqueuer) exec(narrow bool, n int) (sql.Result, error) {
	sqlOf := enqueueSQL
	if narrow {
		sqlOf = enqueueNewSQL
	}
	if n < enqueueRows {
		return q.tx.Exec(sqlOf(n), q.args...)
	}
	stmt, ok := q.full[narrow]
	if !ok {
		var err error
		if stmt, err = q.c.stmt(q.tx, sqlOf(enqueueRows)); err != nil {
			return nil, err
		}
		q.full[narrow] = stmt
	}
	return stmt.Exec(q.args...)
}

// setLastMods gives existing entries the lastmod a sitemap listed anew,
// and that sitemap. A done or not-modified page whose new lastmod is
// after its last fetch is queued again, due or not: the sitemap says it
// changed.
func setLastMods(tx *sql.Tx, job string, es []*frontier.Entry) error {
	if len(es) == 0 {
		return nil
	}
	stmt, err := tx.Prepare(`UPDATE frontier SET lastmod = ?1, listed_by = ?4, ` + requeueListed + `
		WHERE job = ?2 AND url = ?3 AND (lastmod <> ?1 OR listed_by <> ?4)`)
	if err != nil {
		return fmt.Errorf("enqueue: %w", explain(err))
	}
	defer stmt.Close()
	for _, e := range es {
		lm := toNanos(e.LastMod)
		if _, err := stmt.Exec(lm, job, e.URL, e.ListedBy); err != nil {
			return fmt.Errorf("enqueue %s: %w", e.URL, explain(err))
		}
	}
	return nil
}

// requeueListed is the SET clause of setLastMods that queues a fetched
// page again when ?1, its new lastmod, is after its last fetch.
const requeueListed = `
	state = CASE WHEN state IN ('done', 'not-modified') AND fetched_at > 0 AND ?1 > fetched_at
		THEN 'queued' ELSE state END,
	attempts = CASE WHEN state IN ('done', 'not-modified') AND fetched_at > 0 AND ?1 > fetched_at
		THEN 0 ELSE attempts END`

// checkNew is checkEntry for an entry to enqueue: an empty State means
// Queued.
func checkNew(e *frontier.Entry) error {
	if e.State == "" {
		c := *e
		c.State = frontier.Queued
		return checkEntry(c)
	}
	return checkEntry(*e)
}

// checkEntry refuses an entry the frontier could never schedule.
func checkEntry(e frontier.Entry) error {
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
func (f *Frontier) Update(es []frontier.Entry) error {
	if len(es) == 0 {
		return nil
	}
	tx, err := f.beginWrite("update entries")
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := f.update(tx, es); err != nil {
		return err
	}
	return commit("update entries", tx)
}

func (f *Frontier) update(tx *sql.Tx, es []frontier.Entry) error {
	byID, err := f.stmt(tx, updateByIDSQL)
	if err != nil {
		return fmt.Errorf("update entries: %w", err)
	}
	byURL, err := f.stmt(tx, updateByURLSQL)
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
			string(e.Kind), toNanos(e.LastMod), e.ListedBy}
		args = append(args, column.RevisitArgs(e.Revisit)...)
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
func (f *Frontier) Record(job string, added, changed []frontier.Entry, fetches []frontier.Fetch) (int, error) {
	if len(added)+len(changed)+len(fetches) == 0 {
		return 0, nil
	}
	tx, err := f.beginWrite("record progress")
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	if err := f.sizeCache(tx, crawlCacheKiB); err != nil {
		return 0, fmt.Errorf("record progress: %w", err)
	}
	n := 0
	if len(added) > 0 {
		if n, err = f.enqueue(tx, job, added); err != nil {
			return 0, err
		}
	}
	if len(changed) > 0 {
		if err := f.update(tx, changed); err != nil {
			return 0, err
		}
	}
	if len(fetches) > 0 {
		if err := f.addFetches(tx, fetches); err != nil {
			return 0, err
		}
	}
	return n, commit("record progress", tx)
}
