package postgres

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/pace"
	"github.com/polite-crawler/polite/store/internal/column"
)

var _ pace.StateStore = (*DB)(nil)

// --- learned pace state (shared by every worker) ---

// stateColumns are the columns of a pace.State, as the SQLite store has them.
const stateColumns = column.State

// Load returns the stored pace state of host.
func (p *PaceStates) Load(host string) (pace.State, bool, error) {
	var (
		st    pace.State
		found bool
	)
	err := p.read("load pace state "+host, func(ctx context.Context, tx pgx.Tx) error {
		var err error
		st, err = scanState(tx.QueryRow(ctx, `SELECT `+stateColumns+` FROM host_state WHERE host = $1`, host))
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		found = err == nil
		return err
	})
	return st, found, err
}

// Save stores a host's pace state at once (one transaction).
func (p *PaceStates) Save(st pace.State) error {
	return p.SaveAll([]pace.State{st})
}

// SaveAll stores many states in one transaction. A state's HoldUntil also
// holds the host for every worker (see hold), with HoldReason as reason
// (LastSignal for a state that has none).
// A state older in congestion than the stored one (its last congestion
// signal came before the stored one's) does not replace it: of several
// workers, the one that saw the host's latest refusal knows its limit
// best, and the others' periodic saves must not undo what it learned.
func (p *PaceStates) SaveAll(sts []pace.State) error {
	if len(sts) == 0 {
		return nil
	}
	for _, st := range sts {
		if st.Host == "" {
			return errors.New("save pace state: no host")
		}
	}
	return p.write("save pace state", func(ctx context.Context, tx pgx.Tx) error {
		for _, st := range sts {
			_, err := tx.Exec(ctx, `INSERT INTO host_state (`+stateColumns+`)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
				ON CONFLICT (host) DO UPDATE SET `+column.StateUpdate+`
				WHERE excluded.congestion_at >= host_state.congestion_at`,
				column.StateArgs(st)...)
			if err != nil {
				return err
			}
			if !st.HoldUntil.IsZero() {
				reason := string(st.HoldReason)
				if reason == "" {
					reason = st.LastSignal
				}
				if err := hold(ctx, tx, st.Host, st.HoldUntil, reason); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// States returns every stored pace state, sorted by host.
func (p *PaceStates) States() ([]pace.State, error) {
	var sts []pace.State
	err := p.read("list pace states", func(ctx context.Context, tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT `+stateColumns+` FROM host_state ORDER BY host`)
		if err != nil {
			return err
		}
		sts, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (pace.State, error) { return scanState(r) })
		return err
	})
	return sts, err
}

func scanState(s pgx.Row) (pace.State, error) { return column.ScanState(s.Scan) }

// SavePaceGroups records the grouping run paced by (--pace-by) and, for
// each member, the group it was paced in under that grouping, seen now,
// as store.DB.SavePaceGroups.
func (p *PaceStates) SavePaceGroups(run int64, by string, members []frontier.PaceMember) error {
	for _, m := range members {
		if m.Host == "" || m.Group == "" {
			return fmt.Errorf("save pace groups: a member without host or group (%q, %q)", m.Host, m.Group)
		}
	}
	return p.write("save pace groups", func(ctx context.Context, tx pgx.Tx) error {
		if run != 0 {
			if _, err := tx.Exec(ctx, `UPDATE runs SET pace_by = $1 WHERE id = $2`, by, run); err != nil {
				return err
			}
		}
		for _, m := range members {
			_, err := tx.Exec(ctx, `INSERT INTO pace_groups (pace_by, host, grp, seen_at) VALUES ($1, $2, $3, `+sqlNow("$4")+`)
				ON CONFLICT (pace_by, host) DO UPDATE SET grp = excluded.grp, seen_at = excluded.seen_at`,
				cmp.Or(m.By, by), strings.ToLower(m.Host), m.Group, p.nowArg())
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// PaceGroups returns every host stored as a member of a group, by
// grouping, group and host.
func (p *PaceStates) PaceGroups() ([]frontier.PaceMember, error) {
	var ms []frontier.PaceMember
	err := p.read("list pace groups", func(ctx context.Context, tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT pace_by, grp, host, seen_at FROM pace_groups ORDER BY pace_by, grp, host`)
		if err != nil {
			return err
		}
		ms, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (frontier.PaceMember, error) {
			var (
				m    frontier.PaceMember
				seen int64
			)
			err := r.Scan(&m.By, &m.Group, &m.Host, &seen)
			m.SeenAt = fromNanos(seen)
			return m, err
		})
		return err
	})
	return ms, err
}

// Forget drops what was learned and held about the hosts (pace state,
// claims and holds, robots.txt copy) and makes their frontier entries
// that wait (deferred, or queued for later) eligible now, in every job,
// as store.DB.Forget: a group's learned state (and claims) goes with any
// of its hosts. It returns how many hosts were known: had a pace state, a
// shared claim or hold, a robots.txt copy, waiting entries or a group. No
// hosts means all of them. Hosts are matched case-insensitively.
func (p *PaceStates) Forget(hosts ...string) (int, error) {
	n := 0
	err := p.write("forget hosts", func(ctx context.Context, tx pgx.Tx) error {
		var list []string // nil: every host
		if len(hosts) > 0 {
			list = make([]string, len(hosts))
			for i, h := range hosts {
				list[i] = strings.ToLower(h)
			}
		}
		var now int64
		if err := tx.QueryRow(ctx, `SELECT `+sqlNow("$1"), p.nowArg()).Scan(&now); err != nil {
			return err
		}
		err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM (SELECT host FROM host_state UNION SELECT host FROM host_pace
			UNION SELECT host FROM robots UNION SELECT host FROM pace_groups
			UNION SELECT host FROM frontier WHERE `+waiting+`) AS known
			WHERE $1::text[] IS NULL OR host = ANY($1)`, list, now).Scan(&n)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE frontier SET state = 'queued', next_at = $2
			WHERE `+waiting+` AND ($1::text[] IS NULL OR host = ANY($1))`, list, now); err != nil {
			return err
		}
		for _, t := range []string{"host_state", "host_pace"} {
			if _, err := tx.Exec(ctx, `DELETE FROM `+t+` WHERE host IN (SELECT grp FROM pace_groups WHERE host = ANY($1))`, list); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, `DELETE FROM pace_groups WHERE $1::text[] IS NULL OR host = ANY($1) OR grp = ANY($1)`, list); err != nil {
			return err
		}
		for _, t := range []string{"host_state", "host_pace", "robots"} {
			if _, err := tx.Exec(ctx, `DELETE FROM `+t+` WHERE $1::text[] IS NULL OR host = ANY($1)`, list); err != nil {
				return err
			}
		}
		return nil
	})
	return n, err
}

// waiting selects the frontier entries that wait at $2: deferred, or
// queued for later.
const waiting = `(state = 'deferred' OR (state = 'queued' AND next_at > $2))`

// --- robots.txt cache (shared: fetched once for every worker) ---

// Robots returns the stored robots.txt copy of host; the caller judges
// its age by FetchedAt and Expires.
func (rc *RobotsCache) Robots(host string) (frontier.RobotsCopy, bool, error) {
	var (
		c     frontier.RobotsCopy
		found bool
	)
	err := rc.read("load robots.txt copy "+host, func(ctx context.Context, tx pgx.Tx) error {
		var fetched, until, tdmAt, tdmExpiry int64
		err := tx.QueryRow(ctx, `SELECT host, status, body, fetched_at, expires_at,
			tdm_status, tdm_body, tdm_fetched_at, tdm_expires_at FROM robots WHERE host = $1`, host).
			Scan(&c.Host, &c.Status, &c.Body, &fetched, &until, &c.TDMRep.Status, &c.TDMRep.Body, &tdmAt, &tdmExpiry)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		c.FetchedAt, c.Expires = fromNanos(fetched), fromNanos(until)
		c.TDMRep.FetchedAt, c.TDMRep.Expires = fromNanos(tdmAt), fromNanos(tdmExpiry)
		found = err == nil
		return err
	})
	if c.TDMRep.FetchedAt.IsZero() {
		c.TDMRep = frontier.TDMRepCopy{}
	}
	return c, found, err
}

// PutRobots stores robots.txt copies, each replacing its host's old one,
// in one transaction.
func (rc *RobotsCache) PutRobots(cs ...frontier.RobotsCopy) error {
	if err := frontier.CheckRobotsCopies(cs); err != nil {
		return err
	}
	if len(cs) == 0 {
		return nil
	}
	return rc.write("store robots.txt copies", func(ctx context.Context, tx pgx.Tx) error {
		for _, c := range cs {
			body, tdm := c.Body, c.TDMRep.Body
			if body == nil {
				body = []byte{}
			}
			if tdm == nil {
				tdm = []byte{}
			}
			if _, err := tx.Exec(ctx, `INSERT INTO robots (host, status, body, fetched_at, expires_at,
					tdm_status, tdm_body, tdm_fetched_at, tdm_expires_at)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
				ON CONFLICT (host) DO UPDATE SET status = excluded.status, body = excluded.body,
					fetched_at = excluded.fetched_at, expires_at = excluded.expires_at,
					tdm_status = excluded.tdm_status, tdm_body = excluded.tdm_body,
					tdm_fetched_at = excluded.tdm_fetched_at, tdm_expires_at = excluded.tdm_expires_at`,
				c.Host, c.Status, body, toNanos(c.FetchedAt), toNanos(c.Expires),
				c.TDMRep.Status, tdm, toNanos(c.TDMRep.FetchedAt), toNanos(c.TDMRep.Expires)); err != nil {
				return fmt.Errorf("%s: %w", c.Host, err)
			}
		}
		return nil
	})
}

// RobotsCopies returns every stored copy without bodies (for status),
// sorted by host.
func (rc *RobotsCache) RobotsCopies() ([]frontier.RobotsCopy, error) {
	var cs []frontier.RobotsCopy
	err := rc.read("list robots.txt copies", func(ctx context.Context, tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT host, status, fetched_at, expires_at FROM robots ORDER BY host`)
		if err != nil {
			return err
		}
		cs, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (frontier.RobotsCopy, error) {
			var (
				c              frontier.RobotsCopy
				fetched, until int64
			)
			err := r.Scan(&c.Host, &c.Status, &fetched, &until)
			c.FetchedAt, c.Expires = fromNanos(fetched), fromNanos(until)
			return c, err
		})
		return err
	})
	return cs, err
}
