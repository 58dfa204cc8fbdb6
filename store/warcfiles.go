package store

import (
	"fmt"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// AddWarcFile records a WARC file a run began; recording a path again
// changes nothing.
func (rl *RunLog) AddWarcFile(f frontier.WarcFile) error {
	if f.At.IsZero() {
		f.At = rl.now()
	}
	tx, err := rl.beginWrite("record WARC file")
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`INSERT INTO warc_files (path, job, run_id, worker, begun_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (path) DO NOTHING`, f.Path, f.Job, f.Run, f.Worker, toNanos(f.At)); err != nil {
		return fmt.Errorf("record WARC file %s: %w", f.Path, explain(err))
	}
	return commit("record WARC file", tx)
}

// WarcFiles lists the WARC files of job's runs, oldest run first.
func (rl *RunLog) WarcFiles(job string) ([]frontier.WarcFile, error) {
	rows, err := rl.r.Query(`SELECT path, job, run_id, worker, begun_at FROM warc_files WHERE job = ?
		ORDER BY run_id, begun_at, path`, job)
	if err != nil {
		return nil, fmt.Errorf("list WARC files: %w", explain(err))
	}
	defer rows.Close()
	var fs []frontier.WarcFile
	for rows.Next() {
		var (
			f  frontier.WarcFile
			at int64
		)
		if err := rows.Scan(&f.Path, &f.Job, &f.Run, &f.Worker, &at); err != nil {
			return nil, fmt.Errorf("list WARC files: %w", err)
		}
		f.At = fromNanos(at)
		fs = append(fs, f)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list WARC files: %w", explain(err))
	}
	return fs, nil
}
