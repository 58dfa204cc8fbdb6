package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/store/internal/column"
)

// progress is one batch of a crawl's progress as the statements of one
// pipeline, sent to the server together and answered after: the INSERTs
// of new entries (each answers how many rows it added, and wakes the
// waiting workers when it added any), the lastmods a sitemap listed anew,
// the changed entries written back and the fetch records.
type progress struct {
	b       pgx.Batch
	inserts int  // enqueue INSERTs, queued first
	lastmod bool // a lastmod UPDATE follows them
	changed []frontier.Entry
	worker  int64 // 0: a missing changed entry is frontier.ErrNotFound
	fetches []frontier.Fetch
}

// newProgress queues the statements of a batch of job's progress recorded
// by worker (see update for what worker changes).
func newProgress(job string, worker int64, added, changed []frontier.Entry, fetches []frontier.Fetch) (*progress, error) {
	p := &progress{changed: changed, worker: worker, fetches: fetches}
	if len(added) > 0 && job == "" {
		return nil, errors.New("enqueue: no job")
	}
	if err := p.queueEnqueue(job, added); err != nil {
		return nil, err
	}
	for _, e := range changed {
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
		p.b.Queue(q, args...)
	}
	for _, f := range fetches {
		p.b.Queue(insertFetchSQL, f.RunID, f.URL, f.Host, f.Status, f.Reason, f.File, f.SHA256,
			f.Bytes, f.ContentType, toNanos(f.FetchedAt), int64(f.Latency), f.Attempts, int64(f.Delay))
	}
	return p, nil
}

// queueEnqueue queues the INSERTs that add the entries job does not have
// yet (by URL), enqueueRows a statement, and the UPDATE that gives
// existing entries the lastmod a sitemap listed anew (see lastmodSQL).
func (p *progress) queueEnqueue(job string, es []frontier.Entry) error {
	lastmods := make(map[string]listing)
	wake := strconv.FormatInt(p.worker, 10)
	for len(es) > 0 {
		chunk := es[:min(len(es), enqueueRows)]
		es = es[len(chunk):]
		args := make([]any, 0, enqueueParams*len(chunk)+2)
		args = append(args, wakeChannel, wake)
		rows := make([]string, len(chunk))
		for i, e := range chunk {
			if e.State == "" {
				e.State = frontier.Queued
			}
			if err := checkEntry(e); err != nil {
				return err
			}
			ph := make([]string, enqueueParams)
			for j := range ph {
				ph[j] = fmt.Sprintf("$%d", len(args)+j+1)
			}
			rows[i] = "(" + strings.Join(ph, ", ") + ")"
			args = append(args, job, e.URL, e.Host, string(e.State), e.Attempts, toNanos(e.NextAt), e.Priority,
				e.Depth, e.Hops, e.Parent, e.ETag, e.LastModified, e.LastStatus, e.Reason, toNanos(e.FetchedAt),
				e.File, e.SHA256, e.Bytes, string(e.Kind), toNanos(e.LastMod), e.ListedBy)
			if !e.LastMod.IsZero() {
				lastmods[e.URL] = listing{toNanos(e.LastMod), e.ListedBy}
			}
		}
		// The waiting workers may take what was added: they are woken
		// when the transaction commits (one wake-up however many INSERTs).
		p.b.Queue(`WITH ins AS (INSERT INTO frontier (`+enqueueColumns+`) VALUES `+strings.Join(rows, ", ")+
			` ON CONFLICT (job, url) DO NOTHING RETURNING 1), c AS (SELECT COUNT(*) AS n FROM ins)
			SELECT n, (CASE WHEN n > 0 THEN pg_notify($1, $2)::text END) IS NULL FROM c`, args...)
		p.inserts++
	}
	if len(lastmods) > 0 {
		urls := make([]string, 0, len(lastmods))
		lms := make([]int64, 0, len(lastmods))
		bys := make([]string, 0, len(lastmods))
		for u, l := range lastmods {
			urls, lms, bys = append(urls, u), append(lms, l.lastmod), append(bys, l.by)
		}
		p.b.Queue(lastmodSQL, job, urls, lms, bys)
		p.lastmod = true
	}
	return nil
}

// listing is a lastmod a sitemap listed, and that sitemap.
type listing struct {
	lastmod int64
	by      string
}

// lastmodSQL gives existing entries of job $1 the lastmods $3 of URLs $2,
// and the sitemaps $4 that listed them (the last one a batch gave). A done
// or not-modified page whose new lastmod is after its last fetch is
// queued again, due or not.
const lastmodSQL = `UPDATE frontier f SET lastmod = u.lm, listed_by = u.by,
		state = CASE WHEN f.state IN ('done', 'not-modified') AND f.fetched_at > 0 AND u.lm > f.fetched_at
			THEN 'queued' ELSE f.state END,
		attempts = CASE WHEN f.state IN ('done', 'not-modified') AND f.fetched_at > 0 AND u.lm > f.fetched_at
			THEN 0 ELSE f.attempts END
	FROM unnest($2::text[], $3::bigint[], $4::text[]) AS u(url, lm, by)
	WHERE f.job = $1 AND f.url = u.url AND (f.lastmod <> u.lm OR f.listed_by <> u.by)`

// read reads the answers of p's statements, in order: how many entries
// were added, and the changed entries that were not written because
// p.worker did not hold their lease.
func (p *progress) read(br pgx.BatchResults) (int, []frontier.Entry, error) {
	added := 0
	for range p.inserts {
		var (
			n      int
			silent bool
		)
		if err := br.QueryRow().Scan(&n, &silent); err != nil {
			return 0, nil, fmt.Errorf("enqueue: %w", err)
		}
		added += n
	}
	if p.lastmod {
		if _, err := br.Exec(); err != nil {
			return 0, nil, fmt.Errorf("set lastmods: %w", err)
		}
	}
	var lost []frontier.Entry
	for _, e := range p.changed {
		tag, err := br.Exec()
		switch {
		case err != nil:
			return 0, nil, fmt.Errorf("%s: %w", e.URL, err)
		case tag.RowsAffected() > 0:
		case p.worker == 0:
			return 0, nil, fmt.Errorf("%s: %w", e.URL, frontier.ErrNotFound)
		default:
			lost = append(lost, e)
		}
	}
	for _, f := range p.fetches {
		if _, err := br.Exec(); err != nil {
			return 0, nil, fmt.Errorf("fetch of %s in run %d: %w", f.URL, f.RunID, err)
		}
	}
	return added, lost, nil
}

// inTx runs p in tx, in one round trip.
func (p *progress) inTx(ctx context.Context, tx pgx.Tx) (int, []frontier.Entry, error) {
	if p.b.Len() == 0 {
		return 0, nil, nil
	}
	br := tx.SendBatch(ctx, &p.b)
	defer br.Close()
	n, lost, err := p.read(br)
	if err != nil {
		return 0, nil, err
	}
	return n, lost, br.Close()
}

// alone runs p as a transaction of its own in one round trip, BEGIN and
// COMMIT included: the statements of a pipeline before its end run in
// one implicit transaction, which commits when the last succeeded and
// rolls back at the first that fails. Only the server may refuse p, then:
// its worker must be set, so that a missing entry is not an error.
func (c *conn) alone(op string, p *progress) (int, []frontier.Entry, error) {
	if p.worker == 0 {
		return 0, nil, fmt.Errorf("%s: a pipeline without a worker", op)
	}
	if p.b.Len() == 0 {
		return 0, nil, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout())
	defer cancel()
	c.counts.tx.Add(1)
	br := c.pool.SendBatch(ctx, &p.b)
	n, lost, err := p.read(br)
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, nil, c.failed(op, err)
	}
	return n, lost, nil
}
