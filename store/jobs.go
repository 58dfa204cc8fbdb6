package store

import (
	"database/sql"
	"errors"
	"fmt"
	"sort"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// NameJob returns job's display name: the one it has, or else want made
// unique in the database (want, want-2, want-3...) and kept for it.
func (l *RunLog) NameJob(job, want string) (string, error) {
	tx, err := l.beginWrite("name job")
	if err != nil {
		return "", err
	}
	defer tx.Rollback()
	var name string
	err = tx.QueryRow(`SELECT name FROM jobs WHERE job = ?`, job).Scan(&name)
	if err == nil {
		return name, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("name job %s: %w", job, explain(err))
	}
	for i := 1; ; i++ {
		name = frontier.JobNameTry(want, i)
		var taken int
		err := tx.QueryRow(`SELECT COUNT(*) FROM jobs WHERE name = ?`, name).Scan(&taken)
		if err != nil {
			return "", fmt.Errorf("name job %s: %w", job, explain(err))
		}
		if taken == 0 {
			break
		}
	}
	if _, err := tx.Exec(`INSERT INTO jobs (job, name) VALUES (?, ?)`, job, name); err != nil {
		return "", fmt.Errorf("name job %s: %w", job, explain(err))
	}
	return name, commit("name job", tx)
}

// Jobs returns every job the database knows of, by key: those that ran or
// have a frontier, with their display names.
func (l *RunLog) Jobs() ([]frontier.Job, error) {
	tx, err := l.beginRead("list jobs")
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	rows, err := tx.Query(`SELECT k.job, COALESCE(j.name, '') FROM
		(SELECT job FROM runs UNION SELECT job FROM jobs UNION SELECT job FROM seed_sources) k
		LEFT JOIN jobs j ON j.job = k.job`)
	if err != nil {
		return nil, fmt.Errorf("list jobs: %w", explain(err))
	}
	defer rows.Close()
	var js []frontier.Job
	for rows.Next() {
		var j frontier.Job
		if err := rows.Scan(&j.Key, &j.Name); err != nil {
			return nil, fmt.Errorf("list jobs: %w", err)
		}
		js = append(js, j)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list jobs: %w", explain(err))
	}
	sort.Slice(js, func(a, b int) bool { return js[a].Key < js[b].Key })
	return js, nil
}
