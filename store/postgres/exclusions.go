package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// Exclusions lists the operator's exclusion rules, in the order of their
// text, as store.DB.Exclusions.
func (x *ExclusionList) Exclusions() ([]frontier.Exclusion, error) {
	var xs []frontier.Exclusion
	err := x.read("list exclusions", func(ctx context.Context, tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT rule, reason, added_at FROM exclusions ORDER BY rule COLLATE "C"`)
		if err != nil {
			return err
		}
		xs, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (frontier.Exclusion, error) {
			var (
				e  frontier.Exclusion
				at int64
			)
			err := row.Scan(&e.Rule, &e.Reason, &at)
			e.AddedAt = fromNanos(at)
			return e, err
		})
		return err
	})
	return xs, err
}

// ExclusionsVersion is the exclusion list's version, which every change
// to it moves: one round trip outside a transaction, which a running
// worker makes once per dispatch pass.
func (x *ExclusionList) ExclusionsVersion() (int64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), x.timeout())
	defer cancel()
	var v int64
	if err := x.pool.QueryRow(ctx, `SELECT version FROM exclusions_version`).Scan(&v); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return 0, fmt.Errorf("read exclusions version: PostgreSQL %s did not answer within %s: %w", x.server, x.timeout(), err)
		}
		return 0, fmt.Errorf("read exclusions version: %w", err)
	}
	return v, nil
}

// AddExclusion adds a rule (in normal form) to the exclusion list, at
// e.AddedAt or the store's now, as store.DB.AddExclusion: false when the
// list has it already (its reason then replaced by e's, if e has one).
// Live workers see the change at their next dispatch pass, and a
// sleeping one is woken (see Wakes).
func (x *ExclusionList) AddExclusion(e frontier.Exclusion) (bool, error) {
	if e.Rule == "" {
		return false, errors.New("add exclusion: no rule")
	}
	at := x.nowArg()
	if !e.AddedAt.IsZero() {
		at = toNanos(e.AddedAt)
	}
	added := false
	err := x.write("add exclusion "+e.Rule, func(ctx context.Context, tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO exclusions (rule, reason, added_at) VALUES ($1, $2, `+sqlNow("$3")+`)
			ON CONFLICT (rule) DO NOTHING`, e.Rule, e.Reason, at)
		if err != nil {
			return err
		}
		if added = tag.RowsAffected() > 0; added {
			if _, err = tx.Exec(ctx, `UPDATE exclusions_version SET version = version + 1`); err == nil {
				err = notify(ctx, tx, x.worker.Load()) // sleeping workers stop sending to it now
			}
		} else if e.Reason != "" {
			_, err = tx.Exec(ctx, `UPDATE exclusions SET reason = $1 WHERE rule = $2`, e.Reason, e.Rule)
		}
		return err
	})
	return added, err
}

// RemoveExclusion removes a rule from the exclusion list; false when the
// list has no such rule.
func (x *ExclusionList) RemoveExclusion(rule string) (bool, error) {
	removed := false
	err := x.write("remove exclusion "+rule, func(ctx context.Context, tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM exclusions WHERE rule = $1`, rule)
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		removed = true
		_, err = tx.Exec(ctx, `UPDATE exclusions_version SET version = version + 1`)
		return err
	})
	return removed, err
}
