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
