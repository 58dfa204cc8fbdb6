package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// AddWarcFile records a WARC file a run began, as store.DB.AddWarcFile.
func (rl *RunLog) AddWarcFile(f frontier.WarcFile) error {
	if f.At.IsZero() {
		f.At = rl.localNow()
	}
	return rl.write("record WARC file "+f.Path, func(ctx context.Context, tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO warc_files (path, job, run_id, worker, begun_at) VALUES ($1, $2, $3, $4, $5)
			ON CONFLICT (path) DO NOTHING`, f.Path, f.Job, f.Run, f.Worker, toNanos(f.At))
		return err
	})
}

// WarcFiles lists the WARC files of job's runs, oldest run first, as
// store.DB.WarcFiles.
func (rl *RunLog) WarcFiles(job string) ([]frontier.WarcFile, error) {
	var fs []frontier.WarcFile
	err := rl.read("list WARC files", func(ctx context.Context, tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT path, job, run_id, worker, begun_at FROM warc_files WHERE job = $1
			ORDER BY run_id, begun_at, path COLLATE "C"`, job)
		if err != nil {
			return err
		}
		fs, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (frontier.WarcFile, error) {
			var (
				f  frontier.WarcFile
				at int64
			)
			err := row.Scan(&f.Path, &f.Job, &f.Run, &f.Worker, &at)
			f.At = fromNanos(at)
			return f, err
		})
		return err
	})
	return fs, err
}
