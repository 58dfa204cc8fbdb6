package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Claim is the answer of ClaimPace.
type Claim struct {
	OK   bool      // the caller may send its request to the host now
	At   time.Time // now, by the store's clock
	Next time.Time // OK: when the next claim may succeed (At + delay); else when to try again
	// Hold is the reason of the hold that keeps the host, when a hold (and
	// not the last claim's delay) is what the caller waits for.
	Hold string
}

// Wait is how long the caller should wait before it claims again: zero
// when the claim succeeded.
func (c Claim) Wait() time.Duration {
	if c.OK || !c.Next.After(c.At) {
		return 0
	}
	return c.Next.Sub(c.At)
}

// claimSQL claims a host's next request in one statement: it succeeds only
// when neither the last claim's delay nor a hold is still running, and
// then moves next_at to now + delay. Two workers claiming at once queue on
// the row lock; the second sees the first one's next_at and fails.
// The delay is the caller's, or the host's stored delay when another
// worker raised it in the last minute: a limit one worker learned binds
// all. ($1 host, $2 now or NULL for the server's clock, $3 delay ns, $4
// worker.)
var claimSQL = `WITH c AS (SELECT ` + sqlNow("$2") + ` AS now)
UPDATE host_pace p SET next_at = c.now + GREATEST($3::bigint, COALESCE((SELECT s.delay_ns FROM host_state s
	WHERE s.host = $1 AND s.set_at >= c.now - ` + learnedFresh + `), 0)), claimed_by = $4
FROM c
WHERE p.host = $1 AND p.next_at <= c.now AND p.hold_until <= c.now
RETURNING c.now, p.next_at`

// learnedFresh is how recent (ns) a stored delay must be to bind a claim.
const learnedFresh = `60000000000`

// ClaimPace claims the host's next request for worker: when the host's
// last claim was at least that claim's delay ago and no hold runs, the
// claim succeeds and the next one must wait delay from now; otherwise it
// says how long to wait. N workers claiming one host thus never send two
// requests closer than the delay, whatever each one's pacer thinks. delay
// is the caller's current delay for the host (pace decides it); negative
// counts as zero.
func (db *DB) ClaimPace(host string, worker int64, delay time.Duration) (Claim, error) {
	if host == "" {
		return Claim{}, errors.New("claim pace: no host")
	}
	var c Claim
	err := db.write("claim pace of "+host, func(ctx context.Context, tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO host_pace (host) VALUES ($1) ON CONFLICT (host) DO NOTHING`, host); err != nil {
			return err
		}
		var now, next int64
		err := tx.QueryRow(ctx, claimSQL, host, db.nowArg(), int64(max(delay, 0)), worker).Scan(&now, &next)
		if err == nil {
			c = Claim{OK: true, At: fromNanos(now), Next: fromNanos(next)}
			return nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		var hold int64
		err = tx.QueryRow(ctx, `SELECT `+sqlNow("$2")+`, next_at, hold_until, hold_reason FROM host_pace WHERE host = $1`,
			host, db.nowArg()).Scan(&now, &next, &hold, &c.Hold)
		if err != nil {
			return err
		}
		if hold > next {
			next = hold
		} else {
			c.Hold = ""
		}
		c.At, c.Next = fromNanos(now), fromNanos(next)
		return nil
	})
	return c, err
}

// Hold keeps every worker from the host until until (a Retry-After, an
// exhausted quota, a breaker pause), with the reason status shows. A
// longer hold in force is kept: holds only ever lengthen.
func (db *DB) Hold(host string, until time.Time, reason string) error {
	if host == "" {
		return errors.New("hold host: no host")
	}
	return db.write("hold "+host, func(ctx context.Context, tx pgx.Tx) error {
		return hold(ctx, tx, host, until, reason)
	})
}

func hold(ctx context.Context, tx pgx.Tx, host string, until time.Time, reason string) error {
	_, err := tx.Exec(ctx, `INSERT INTO host_pace (host, hold_until, hold_reason) VALUES ($1, $2, $3)
		ON CONFLICT (host) DO UPDATE SET hold_until = excluded.hold_until, hold_reason = excluded.hold_reason
		WHERE host_pace.hold_until < excluded.hold_until`, host, toNanos(until), reason)
	if err != nil {
		return fmt.Errorf("hold %s: %w", host, err)
	}
	return nil
}

// HostHold is a hold in force.
type HostHold struct {
	Host   string
	Until  time.Time
	Reason string
}

// Holds returns the holds still in force, by the store's clock, sorted by
// host (for status).
func (db *DB) Holds() ([]HostHold, error) {
	var hs []HostHold
	err := db.read("list holds", func(ctx context.Context, tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT host, hold_until, hold_reason FROM host_pace
			WHERE hold_until > `+sqlNow("$1")+` ORDER BY host`, db.nowArg())
		if err != nil {
			return err
		}
		hs, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (HostHold, error) {
			var (
				h     HostHold
				until int64
			)
			err := r.Scan(&h.Host, &until, &h.Reason)
			h.Until = fromNanos(until)
			return h, err
		})
		return err
	})
	return hs, err
}
