package postgres

import (
	"context"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// A worker that owns a host claims a run of its requests at once: one
// claim in the database (ClaimPace) makes the host the worker's until
// its ownership ends, and the next requests of the run, up to
// claimRunLength in all, are claimed here, without a round trip, as long
// as each keeps to the pace and its slot ends well before the ownership:
// whatever happens to the worker (a SIGKILL included), no other worker
// takes the host over before the last slot the run gave has ended. The
// pace the run kept goes to the database when the worker lets the host
// go (ReleaseHost, Release), so that the next owner continues from it.

// claimRunLength is how many requests one database claim of a host
// starts at most: the first, and the rest claimed here.
const claimRunLength = 32

// claimRunDelay is the longest delay of a request claimed here: a host
// paced slower than this sends too few requests for a round trip to
// matter, and is claimed in the database each time.
const claimRunDelay = time.Second

// claimRunMargin is how long before the host's ownership ends the last
// slot of a run must end (half the grace: a run stops well before).
const claimRunMargin = OwnerGrace / 2

// claimRun is a run of claims of one host, on the caller's clock.
type claimRun struct {
	until  time.Time     // the host is the worker's until then (OwnerUntil)
	next   time.Time     // the pace's next slot, as the run's last claim left it
	offset time.Duration // the store's clock less the caller's, at the database claim
	left   int           // claims the run may still make here
	delay  time.Duration // the last claim's delay
}

// claimRuns are a worker's runs of claims, by host.
type claimRuns struct {
	mu sync.Mutex
	m  map[string]*claimRun
}

// take answers a claim of host's next request at now with delay from its
// run, when the worker has one: a refusal until the pace's slot the run
// left comes (the database does not know it), then the claim, as long as
// the run has claims left and the slot ends claimRunMargin before the
// ownership. ok is false when the database must answer.
func (rs *claimRuns) take(host string, now time.Time, delay time.Duration) (c frontier.PaceClaim, ok bool) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	r := rs.m[host]
	delay = max(delay, 0)
	switch {
	case r == nil:
		return c, false
	case now.Before(r.next):
		return frontier.PaceClaim{Wait: r.next}, true
	case r.left <= 0 || delay > claimRunDelay || now.Add(delay+claimRunMargin).After(r.until):
		return c, false
	}
	r.left--
	r.next, r.delay = now.Add(delay), delay
	return frontier.PaceClaim{OK: true, Wait: now, Until: r.until}, true
}

// start begins a run with the database's claim c, made at now.
func (rs *claimRuns) start(host string, now time.Time, c Claim) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.m == nil {
		rs.m = make(map[string]*claimRun)
	}
	rs.m[host] = &claimRun{until: now.Add(c.OwnerUntil.Sub(c.At)), next: now.Add(c.Next.Sub(c.At)),
		offset: c.At.Sub(now), left: claimRunLength - 1, delay: c.Next.Sub(c.At)}
}

// end ends host's run (every run: host ""), and returns the pace's next
// slot each left, on the store's clock (unix ns), by host.
func (rs *claimRuns) end(host string) map[string]int64 {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	next := make(map[string]int64)
	for h, r := range rs.m {
		if host == "" || h == host {
			next[h] = toNanos(r.next.Add(r.offset))
			delete(rs.m, h)
		}
	}
	return next
}

// delay is the delay of host's run (its last claim's); ok is false when
// the worker has no run of the host.
func (rs *claimRuns) delay(host string) (time.Duration, bool) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if r := rs.m[host]; r != nil {
		return r.delay, true
	}
	return 0, false
}

// settleRuns writes the pace's next slot of every run the worker still
// has to the hosts it owns, and ends the runs: the next owner waits for
// the last slot this worker claimed here.
func (c *conn) settleRuns(worker int64) error {
	next := c.runs.end("")
	if len(next) == 0 || worker == 0 {
		return nil
	}
	hosts := make([]string, 0, len(next))
	ats := make([]int64, 0, len(next))
	for h, at := range next {
		hosts, ats = append(hosts, h), append(ats, at)
	}
	return c.write("settle claimed runs", func(ctx context.Context, tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `UPDATE host_pace p SET next_at = GREATEST(p.next_at, u.next)
			FROM unnest($1::text[], $2::bigint[]) AS u(host, next) WHERE p.host = u.host AND p.owner = $3`,
			hosts, ats, worker)
		return err
	})
}
