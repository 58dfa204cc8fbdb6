package store

import (
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// BeginRun records the start of a run of job. A zero at means Options.Now.
func (rl *RunLog) BeginRun(job string, at time.Time) (frontier.Run, error) {
	if at.IsZero() {
		at = rl.now()
	}
	tx, err := rl.beginWrite("begin run")
	if err != nil {
		return frontier.Run{}, err
	}
	defer tx.Rollback()
	r := frontier.Run{Job: job, StartedAt: fromNanos(toNanos(at))}
	err = tx.QueryRow(`INSERT INTO runs (job, started_at) VALUES (?, ?) RETURNING id`, job, toNanos(at)).Scan(&r.ID)
	if err == nil {
		err = tx.QueryRow(`SELECT name FROM store_identity`).Scan(&r.Store)
	}
	if err != nil {
		return frontier.Run{}, fmt.Errorf("begin run of %s: %w", job, explain(err))
	}
	return r, commit("begin run", tx)
}

// EndRun records the end of a run. An unknown id is ErrNotFound. A zero at
// means Options.Now.
func (rl *RunLog) EndRun(id int64, at time.Time, exitCode int, summary string, report []byte) error {
	if at.IsZero() {
		at = rl.now()
	}
	tx, err := rl.beginWrite("end run")
	if err != nil {
		return err
	}
	defer tx.Rollback()
	res, err := tx.Exec(`UPDATE runs SET ended_at = ?, exit_code = ?, summary = ?, report = ? WHERE id = ?`,
		toNanos(at), exitCode, summary, report, id)
	if err != nil {
		return fmt.Errorf("end run %d: %w", id, explain(err))
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("end run %d: %w", id, err)
	} else if n == 0 {
		return fmt.Errorf("end run %d: %w", id, ErrNotFound)
	}
	return commit("end run", tx)
}

const runColumns = `id, job, started_at, ended_at, exit_code, summary, beat_at, pace_by`

// Runs returns the newest runs first, at most limit (0: all), without
// their reports.
func (rl *RunLog) Runs(limit int) ([]frontier.Run, error) {
	tx, err := rl.beginRead("list runs")
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	q := `SELECT ` + runColumns + `, NULL FROM runs ORDER BY id DESC`
	args := []any{}
	if limit > 0 {
		q += ` LIMIT ?`
		args = append(args, limit)
	}
	rows, err := tx.Query(q, args...)
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", explain(err))
	}
	defer rows.Close()
	var rs []frontier.Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, fmt.Errorf("list runs: %w", err)
		}
		rs = append(rs, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list runs: %w", explain(err))
	}
	return rs, nil
}

// GetRun returns one run with its report; ErrNotFound if there is none.
func (rl *RunLog) GetRun(id int64) (frontier.Run, error) {
	tx, err := rl.beginRead("get run")
	if err != nil {
		return frontier.Run{}, err
	}
	defer tx.Rollback()
	r, err := scanRun(tx.QueryRow(`SELECT `+runColumns+`, report FROM runs WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return frontier.Run{}, fmt.Errorf("get run %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return frontier.Run{}, fmt.Errorf("get run %d: %w", id, explain(err))
	}
	return r, nil
}

// LastRun returns the newest run of job, without its report; false when
// the job has none.
func (rl *RunLog) LastRun(job string) (frontier.Run, bool, error) {
	tx, err := rl.beginRead("last run")
	if err != nil {
		return frontier.Run{}, false, err
	}
	defer tx.Rollback()
	r, err := scanRun(tx.QueryRow(`SELECT `+runColumns+`, NULL FROM runs WHERE job = ? ORDER BY id DESC LIMIT 1`, job))
	if errors.Is(err, sql.ErrNoRows) {
		return frontier.Run{}, false, nil
	}
	if err != nil {
		return frontier.Run{}, false, fmt.Errorf("last run of %s: %w", job, explain(err))
	}
	return r, true, nil
}

func scanRun(s scanner) (frontier.Run, error) {
	var (
		r                  frontier.Run
		started, end, beat int64
	)
	if err := s.Scan(&r.ID, &r.Job, &started, &end, &r.ExitCode, &r.Summary, &beat, &r.PaceBy, &r.Report); err != nil {
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
	tx, err := rl.beginWrite("record fetches")
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := rl.addFetches(tx, fs); err != nil {
		return err
	}
	return commit("record fetches", tx)
}

func (c *conn) addFetches(tx *sql.Tx, fs []frontier.Fetch) error {
	stmt, err := c.stmt(tx, addFetchSQL)
	if err != nil {
		return fmt.Errorf("record fetches: %w", err)
	}
	for _, f := range fs {
		_, err := stmt.Exec(f.RunID, f.URL, f.Host, f.Status, f.Reason, f.File, f.SHA256,
			f.Bytes, f.ContentType, toNanos(f.FetchedAt), int64(f.Latency), f.Attempts, int64(f.Delay))
		if err != nil {
			return fmt.Errorf("record fetch of %s in run %d: %w", f.URL, f.RunID, explain(err))
		}
	}
	return nil
}

// Fetches returns the fetches of a run in the order they were made.
func (rl *RunLog) Fetches(runID int64) ([]frontier.Fetch, error) {
	tx, err := rl.beginRead("list fetches")
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	rows, err := tx.Query(`SELECT run_id, url, host, status, reason, file, sha256, bytes,
		content_type, fetched_at, latency_ns, attempts, delay_ns
		FROM fetches WHERE run_id = ? ORDER BY fetched_at, id`, runID)
	if err != nil {
		return nil, fmt.Errorf("list fetches of run %d: %w", runID, explain(err))
	}
	defer rows.Close()
	var fs []frontier.Fetch
	for rows.Next() {
		var (
			f                  frontier.Fetch
			at, latency, delay int64
		)
		err := rows.Scan(&f.RunID, &f.URL, &f.Host, &f.Status, &f.Reason, &f.File, &f.SHA256, &f.Bytes,
			&f.ContentType, &at, &latency, &f.Attempts, &delay)
		if err != nil {
			return nil, fmt.Errorf("list fetches of run %d: %w", runID, err)
		}
		f.FetchedAt, f.Latency, f.Delay = fromNanos(at), time.Duration(latency), time.Duration(delay)
		fs = append(fs, f)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list fetches of run %d: %w", runID, explain(err))
	}
	return fs, nil
}
