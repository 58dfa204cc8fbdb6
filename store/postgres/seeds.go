package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// SeedSource returns what job's frontier last took from its seed file, if
// anything, as store.DB.SeedSource.
func (f *Frontier) SeedSource(job string) (frontier.SeedSource, bool, error) {
	var (
		s  frontier.SeedSource
		ok bool
	)
	err := f.read("load seed source of "+job, func(ctx context.Context, tx pgx.Tx) error {
		var (
			mod, loaded int64
			origins     string
		)
		err := tx.QueryRow(ctx, `SELECT job, name, size, mod_time, sha256, seeds, origins, loaded_at
			FROM seed_sources WHERE job = $1`, job).
			Scan(&s.Job, &s.Name, &s.Size, &mod, &s.SHA256, &s.Seeds, &origins, &loaded)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		ok = true
		s.ModTime, s.LoadedAt = fromNanos(mod), fromNanos(loaded)
		if origins != "" {
			s.Origins = strings.Split(origins, "\n")
		}
		return nil
	})
	return s, ok, err
}

// PutSeedSource records what job's frontier took from its seed file,
// replacing what it took before.
func (f *Frontier) PutSeedSource(s frontier.SeedSource) error {
	if s.Job == "" {
		return errors.New("store seed source: no job")
	}
	for _, o := range s.Origins {
		if o == "" || strings.Contains(o, "\n") {
			return fmt.Errorf("store seed source of %s: bad origin %q", s.Job, o)
		}
	}
	return f.write("store seed source of "+s.Job, func(ctx context.Context, tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO seed_sources (job, name, size, mod_time, sha256, seeds, origins, loaded_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
			ON CONFLICT (job) DO UPDATE SET name = excluded.name, size = excluded.size, mod_time = excluded.mod_time,
				sha256 = excluded.sha256, seeds = excluded.seeds, origins = excluded.origins, loaded_at = excluded.loaded_at`,
			s.Job, s.Name, s.Size, toNanos(s.ModTime), s.SHA256, s.Seeds, strings.Join(s.Origins, "\n"), toNanos(s.LoadedAt))
		return err
	})
}

// DropRemovedSeeds deletes the seeds of job that kept says are no longer
// in the seed source, as store.DB.DropRemovedSeeds: in flight ones (maybe
// another worker's) stay.
func (f *Frontier) DropRemovedSeeds(job string, kept func(url string) bool) (int, error) {
	n := 0
	err := f.write("drop removed seeds of "+job, func(ctx context.Context, tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT url FROM frontier
			WHERE job = $1 AND depth = 0 AND hops = 0 AND parent = '' AND state != 'in-flight'`, job)
		if err != nil {
			return err
		}
		var gone []string
		for rows.Next() {
			var u string
			if err := rows.Scan(&u); err != nil {
				rows.Close()
				return err
			}
			if !kept(u) {
				gone = append(gone, u)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `DELETE FROM frontier WHERE job = $1 AND url = ANY($2)`, job, gone)
		n = int(tag.RowsAffected())
		return err
	})
	return n, err
}
