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

// DropRemovedSeeds deletes the entries of job that are seeds (depth 0,
// no parent, no redirect hop) and that kept says are no longer in the
// seed source, except those in flight. What they led to stays. It
// returns how many it deleted.
func (f *Frontier) DropRemovedSeeds(job string, kept func(url string) bool) (int, error) {
	tx, err := f.beginWrite("drop removed seeds")
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	rows, err := tx.Query(`SELECT url FROM frontier
		WHERE job = ? AND depth = 0 AND hops = 0 AND parent = '' AND state != ?`, job, frontier.InFlight)
	if err != nil {
		return 0, fmt.Errorf("drop removed seeds of %s: %w", job, explain(err))
	}
	var gone []string
	for rows.Next() {
		var u string
		if err := rows.Scan(&u); err != nil {
			rows.Close()
			return 0, fmt.Errorf("drop removed seeds of %s: %w", job, err)
		}
		if !kept(u) {
			gone = append(gone, u)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("drop removed seeds of %s: %w", job, explain(err))
	}
	for _, u := range gone {
		if _, err := tx.Exec(`DELETE FROM frontier WHERE job = ? AND url = ?`, job, u); err != nil {
			return 0, fmt.Errorf("drop removed seed %s: %w", u, explain(err))
		}
	}
	return len(gone), commit("drop removed seeds", tx)
}
