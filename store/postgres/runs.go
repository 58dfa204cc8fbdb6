package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// BeginRun records the start of a run of job. A zero at means the store's
// clock.
func (rl *RunLog) BeginRun(job string, at time.Time) (frontier.Run, error) {
	if at.IsZero() {
		at = rl.localNow()
	}
	r := frontier.Run{Job: job, StartedAt: fromNanos(toNanos(at))}
	err := rl.write("begin run of "+job, func(ctx context.Context, tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `INSERT INTO runs (job, started_at) VALUES ($1, $2) RETURNING id`,
			job, toNanos(at)).Scan(&r.ID)
		if err != nil {
			return err
		}
		return tx.QueryRow(ctx, `SELECT name FROM store_identity`).Scan(&r.Store)
	})
	if err != nil {
		return frontier.Run{}, err
	}
	return r, nil
}

// EndRun records the end of a run with its report. An unknown id is
// frontier.ErrNotFound. A zero at means the store's clock.
func (rl *RunLog) EndRun(id int64, at time.Time, exitCode int, summary string, report []byte) error {
	if at.IsZero() {
		at = rl.localNow()
	}
	return rl.write(fmt.Sprintf("end run %d", id), func(ctx context.Context, tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE runs SET ended_at = $1, exit_code = $2, summary = $3, report = $4 WHERE id = $5`,
			toNanos(at), exitCode, summary, report, id)
		if err == nil && tag.RowsAffected() == 0 {
			err = frontier.ErrNotFound
		}
		return err
	})
}

const runColumns = `id, job, started_at, ended_at, exit_code, summary, pace_by`

// runBeat is a run's heartbeat: a run without an end is as alive as the
// job's freshest live worker (runs and workers are not linked, so a
// killed worker's run looks alive while others work its job).
const runBeat = `COALESCE((SELECT MAX(w.heartbeat_at) FROM workers w
	WHERE w.job = runs.job AND runs.ended_at = 0), 0)`

// Runs returns the newest runs first, at most limit (0: all), without
// their reports.
func (rl *RunLog) Runs(limit int) ([]frontier.Run, error) {
	var rs []frontier.Run
	err := rl.read("list runs", func(ctx context.Context, tx pgx.Tx) error {
		q := `SELECT ` + runColumns + `, NULL::bytea, ` + runBeat + ` FROM runs ORDER BY id DESC`
		args := []any{}
		if limit > 0 {
			q += ` LIMIT $1`
			args = append(args, limit)
		}
		rows, err := tx.Query(ctx, q, args...)
		if err != nil {
			return err
		}
		rs, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (frontier.Run, error) { return scanRun(r) })
		return err
	})
	return rs, err
}

// GetRun returns one run with its report; frontier.ErrNotFound if there is
// none.
func (rl *RunLog) GetRun(id int64) (frontier.Run, error) {
	var r frontier.Run
	err := rl.read(fmt.Sprintf("get run %d", id), func(ctx context.Context, tx pgx.Tx) error {
		var err error
		r, err = scanRun(tx.QueryRow(ctx, `SELECT `+runColumns+`, report, `+runBeat+` FROM runs WHERE id = $1`, id))
		if errors.Is(err, pgx.ErrNoRows) {
			return frontier.ErrNotFound
		}
		return err
	})
	return r, err
}

func scanRun(s pgx.Row) (frontier.Run, error) {
	var (
		r                  frontier.Run
		started, end, beat int64
	)
	if err := s.Scan(&r.ID, &r.Job, &started, &end, &r.ExitCode, &r.Summary, &r.PaceBy, &r.Report, &beat); err != nil {
		return frontier.Run{}, err
	}
	r.StartedAt, r.EndedAt, r.BeatAt = fromNanos(started), fromNanos(end), fromNanos(beat)
	return r, nil
}

// AddFetches records fetches in one transaction. Each must name a run that
// BeginRun recorded.
func (rl *RunLog) AddFetches(fs []frontier.Fetch) error {
	if len(fs) == 0 {
		return nil
	}
	p, err := newProgress("", 0, nil, nil, fs)
	if err != nil {
		return err
	}
	return rl.write("record fetches", func(ctx context.Context, tx pgx.Tx) error {
		_, _, err := p.inTx(ctx, tx)
		return err
	})
}

// insertFetchSQL adds one fetch record.
const insertFetchSQL = `INSERT INTO fetches (run_id, url, host, status, reason, file, sha256,
	bytes, content_type, fetched_at, latency_ns, attempts, delay_ns)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`

// Fetches returns the fetches of a run in the order they were made.
func (rl *RunLog) Fetches(runID int64) ([]frontier.Fetch, error) {
	var fs []frontier.Fetch
	err := rl.read(fmt.Sprintf("list fetches of run %d", runID), func(ctx context.Context, tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT run_id, url, host, status, reason, file, sha256, bytes,
			content_type, fetched_at, latency_ns, attempts, delay_ns
			FROM fetches WHERE run_id = $1 ORDER BY fetched_at, id`, runID)
		if err != nil {
			return err
		}
		fs, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (frontier.Fetch, error) {
			var (
				f                  frontier.Fetch
				at, latency, delay int64
			)
			err := r.Scan(&f.RunID, &f.URL, &f.Host, &f.Status, &f.Reason, &f.File, &f.SHA256, &f.Bytes,
				&f.ContentType, &at, &latency, &f.Attempts, &delay)
			f.FetchedAt, f.Latency, f.Delay = fromNanos(at), time.Duration(latency), time.Duration(delay)
			return f, err
		})
		return err
	})
	return fs, err
}

// LastRun returns the newest run of job, if it has one.
func (rl *RunLog) LastRun(job string) (frontier.Run, bool, error) {
	var (
		r  frontier.Run
		ok bool
	)
	err := rl.read("last run of "+job, func(ctx context.Context, tx pgx.Tx) error {
		var err error
		r, err = scanRun(tx.QueryRow(ctx, `SELECT `+runColumns+`, NULL::bytea, `+runBeat+`
			FROM runs WHERE job = $1 ORDER BY id DESC LIMIT 1`, job))
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		ok = err == nil
		return err
	})
	return r, ok, err
}
