package store

// Reading a job's frontier: counts per state, entries by state or URL.

import (
	"database/sql"
	"fmt"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/store/internal/column"
)

const countsSQL = `SELECT state, COUNT(*) FROM frontier WHERE job = ? GROUP BY state`

// Counts returns how many entries of the job are in each state. States
// without entries are absent.
func (f *Frontier) Counts(job string) (map[frontier.State]int, error) {
	tx, err := f.beginRead("count entries")
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	rows, err := tx.Query(countsSQL, job)
	if err != nil {
		return nil, fmt.Errorf("count entries of %s: %w", job, explain(err))
	}
	defer rows.Close()
	m := make(map[frontier.State]int)
	for rows.Next() {
		var (
			s string
			n int
		)
		if err := rows.Scan(&s, &n); err != nil {
			return nil, fmt.Errorf("count entries of %s: %w", job, err)
		}
		m[frontier.State(s)] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("count entries of %s: %w", job, explain(err))
	}
	return m, nil
}

// Entries returns the job's entries in a state, oldest first (limit 0: all).
func (f *Frontier) Entries(job string, s frontier.State, limit int) ([]frontier.Entry, error) {
	tx, err := f.beginRead("list entries")
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
func (f *Frontier) Get(job, url string) (frontier.Entry, error) {
	tx, err := f.beginRead("get entry")
	if err != nil {
		return frontier.Entry{}, err
	}
	defer tx.Rollback()
	rows, err := tx.Query(`SELECT `+entryColumns+` FROM frontier WHERE job = ? AND url = ?`, job, url)
	if err != nil {
		return frontier.Entry{}, fmt.Errorf("get entry %s: %w", url, explain(err))
	}
	es, err := scanEntries(rows)
	if err != nil {
		return frontier.Entry{}, fmt.Errorf("get entry %s: %w", url, err)
	}
	if len(es) == 0 {
		return frontier.Entry{}, fmt.Errorf("get entry %s of %s: %w", url, job, ErrNotFound)
	}
	return es[0], nil
}

// scanEntries reads and closes rows of entryColumns.
func scanEntries(rows *sql.Rows) ([]frontier.Entry, error) {
	defer rows.Close()
	var es []frontier.Entry
	for rows.Next() {
		var (
			e             frontier.Entry
			state         string
			next, fetched int64
			warcDate      int64
			kind          string
			lastmod       int64
			rv            column.RevisitScan
		)
		err := rows.Scan(append([]any{&e.ID, &e.Job, &e.URL, &e.Host, &state, &e.Attempts, &next, &e.Priority,
			&e.Depth, &e.Hops, &e.Parent, &e.ETag, &e.LastModified, &e.LastStatus, &e.Reason,
			&fetched, &e.File, &e.SHA256, &e.Bytes, &e.WarcID, &warcDate, &e.WarcDigest, &kind, &lastmod, &e.ListedBy},
			rv.Dest()...)...)
		if err != nil {
			return nil, err
		}
		e.State, e.NextAt, e.FetchedAt = frontier.State(state), fromNanos(next), fromNanos(fetched)
		e.WarcDate = fromNanos(warcDate)
		e.Kind, e.LastMod = frontier.Kind(kind), fromNanos(lastmod)
		e.Revisit = rv.Revisit()
		es = append(es, e)
	}
	if err := rows.Err(); err != nil {
		return nil, explain(err)
	}
	return es, nil
}
