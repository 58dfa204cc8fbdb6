package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// This file maps crawl's Lock role onto the worker registry: on
// PostgreSQL a crawl does not lock the database, it registers as one of
// the job's workers. Acquire registers this DB as a worker, Heartbeat
// says it is alive and renews its leases, Release deregisters it and puts
// back what it still held. Take and Record then lease and settle as that
// worker; Claim, ReleaseHost and Pending play crawl's optional Shared
// role.

// Acquire registers this DB as a worker of h.Job (host name, pid, start).
// Several workers may work one job at once: it never refuses a live one,
// but one DB registers only once. Workers proven dead (Reap) are
// deregistered first, so that what they held is taken at once rather
// than when their leases run out.
func (rg *Registry) Acquire(h frontier.Holder) error {
	if rg.worker.Load() != 0 {
		return errors.New("register worker: this connection already crawls")
	}
	if _, err := rg.Reap(h.Hostname); err != nil {
		return err
	}
	w, err := rg.Register(h)
	if err != nil {
		return err
	}
	if err := rg.listen(w.ID); err != nil {
		_, derr := rg.Deregister(w.ID)
		return errors.Join(err, derr)
	}
	rg.worker.Store(w.ID)
	return nil
}

// Release deregisters the worker; the entries it still held in flight go
// back in the queue for the others.
func (rg *Registry) Release(frontier.Holder) error {
	id := rg.worker.Swap(0)
	if id == 0 {
		return nil
	}
	rg.unlisten()
	err := rg.settleRuns(id)
	_, derr := rg.Deregister(id)
	return errors.Join(err, derr)
}

// Heartbeat says the worker is alive and renews its leases for LeaseTTL.
// A worker that is no longer registered fails with frontier.ErrLockLost:
// its leases may be another's already, so it must stop.
func (rg *Registry) Heartbeat(_ frontier.Holder, _ int64) error {
	id := rg.worker.Load()
	if id == 0 {
		return fmt.Errorf("heartbeat: %w (not registered)", frontier.ErrLockLost)
	}
	err := rg.Beat(id, rg.leaseTTL())
	if errors.Is(err, frontier.ErrNotFound) {
		return fmt.Errorf("heartbeat of worker %d: %w (deregistered)", id, frontier.ErrLockLost)
	}
	return err
}

// Claim claims the host's next request for this worker (see ClaimPace),
// its times on the caller's clock: now plus the durations the store's
// clock says.
// Once Acquire registered the worker, a claim the database grants starts
// a run of the host's requests that the next claims take without a round
// trip (see claimRun).
func (cd *Coordination) Claim(host string, now time.Time, delay time.Duration) (frontier.PaceClaim, error) {
	worker := cd.worker.Load()
	if pc, ok := cd.runs.take(host, now, delay); ok && worker != 0 {
		return pc, nil
	}
	c, err := cd.ClaimPace(host, worker, delay)
	if err != nil {
		cd.runs.end(host)
		return frontier.PaceClaim{}, err
	}
	pc := frontier.PaceClaim{OK: c.OK, Wait: now.Add(c.Wait()), TookOver: c.TookOver, Owned: c.Owner != 0}
	if !c.OK {
		cd.runs.end(host)
		return pc, nil
	}
	pc.Until = now.Add(c.OwnerUntil.Sub(c.At))
	if worker != 0 {
		cd.runs.start(host, now, c)
	}
	return pc, nil
}

// ReleaseHost gives up this worker's ownership of host (see ReleasePace),
// the next slot of its run of claims kept for the next owner.
func (cd *Coordination) ReleaseHost(host string) error {
	return cd.releasePace(host, cd.worker.Load(), cd.runs.end(host)[host])
}

// Pending reports how many entries of the job other workers hold in
// flight under a lease that still runs, and when to look again, on the
// caller's clock: when the first of those leases runs out, FallbackPoll
// from now at the latest. An idle worker waits while it is not zero
// (woken by Wakes when they add URLs): those workers may find new URLs,
// or die and leave theirs.
func (cd *Coordination) Pending(job string, now time.Time) (int, time.Time, error) {
	var (
		n    int
		wait *int64
	)
	err := cd.read("pending entries of "+job, func(ctx context.Context, tx pgx.Tx) error {
		return tx.QueryRow(ctx, `WITH c AS (SELECT `+sqlNow("$3")+` AS now)
			SELECT COUNT(*), MIN(f.lease_until) - MIN(c.now) FROM frontier f, c
			WHERE f.job = $1 AND f.state = 'in-flight' AND f.lease_owner <> $2 AND f.lease_until > c.now`,
			job, cd.worker.Load(), cd.nowArg()).Scan(&n, &wait)
	})
	if err != nil || wait == nil {
		return n, time.Time{}, err
	}
	return n, now.Add(min(time.Duration(*wait), cd.fallbackPoll())), nil
}

// LeaseLost is how many changed entries Record could not write because
// this worker no longer held their lease (see Record); in a crawl that
// keeps its heartbeat it stays 0.
func (cd *Coordination) LeaseLost() int { return int(cd.lost.Load()) }

// leaseTTL is how long a taken entry stays this worker's without a
// heartbeat.
func (c *conn) leaseTTL() time.Duration {
	if c.opts.LeaseTTL > 0 {
		return c.opts.LeaseTTL
	}
	return DefaultLeaseTTL
}

// DefaultLeaseTTL is the lease of a taken entry when Options.LeaseTTL is 0: a
// worker silent for that long (three missed heartbeats) is taken for dead,
// and its entries go to the others.
const DefaultLeaseTTL = frontier.Stale
