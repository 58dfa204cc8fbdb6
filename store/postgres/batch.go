package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/store/internal/column"
)

// writeBatch writes back the changed entries as update does, and adds
// the fetch records, in one round trip: the statements go to the server
// together (a pipeline), and their answers are read after.
func writeBatch(ctx context.Context, tx pgx.Tx, es []frontier.Entry, worker int64, fetches []frontier.Fetch) ([]frontier.Entry, error) {
	b := &pgx.Batch{}
	for _, e := range es {
		if err := checkEntry(e); err != nil {
			return nil, err
		}
		args := []any{e.Host, string(e.State), e.Attempts, toNanos(e.NextAt), e.Priority,
			e.Depth, e.Hops, e.Parent, e.ETag, e.LastModified, e.LastStatus, e.Reason,
			toNanos(e.FetchedAt), e.File, e.SHA256, e.Bytes, e.WarcID, toNanos(e.WarcDate), e.WarcDigest,
			string(e.Kind), toNanos(e.LastMod), e.ListedBy}
		args = append(args, column.RevisitArgs(e.Revisit)...)
		q := updateSQL + `WHERE id = $29`
		switch {
		case worker != 0:
			q += ` AND state = 'in-flight' AND lease_owner = $30`
			args = append(args, e.ID, worker)
		case e.ID != 0:
			args = append(args, e.ID)
		default:
			q = updateSQL + `WHERE job = $29 AND url = $30`
			args = append(args, e.Job, e.URL)
		}
		b.Queue(q, args...)
	}
	for _, f := range fetches {
		b.Queue(insertFetchSQL, f.RunID, f.URL, f.Host, f.Status, f.Reason, f.File, f.SHA256,
			f.Bytes, f.ContentType, toNanos(f.FetchedAt), int64(f.Latency), f.Attempts, int64(f.Delay))
	}
	if b.Len() == 0 {
		return nil, nil
	}
	br := tx.SendBatch(ctx, b)
	defer br.Close()
	var lost []frontier.Entry
	for _, e := range es {
		tag, err := br.Exec()
		switch {
		case err != nil:
			return nil, fmt.Errorf("%s: %w", e.URL, err)
		case tag.RowsAffected() > 0:
		case worker == 0:
			return nil, fmt.Errorf("%s: %w", e.URL, frontier.ErrNotFound)
		default:
			lost = append(lost, e)
		}
	}
	for _, f := range fetches {
		if _, err := br.Exec(); err != nil {
			return nil, fmt.Errorf("fetch of %s in run %d: %w", f.URL, f.RunID, err)
		}
	}
	return lost, br.Close()
}
