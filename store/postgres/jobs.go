package postgres

import (
	"context"
	"errors"
	"sort"

	"github.com/jackc/pgx/v5"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// NameJob returns job's display name, as store.DB.NameJob: the one it
// has, or else want made unique in the database and kept for it.
func (l *RunLog) NameJob(job, want string) (string, error) {
	var name string
	err := l.write("name job "+job, func(ctx context.Context, tx pgx.Tx) error {
		// Workers naming jobs at once take turns.
		if _, err := tx.Exec(ctx, `LOCK TABLE jobs IN SHARE ROW EXCLUSIVE MODE`); err != nil {
			return err
		}
		err := tx.QueryRow(ctx, `SELECT name FROM jobs WHERE job = $1`, job).Scan(&name)
		if err == nil || !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		for i := 1; ; i++ {
			name = frontier.JobNameTry(want, i)
			var taken int
			if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM jobs WHERE name = $1`, name).Scan(&taken); err != nil {
				return err
			}
			if taken == 0 {
				break
			}
		}
		_, err = tx.Exec(ctx, `INSERT INTO jobs (job, name) VALUES ($1, $2)`, job, name)
		return err
	})
	return name, err
}

// Jobs returns every job the database knows of, as store.DB.Jobs.
func (l *RunLog) Jobs() ([]frontier.Job, error) {
	var js []frontier.Job
	err := l.read("list jobs", func(ctx context.Context, tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT k.job, COALESCE(j.name, '') FROM
			(SELECT job FROM runs UNION SELECT job FROM jobs UNION SELECT job FROM seed_sources) k
			LEFT JOIN jobs j ON j.job = k.job`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var j frontier.Job
			if err := rows.Scan(&j.Key, &j.Name); err != nil {
				return err
			}
			js = append(js, j)
		}
		return rows.Err()
	})
	sort.Slice(js, func(a, b int) bool { return js[a].Key < js[b].Key })
	return js, err
}
