package postgres

import (
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// acquire registers db as a worker of job j, as a crawl does.
func acquire(t *testing.T, db *DB, name string) {
	t.Helper()
	if err := db.Acquire(frontier.Holder{PID: 1, Hostname: name, Job: "j"}); err != nil {
		t.Fatalf("Acquire %s: %v", name, err)
	}
}

// A worker that owns a host claims a run of its requests with one
// transaction, keeping the pace; the other worker is refused the host
// meanwhile, and once the owner lets it go, continues after the last
// slot of the owner's run, not from what the database knew before it.
func TestClaimRunOneTransactionKeepsThePace(t *testing.T) {
	t.Parallel()
	u := newSchema(t)
	clock := newClock()
	a, b := mustOpen(t, u, clock), mustOpen(t, u, clock)
	acquire(t, a, "a")
	acquire(t, b, "b")
	const delay = 10 * time.Millisecond
	before, _ := a.Trips()
	for i := range claimRunLength {
		now := clock.Now()
		if c, err := a.Claim("h.test", now, delay); err != nil || !c.OK {
			t.Fatalf("a's claim %d = %+v, %v; want ok", i, c, err)
		}
		if c, err := a.Claim("h.test", now.Add(delay/2), delay); err != nil || c.OK || !c.Wait.Equal(now.Add(delay)) {
			t.Fatalf("a's early claim %d = %+v, %v; want to wait for its pace, until +%s", i, c, err, delay)
		}
		if c, err := b.Claim("h.test", now, delay); err != nil || c.OK || !c.Owned {
			t.Fatalf("b's claim during a's run = %+v, %v; want refused, the host a's", c, err)
		}
		clock.Advance(delay)
	}
	if after, _ := a.Trips(); after-before != 1 {
		t.Errorf("%d claims in a run took %d transactions, want 1", claimRunLength, after-before)
	}
	// The run is over: the next claim goes to the database again.
	if c, err := a.Claim("h.test", clock.Now(), delay); err != nil || !c.OK {
		t.Fatalf("a's claim after its run = %+v, %v; want ok", c, err)
	}
	last := clock.Now()
	if err := a.ReleaseHost("h.test"); err != nil {
		t.Fatal(err)
	}
	for i := range 3 { // a's new run claims in the database first, then here...
		clock.Advance(delay)
		last = clock.Now()
		if c, err := a.Claim("h.test", last, delay); err != nil || !c.OK {
			t.Fatalf("a's claim %d after letting the host go = %+v, %v; want ok", i, c, err)
		}
	}
	if err := a.ReleaseHost("h.test"); err != nil { // ...and its last slot binds b
		t.Fatal(err)
	}
	if c, err := b.Claim("h.test", last, delay); err != nil || c.OK || !c.Wait.Equal(last.Add(delay)) {
		t.Errorf("b's claim as a lets go = %+v, %v; want to wait for a's last slot, until +%s", c, err, delay)
	}
	clock.Advance(delay)
	if c, err := b.Claim("h.test", clock.Now(), delay); err != nil || !c.OK || !c.TookOver {
		t.Errorf("b's claim after a's last slot = %+v, %v; want ok, taken over", c, err)
	}
}

// A worker killed in a run of claims (no release, no deregistration)
// keeps its host no longer than its ownership, which ends after the last
// slot it claimed; its leased entries go to the other worker once their
// lease runs out, every one of them once.
func TestClaimRunOfAKilledWorkerHandedBack(t *testing.T) {
	t.Parallel()
	u := newSchema(t)
	clock := newClock()
	a, b := mustOpen(t, u, clock), mustOpen(t, u, clock)
	seed(t, a, "j", 40, 1)
	acquire(t, a, "a")
	acquire(t, b, "b")
	taken, err := a.Take("j", "h0.test", clock.Now(), 32)
	if err != nil || len(taken) != 32 {
		t.Fatalf("a's Take = %d entries, %v; want 32", len(taken), err)
	}
	var last time.Time
	for range 5 {
		last = clock.Now()
		if c, err := a.Claim("h0.test", last, time.Millisecond); err != nil || !c.OK {
			t.Fatalf("a's claim = %+v, %v", c, err)
		}
		clock.Advance(time.Millisecond)
	}
	// a is killed here. b may not take the host before a's ownership ends...
	if c, err := b.Claim("h0.test", clock.Now(), time.Millisecond); err != nil || c.OK || !c.Owned || c.Wait.Before(last.Add(time.Millisecond)) {
		t.Fatalf("b's claim beside the killed a = %+v, %v; want refused until after a's last slot", c, err)
	}
	// ...nor its leased entries before their lease runs out.
	own, err := b.Take("j", "h0.test", clock.Now(), 64)
	if err != nil || len(own) != 8 {
		t.Fatalf("b's Take beside the killed a = %d entries, %v; want the 8 not leased", len(own), err)
	}
	for i := range own {
		own[i].State = frontier.Done
	}
	if _, err := b.Record("j", nil, own, nil); err != nil || b.LeaseLost() != 0 {
		t.Fatalf("b's Record of its 8 = %v, %d without their lease", err, b.LeaseLost())
	}
	clock.Advance(a.c.leaseTTL() + OwnerGrace)
	if c, err := b.Claim("h0.test", clock.Now(), time.Millisecond); err != nil || !c.OK || !c.TookOver {
		t.Fatalf("b's claim once a's ownership ran out = %+v, %v; want ok, taken over", c, err)
	}
	es, err := b.Take("j", "h0.test", clock.Now(), 64)
	if err != nil || len(es) != len(taken) {
		t.Fatalf("b's Take once a's lease ran out = %d entries, %v; want a's %d", len(es), err, len(taken))
	}
	seen := map[int64]bool{}
	for _, e := range taken {
		seen[e.ID] = true
	}
	for _, e := range es {
		if !seen[e.ID] {
			t.Errorf("b took %s, which a never held", e.URL)
		}
		delete(seen, e.ID)
	}
	if len(seen) != 0 {
		t.Errorf("%d of a's entries never handed back", len(seen))
	}
}

// A worker on this machine killed in a run of claims is reaped at once
// by the next worker to start there, its hosts freed: the host still
// waits for any slot the run may have claimed without the database.
func TestClaimRunOfAReapedWorkerKeepsThePace(t *testing.T) {
	t.Parallel()
	u := newSchema(t)
	clock := newClock()
	a, b := mustOpen(t, u, clock), mustOpen(t, u, clock)
	const deadPID = 1<<22 - 1 // above any pid this machine gives
	if err := a.Acquire(frontier.Holder{PID: deadPID, Hostname: "m", Job: "j"}); err != nil {
		t.Fatal(err)
	}
	const delay = 100 * time.Millisecond
	var last time.Time
	for i := range 5 {
		if i > 0 {
			clock.Advance(delay)
		}
		last = clock.Now()
		if c, err := a.Claim("h.test", last, delay); err != nil || !c.OK {
			t.Fatalf("a's claim = %+v, %v", c, err)
		}
	}
	clock.Advance(delay / 2)
	// a is killed: b starts on the same machine and reaps it.
	if err := b.Acquire(frontier.Holder{PID: 1, Hostname: "m", Job: "j"}); err != nil {
		t.Fatal(err)
	}
	if ws, err := b.Workers(time.Hour); err != nil || len(ws) != 1 {
		t.Fatalf("workers after b started = %+v, %v; want a reaped", ws, err)
	}
	c, err := b.Claim("h.test", clock.Now(), delay)
	if err != nil || c.OK || c.Wait.Before(last.Add(delay)) {
		t.Errorf("b's claim of the reaped a's host = %+v, %v; want refused until after a's last slot %s", c, err, last.Add(delay))
	}
}
