package store

import (
	"database/sql"
	"fmt"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// Exclusions lists the operator's exclusion rules, in the order of their
// text.
func (x *ExclusionList) Exclusions() ([]frontier.Exclusion, error) {
	rows, err := x.r.Query(`SELECT rule, reason, added_at FROM exclusions ORDER BY rule`)
	if err != nil {
		return nil, fmt.Errorf("list exclusions: %w", explain(err))
	}
	defer rows.Close()
	var xs []frontier.Exclusion
	for rows.Next() {
		var (
			e  frontier.Exclusion
			at int64
		)
		if err := rows.Scan(&e.Rule, &e.Reason, &at); err != nil {
			return nil, fmt.Errorf("list exclusions: %w", err)
		}
		e.AddedAt = fromNanos(at)
		xs = append(xs, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list exclusions: %w", explain(err))
	}
	return xs, nil
}

// ExclusionsVersion is the exclusion list's version, which every change
// to it moves: one small read, which a running crawl makes once per
// dispatch pass.
func (x *ExclusionList) ExclusionsVersion() (int64, error) {
	var v int64
	if err := x.reads[exclusionsVersionSQL].QueryRow().Scan(&v); err != nil {
		return 0, fmt.Errorf("read exclusions version: %w", explain(err))
	}
	return v, nil
}

// AddExclusion adds a rule (in normal form) to the exclusion list, at
// e.AddedAt or now; it reports false when the list has the rule already,
// whose reason e's then replaces if it has one. It needs no crawl lock: a
// running crawl sees the change at its next dispatch pass.
func (x *ExclusionList) AddExclusion(e frontier.Exclusion) (bool, error) {
	if e.Rule == "" {
		return false, fmt.Errorf("add exclusion: no rule")
	}
	if e.AddedAt.IsZero() {
		e.AddedAt = x.now()
	}
	tx, err := x.beginWrite("add exclusion")
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	n, err := changed(tx.Exec(`INSERT INTO exclusions (rule, reason, added_at) VALUES (?, ?, ?) ON CONFLICT (rule) DO NOTHING`,
		e.Rule, e.Reason, toNanos(e.AddedAt)))
	if err != nil {
		return false, fmt.Errorf("add exclusion %s: %w", e.Rule, explain(err))
	}
	added := n > 0
	if added {
		err = bumpExclusions(tx)
	} else if e.Reason != "" {
		_, err = tx.Exec(`UPDATE exclusions SET reason = ? WHERE rule = ?`, e.Reason, e.Rule)
	}
	if err != nil {
		return false, fmt.Errorf("add exclusion %s: %w", e.Rule, explain(err))
	}
	return added, commit("add exclusion "+e.Rule, tx)
}

// RemoveExclusion removes a rule from the exclusion list; it reports
// false when the list has no such rule.
func (x *ExclusionList) RemoveExclusion(rule string) (bool, error) {
	tx, err := x.beginWrite("remove exclusion")
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	n, err := changed(tx.Exec(`DELETE FROM exclusions WHERE rule = ?`, rule))
	if err != nil {
		return false, fmt.Errorf("remove exclusion %s: %w", rule, explain(err))
	}
	if n == 0 {
		return false, nil
	}
	if err := bumpExclusions(tx); err != nil {
		return false, fmt.Errorf("remove exclusion %s: %w", rule, explain(err))
	}
	return true, commit("remove exclusion "+rule, tx)
}

// bumpExclusions moves the exclusion list's version.
func bumpExclusions(tx *sql.Tx) error {
	_, err := tx.Exec(`UPDATE exclusions_version SET version = version + 1 WHERE id = 1`)
	return err
}

// changed is how many rows a statement changed.
func changed(res sql.Result, err error) (int64, error) {
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
