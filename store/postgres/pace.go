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
	// TookOver: OK, and the host was not the caller's until this claim (it
	// was another worker's, released or expired, or nobody's yet): what
	// the caller's pacer knows of it may be stale.
	TookOver bool
	// Owner is the worker that owns the host when another one does, and so
	// refused the claim; 0 otherwise.
	Owner int64
	// OwnerUntil is, when OK, until when the host stays the caller's
	// without another claim.
	OwnerUntil time.Time
}

// Wait is how long the caller should wait before it claims again: zero
// when the claim succeeded.
func (c Claim) Wait() time.Duration {
	if c.OK || !c.Next.After(c.At) {
		return 0
	}
	return c.Next.Sub(c.At)
}

// OwnerGrace is how long past the delay of its last claim a worker keeps
// a host without claiming it again: a worker killed without a word loses
// its hosts that long after its last claim's delay ran out.
const OwnerGrace = 10 * time.Second

// claimSQL claims a host's next request once paceRow found it free: it
// moves next_at to now + delay and makes the caller the host's owner
// until delay + OwnerGrace from now. The delay is the caller's; a claim
// that takes the host over ($6) waits at least the host's stored delay
// when it was saved in the last minute: the limit the previous owner
// learned binds the next from its first request (it reloads the rest
// after the claim). The owner's own claims follow its own pacer, which
// wrote the stored delay. ($1 host, $2 now, $3 delay ns, $4 worker, $5
// grace ns, $6 takeover.)
const claimSQL = `WITH d AS (SELECT GREATEST($3::bigint, COALESCE((SELECT s.delay_ns FROM host_state s
	WHERE $6::boolean AND s.host = $1 AND s.set_at >= $2::bigint - ` + learnedFresh + `), 0)) AS ns)
UPDATE host_pace p SET next_at = $2::bigint + d.ns, claimed_by = $4, owner = $4, owner_until = $2::bigint + d.ns + $5::bigint
FROM d WHERE p.host = $1
RETURNING p.next_at, p.owner_until`

// learnedFresh is how recent (ns) a stored delay must be to bind a claim.
const learnedFresh = `60000000000`

// paceRow is a host's row of host_pace, locked, and the store's now.
type paceRow struct {
	now, next, hold, owner, ownerUntil int64
	reason                             string
}

// ClaimPace claims the host's next request for worker. One worker at a
// time owns a host: the claim succeeds only when the host is the caller's
// or nobody's (never claimed, released, or its owner silent past its
// ownership), its last claim's delay has run and no hold runs; then the
// next claim must wait delay from now and the caller owns the host until
// delay + OwnerGrace from now. Otherwise it says when to try again: when
// the delay or hold ends, or, while another worker owns the host, when
// its ownership runs out, FallbackPoll at the latest (the owner's
// release wakes the waiting workers sooner: see Wakes). Two workers
// claiming at once queue on the row lock. delay is the caller's current
// delay for the host (pace decides it); negative counts as zero.
func (cd *Coordination) ClaimPace(host string, worker int64, delay time.Duration) (Claim, error) {
	if host == "" {
		return Claim{}, errors.New("claim pace: no host")
	}
	var c Claim
	err := cd.write("claim pace of "+host, func(ctx context.Context, tx pgx.Tx) error {
		var r paceRow
		lock := func() error {
			return tx.QueryRow(ctx, `SELECT `+sqlNow("$2")+`, next_at, hold_until, hold_reason, owner, owner_until
				FROM host_pace WHERE host = $1 FOR UPDATE`, host, cd.nowArg()).
				Scan(&r.now, &r.next, &r.hold, &r.reason, &r.owner, &r.ownerUntil)
		}
		// The host's row, made on its first claim (one round trip less
		// on every later one).
		err := lock()
		if errors.Is(err, pgx.ErrNoRows) {
			if _, err = tx.Exec(ctx, `INSERT INTO host_pace (host) VALUES ($1) ON CONFLICT (host) DO NOTHING`, host); err == nil {
				err = lock()
			}
		}
		if err != nil {
			return err
		}
		c = r.refusal(worker, cd.fallbackPoll())
		if c.Next.After(c.At) {
			return nil
		}
		var next, until int64
		took := r.owner != worker
		err = tx.QueryRow(ctx, claimSQL, host, r.now, int64(max(delay, 0)), worker, int64(OwnerGrace), took || r.ownerUntil <= r.now).
			Scan(&next, &until)
		c = Claim{OK: true, At: fromNanos(r.now), Next: fromNanos(next), TookOver: took, OwnerUntil: fromNanos(until)}
		return err
	})
	return c, err
}

// refusal is the answer to worker's claim of the row when the claim must
// wait: Next after At. Next at or before At: the claim may succeed.
func (r paceRow) refusal(worker int64, poll time.Duration) Claim {
	c := Claim{At: fromNanos(r.now)}
	next := r.next
	if r.owner != worker && r.ownerUntil > r.now {
		c.Owner = r.owner
		next = max(next, min(r.ownerUntil, r.now+int64(poll)))
	}
	if r.hold > next {
		next, c.Hold = r.hold, r.reason
	}
	c.Next = fromNanos(next)
	return c
}

// ReleasePace gives up worker's ownership of host, if it has it, so that
// another worker may continue at once; the pace (next_at, holds) stays.
func (cd *Coordination) ReleasePace(host string, worker int64) error {
	return cd.releasePace(host, worker, 0)
}

// releasePace is ReleasePace that also moves the host's next slot to
// next (unix ns, the store's clock) when it is later: the slot a run of
// claims left (see claimRun).
func (cd *Coordination) releasePace(host string, worker, next int64) error {
	return cd.write("release pace of "+host, func(ctx context.Context, tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE host_pace SET owner_until = 0, next_at = GREATEST(next_at, $3)
			WHERE host = $1 AND owner = $2 AND owner_until > 0`, host, worker, next)
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		return notify(ctx, tx, worker)
	})
}

// hold keeps every worker from the host until until (a Retry-After, an
// exhausted quota, a breaker pause), with the reason a refused claim
// gives. A longer hold in force is kept: holds only ever lengthen.
func hold(ctx context.Context, tx pgx.Tx, host string, until time.Time, reason string) error {
	_, err := tx.Exec(ctx, `INSERT INTO host_pace (host, hold_until, hold_reason) VALUES ($1, $2, $3)
		ON CONFLICT (host) DO UPDATE SET hold_until = excluded.hold_until, hold_reason = excluded.hold_reason
		WHERE host_pace.hold_until < excluded.hold_until`, host, toNanos(until), reason)
	if err != nil {
		return fmt.Errorf("hold %s: %w", host, err)
	}
	return nil
}
