package store

import (
	"database/sql"
	"fmt"
	"strings"

	"github.com/polite-crawler/polite/crawl/frontier"
)

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

// enqueueAlikeSQL inserts n rows of newColumns that share all but their
// url, host and priority (a seed file's batch, a page's links): the
// first row binds its ten values as ?1 to ?10, and every other row reuses
// its shared ones (job, state, next_at, depth, hops, parent, kind) and
// binds three, numbered on from 11. A third of the arguments, and two
// text values a row instead of six, each of which the driver copies.
// The other rows' own parameters are plain ?s: binding looks each
// parameter's name up in the list of the numbered ones, and numbering
// them all made that a second's work for a million seeds.
func enqueueAlikeSQL(n int) string {
	return `INSERT OR IGNORE INTO frontier (` + newColumns + `) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)` +
		strings.Repeat(", (?1, ?, ?, ?4, ?5, ?, ?7, ?8, ?9, ?10)", n-1)
}

// isNew reports whether e has nothing but newColumns to store.
func isNew(e *frontier.Entry) bool {
	return e.Attempts == 0 && e.ETag == "" && e.LastModified == "" && e.LastStatus == 0 && e.Reason == "" &&
		e.FetchedAt.IsZero() && e.File == "" && e.SHA256 == "" && e.Bytes == 0 && e.LastMod.IsZero() && e.ListedBy == ""
}

// alike reports whether e shares with first what enqueueAlikeSQL binds
// once.
func alike(e, first *frontier.Entry) bool {
	return e.State == first.State && e.NextAt.Equal(first.NextAt) && e.Depth == first.Depth && e.Hops == first.Hops &&
		e.Parent == first.Parent && e.Kind == first.Kind
}

// The statements an enqueue may insert a chunk with, from the widest.
const (
	shapeFull  = iota // enqueueSQL: an entry with more than a new one's columns
	shapeNew          // enqueueNewSQL: new entries
	shapeAlike        // enqueueAlikeSQL: new entries that share all but url, host and priority
)

// enqueuer inserts the entries of one transaction, a chunk of
// enqueueRows at a time, through the statements parsed at Open.
type enqueuer struct {
	c        *conn
	tx       *sql.Tx
	job      string
	full     [3]*sql.Stmt // by shape: enqueueRows rows
	args     []any
	lastmods []*frontier.Entry // into the caller's slice: no copy of a batch
}

func (f *Frontier) enqueue(tx *sql.Tx, job string, es []frontier.Entry) (int, error) {
	q := &enqueuer{c: f.conn, tx: tx, job: job, args: make([]any, 0, 21*enqueueRows)}
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
// the narrowest statement that holds every entry of the chunk.
func (q *enqueuer) insert(chunk []frontier.Entry) (int, error) {
	shape := shapeAlike
	for i := range chunk {
		e := &chunk[i]
		if err := checkNew(e); err != nil {
			return 0, fmt.Errorf("enqueue: %w", err)
		}
		switch {
		case !isNew(e):
			shape = shapeFull
		case shape == shapeAlike && !alike(e, &chunk[0]):
			shape = shapeNew
		}
		if !e.LastMod.IsZero() {
			q.lastmods = append(q.lastmods, e)
		}
	}
	q.bind(shape, chunk)
	res, err := q.exec(shape, len(chunk))
	if err != nil {
		return 0, fmt.Errorf("enqueue %s...: %w", chunk[0].URL, explain(err))
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("enqueue: %w", err)
	}
	return int(n), nil
}

// bind puts the arguments of chunk's insert through the statement of
// shape in q.args.
func (q *enqueuer) bind(shape int, chunk []frontier.Entry) {
	q.args = q.args[:0]
	for i := range chunk {
		e := &chunk[i]
		switch {
		case shape == shapeAlike && i > 0:
			q.args = append(q.args, e.URL, e.Host, e.Priority)
		case shape != shapeFull:
			q.args = append(q.args, q.job, e.URL, e.Host, stateOf(e), toNanos(e.NextAt), e.Priority,
				e.Depth, e.Hops, e.Parent, string(e.Kind))
		default:
			q.args = append(q.args, q.job, e.URL, e.Host, stateOf(e), e.Attempts, toNanos(e.NextAt), e.Priority,
				e.Depth, e.Hops, e.Parent, e.ETag, e.LastModified, e.LastStatus, e.Reason, toNanos(e.FetchedAt),
				e.File, e.SHA256, e.Bytes, string(e.Kind), toNanos(e.LastMod), e.ListedBy)
		}
	}
}

// stateOf is the state e is stored in: an empty one is Queued.
func stateOf(e *frontier.Entry) string {
	if e.State == "" {
		return string(frontier.Queued)
	}
	return string(e.State)
}

// exec runs the insert of n rows of shape with the arguments in hand.
func (q *enqueuer) exec(shape int, n int) (sql.Result, error) {
	sqlOf := [...]func(int) string{shapeFull: enqueueSQL, shapeNew: enqueueNewSQL, shapeAlike: enqueueAlikeSQL}[shape]
	if n < enqueueRows {
		return q.tx.Exec(sqlOf(n), q.args...)
	}
	if q.full[shape] == nil {
		stmt, err := q.c.stmt(q.tx, sqlOf(enqueueRows))
		if err != nil {
			return nil, err
		}
		q.full[shape] = stmt
	}
	return q.full[shape].Exec(q.args...)
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
