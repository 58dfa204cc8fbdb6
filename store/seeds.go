package store

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// SeedSource returns what job's frontier last took from its seed file, if
// anything.
func (f *Frontier) SeedSource(job string) (frontier.SeedSource, bool, error) {
	tx, err := f.beginRead("load seed source")
	if err != nil {
		return frontier.SeedSource{}, false, err
	}
	defer tx.Rollback()
	var (
		s           frontier.SeedSource
		mod, loaded int64
		origins     string
	)
	err = tx.QueryRow(`SELECT job, name, size, mod_time, sha256, seeds, origins, loaded_at
		FROM seed_sources WHERE job = ?`, job).
		Scan(&s.Job, &s.Name, &s.Size, &mod, &s.SHA256, &s.Seeds, &origins, &loaded)
	if errors.Is(err, sql.ErrNoRows) {
		return frontier.SeedSource{}, false, nil
	}
	if err != nil {
		return frontier.SeedSource{}, false, fmt.Errorf("load seed source of %s: %w", job, explain(err))
	}
	s.ModTime, s.LoadedAt = fromNanos(mod), fromNanos(loaded)
	if origins != "" {
		s.Origins = strings.Split(origins, "\n")
	}
	return s, true, nil
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
	tx, err := f.beginWrite("store seed source")
	if err != nil {
		return err
	}
	defer tx.Rollback()
	_, err = tx.Exec(`INSERT INTO seed_sources (job, name, size, mod_time, sha256, seeds, origins, loaded_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (job) DO UPDATE SET name = excluded.name, size = excluded.size, mod_time = excluded.mod_time,
			sha256 = excluded.sha256, seeds = excluded.seeds, origins = excluded.origins, loaded_at = excluded.loaded_at`,
		s.Job, s.Name, s.Size, toNanos(s.ModTime), s.SHA256, s.Seeds, strings.Join(s.Origins, "\n"), toNanos(s.LoadedAt))
	if err != nil {
		return fmt.Errorf("store seed source of %s: %w", s.Job, explain(err))
	}
	return commit("store seed source", tx)
}
