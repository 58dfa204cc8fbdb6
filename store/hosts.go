package store

import (
	"cmp"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/pace"
	"github.com/polite-crawler/polite/store/internal/column"
)

// --- pace state ---

const stateColumns = column.State

// Load returns the stored pace state of host.
func (p *PaceStates) Load(host string) (pace.State, bool, error) {
	st, err := scanState(p.reads[loadStateSQL].QueryRow(host))
	if errors.Is(err, sql.ErrNoRows) {
		return pace.State{}, false, nil
	}
	if err != nil {
		return pace.State{}, false, fmt.Errorf("load pace state %s: %w", host, explain(err))
	}
	return st, true, nil
}

// Save stores a host's pace state at once (one transaction).
func (p *PaceStates) Save(st pace.State) error {
	return p.SaveAll([]pace.State{st})
}

// SaveAll stores many states in one transaction.
func (p *PaceStates) SaveAll(sts []pace.State) error {
	if len(sts) == 0 {
		return nil
	}
	tx, err := p.beginWrite("save pace state")
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := saveStates(tx, sts); err != nil {
		return err
	}
	return commit("save pace state", tx)
}

func saveStates(tx *sql.Tx, sts []pace.State) error {
	stmt, err := tx.Prepare(`INSERT INTO host_state (` + stateColumns + `)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (host) DO UPDATE SET ` + column.StateUpdate)
	if err != nil {
		return fmt.Errorf("save pace state: %w", explain(err))
	}
	defer stmt.Close()
	for _, st := range sts {
		if st.Host == "" {
			return errors.New("save pace state: no host")
		}
		_, err := stmt.Exec(column.StateArgs(st)...)
		if err != nil {
			return fmt.Errorf("save pace state %s: %w", st.Host, explain(err))
		}
	}
	return nil
}

// States returns every stored pace state, sorted by host.
func (p *PaceStates) States() ([]pace.State, error) {
	tx, err := p.beginRead("list pace states")
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	rows, err := tx.Query(`SELECT ` + stateColumns + ` FROM host_state ORDER BY host`)
	if err != nil {
		return nil, fmt.Errorf("list pace states: %w", explain(err))
	}
	defer rows.Close()
	var sts []pace.State
	for rows.Next() {
		st, err := scanState(rows)
		if err != nil {
			return nil, fmt.Errorf("list pace states: %w", err)
		}
		sts = append(sts, st)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list pace states: %w", explain(err))
	}
	return sts, nil
}

// SavePaceGroups records the grouping run paced by (--pace-by) and, for
// each member, the group it was paced in under that grouping, seen now
// (a host's earlier group under it is replaced). run 0 records members
// only.
func (p *PaceStates) SavePaceGroups(run int64, by string, members []frontier.PaceMember) error {
	tx, err := p.beginWrite("save pace groups")
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if run != 0 {
		if _, err := tx.Exec(`UPDATE runs SET pace_by = ? WHERE id = ?`, by, run); err != nil {
			return fmt.Errorf("save pace groups: %w", explain(err))
		}
	}
	now := toNanos(p.now())
	for _, m := range members {
		if m.Host == "" || m.Group == "" {
			return fmt.Errorf("save pace groups: a member without host or group (%q, %q)", m.Host, m.Group)
		}
		_, err := tx.Exec(`INSERT INTO pace_groups (pace_by, host, grp, seen_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (pace_by, host) DO UPDATE SET grp = excluded.grp, seen_at = excluded.seen_at`,
			cmp.Or(m.By, by), strings.ToLower(m.Host), m.Group, now)
		if err != nil {
			return fmt.Errorf("save pace groups %s: %w", m.Group, explain(err))
		}
	}
	return commit("save pace groups", tx)
}

// PaceGroups returns every host stored as a member of a group, by
// grouping, group and host.
func (p *PaceStates) PaceGroups() ([]frontier.PaceMember, error) {
	tx, err := p.beginRead("list pace groups")
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	rows, err := tx.Query(`SELECT pace_by, grp, host, seen_at FROM pace_groups ORDER BY pace_by, grp, host`)
	if err != nil {
		return nil, fmt.Errorf("list pace groups: %w", explain(err))
	}
	defer rows.Close()
	var ms []frontier.PaceMember
	for rows.Next() {
		var (
			m    frontier.PaceMember
			seen int64
		)
		if err := rows.Scan(&m.By, &m.Group, &m.Host, &seen); err != nil {
			return nil, fmt.Errorf("list pace groups: %w", err)
		}
		m.SeenAt = fromNanos(seen)
		ms = append(ms, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list pace groups: %w", explain(err))
	}
	return ms, nil
}

// scanner is a *sql.Row or *sql.Rows.
type scanner interface{ Scan(dest ...any) error }

func scanState(s scanner) (pace.State, error) { return column.ScanState(s.Scan) }

// Forget drops what was learned and held about the hosts (pace state with
// its hold, robots.txt copy) and makes their frontier entries that wait
// (deferred, or queued for later) eligible now, in every job. A host paced
// in a group (--pace-by domain or ip) loses its membership, and the
// group's learned state is dropped with it: the group learned it from all
// its names. A group's key ("ip:203.0.113.5") may be given too. It returns
// how many hosts were known: had a pace state, a robots.txt copy, waiting
// entries or a group. No hosts means all of them. Hosts are matched
// case-insensitively.
func (p *PaceStates) Forget(hosts ...string) (int, error) {
	tx, err := p.beginWrite("forget hosts")
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	n, err := forget(tx, hosts, toNanos(p.now()))
	if err != nil {
		return 0, err
	}
	return n, commit("forget hosts", tx)
}

// releaseWaiting makes a host's waiting frontier entries eligible at now.
const releaseWaiting = `UPDATE frontier SET state = 'queued', next_at = ?1
	WHERE (state = 'deferred' OR (state = 'queued' AND next_at > ?1))`

func forget(tx *sql.Tx, hosts []string, now int64) (int, error) {
	if len(hosts) == 0 {
		var n int
		err := tx.QueryRow(`SELECT COUNT(*) FROM (SELECT host FROM host_state UNION SELECT host FROM robots
			UNION SELECT host FROM pace_groups
			UNION SELECT host FROM frontier WHERE state = 'deferred' OR (state = 'queued' AND next_at > ?)) AS known`, now).Scan(&n)
		if err != nil {
			return 0, fmt.Errorf("forget hosts: %w", explain(err))
		}
		if _, err := tx.Exec(releaseWaiting, now); err != nil {
			return 0, fmt.Errorf("forget hosts: %w", explain(err))
		}
		for _, q := range []string{`DELETE FROM host_state`, `DELETE FROM robots`, `DELETE FROM pace_groups`} {
			if _, err := tx.Exec(q); err != nil {
				return 0, fmt.Errorf("forget hosts: %w", explain(err))
			}
		}
		return n, nil
	}
	seen := make(map[string]bool, len(hosts))
	n := 0
	for _, h := range hosts {
		h = strings.ToLower(h)
		if seen[h] {
			continue
		}
		seen[h] = true
		known := false
		for _, q := range []string{`DELETE FROM host_state WHERE host IN (SELECT grp FROM pace_groups WHERE host = ?2)`,
			`DELETE FROM pace_groups WHERE host = ?2 OR grp = ?2`, `DELETE FROM host_state WHERE host = ?2`,
			`DELETE FROM robots WHERE host = ?2`, releaseWaiting + ` AND host = ?2`} {
			res, err := tx.Exec(q, now, h)
			if err != nil {
				return 0, fmt.Errorf("forget %s: %w", h, explain(err))
			}
			if k, _ := res.RowsAffected(); k > 0 {
				known = true
			}
		}
		if known {
			n++
		}
	}
	return n, nil
}

// --- robots.txt cache ---

// Robots returns the stored robots.txt copy of host.
func (rc *RobotsCache) Robots(host string) (frontier.RobotsCopy, bool, error) {
	var (
		c                                frontier.RobotsCopy
		fetched, until, tdmAt, tdmExpiry int64
	)
	err := rc.reads[loadRobotsSQL].QueryRow(host).
		Scan(&c.Host, &c.Status, &c.Body, &fetched, &until, &c.TDMRep.Status, &c.TDMRep.Body, &tdmAt, &tdmExpiry)
	if errors.Is(err, sql.ErrNoRows) {
		return frontier.RobotsCopy{}, false, nil
	}
	if err != nil {
		return frontier.RobotsCopy{}, false, fmt.Errorf("load robots.txt copy %s: %w", host, explain(err))
	}
	c.FetchedAt, c.Expires = fromNanos(fetched), fromNanos(until)
	c.TDMRep.FetchedAt, c.TDMRep.Expires = fromNanos(tdmAt), fromNanos(tdmExpiry)
	if c.TDMRep.FetchedAt.IsZero() {
		c.TDMRep = frontier.TDMRepCopy{}
	}
	return c, true, nil
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
	tx, err := rc.beginWrite("store robots.txt copy")
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, c := range cs {
		if err := rc.putRobots(tx, c); err != nil {
			return err
		}
	}
	return commit("store robots.txt copy", tx)
}

func (rc *RobotsCache) putRobots(tx *sql.Tx, c frontier.RobotsCopy) error {
	body, tdm := c.Body, c.TDMRep.Body
	if body == nil {
		body = []byte{}
	}
	if tdm == nil {
		tdm = []byte{}
	}
	put, err := rc.stmt(tx, putRobotsSQL)
	if err != nil {
		return fmt.Errorf("store robots.txt copy %s: %w", c.Host, err)
	}
	_, err = put.Exec(c.Host, c.Status, body, toNanos(c.FetchedAt), toNanos(c.Expires),
		c.TDMRep.Status, tdm, toNanos(c.TDMRep.FetchedAt), toNanos(c.TDMRep.Expires))
	if err != nil {
		return fmt.Errorf("store robots.txt copy %s: %w", c.Host, explain(err))
	}
	return nil
}

// RobotsCopies returns every stored copy without bodies (for status),
// sorted by host.
func (rc *RobotsCache) RobotsCopies() ([]frontier.RobotsCopy, error) {
	tx, err := rc.beginRead("list robots.txt copies")
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	rows, err := tx.Query(`SELECT host, status, fetched_at, expires_at FROM robots ORDER BY host`)
	if err != nil {
		return nil, fmt.Errorf("list robots.txt copies: %w", explain(err))
	}
	defer rows.Close()
	var cs []frontier.RobotsCopy
	for rows.Next() {
		var (
			c              frontier.RobotsCopy
			fetched, until int64
		)
		if err := rows.Scan(&c.Host, &c.Status, &fetched, &until); err != nil {
			return nil, fmt.Errorf("list robots.txt copies: %w", err)
		}
		c.FetchedAt, c.Expires = fromNanos(fetched), fromNanos(until)
		cs = append(cs, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list robots.txt copies: %w", explain(err))
	}
	return cs, nil
}
