package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/pace"
)

// One worker at a time owns a host: a fresh claim takes it, the owner's
// next claims keep it, another worker is refused while the ownership runs
// (told to come back within a second, or when it runs out, and by whom),
// and takes it over, told so, once the owner has been silent for its
// last delay plus OwnerGrace.
func TestClaimPaceOwnership(t *testing.T) {
	t.Parallel()
	u := newSchema(t)
	clock := newClock()
	db := mustOpen(t, u, clock)
	const a, b = 1, 2
	delay := 2 * time.Second
	claim := func(name string, w int64, wantOK, wantTook bool, wantOwner int64, wantWait time.Duration) Claim {
		t.Helper()
		c, err := db.ClaimPace("h.test", w, delay)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if c.OK != wantOK || c.TookOver != wantTook || c.Owner != wantOwner || c.Wait() != wantWait {
			t.Errorf("%s: claim = ok %v, took over %v, owner %d, wait %s; want %v, %v, %d, %s",
				name, c.OK, c.TookOver, c.Owner, c.Wait(), wantOK, wantTook, wantOwner, wantWait)
		}
		return c
	}
	c := claim("a takes the fresh host", a, true, true, 0, 0)
	if want := c.At.Add(delay + OwnerGrace); !c.OwnerUntil.Equal(want) {
		t.Errorf("owner until %s after the claim, want delay + grace (%s)", c.OwnerUntil.Sub(c.At), delay+OwnerGrace)
	}
	claim("b during a's delay waits for a's ownership (a's release wakes it sooner)", b, false, false, a, delay+OwnerGrace)
	clock.Advance(delay)
	claim("b after a's delay is refused: a owns the host, until its ownership ends (its release wakes b sooner)", b, false, false, a, OwnerGrace)
	claim("a keeps its host", a, true, false, 0, 0)
	clock.Advance(delay + OwnerGrace - 500*time.Millisecond)
	claim("b half a second before a's ownership ends", b, false, false, a, 500*time.Millisecond)
	clock.Advance(500 * time.Millisecond)
	claim("b once a was silent past delay + grace takes over", b, true, true, 0, 0)
	clock.Advance(delay)
	claim("a, no longer the owner, is refused until b's ownership ends", a, false, false, b, OwnerGrace)
	claim("b keeps it", b, true, false, 0, 0)
}

// A released host goes to the next worker at once, after the delay of
// the last claim, which release keeps; releasing a host one does not own
// changes nothing; Deregister releases every host of the worker.
func TestReleasePace(t *testing.T) {
	t.Parallel()
	u := newSchema(t)
	clock := newClock()
	db := mustOpen(t, u, clock)
	delay := time.Second
	mustClaim := func(name, host string, w int64, wantOK, wantTook bool) {
		t.Helper()
		c, err := db.ClaimPace(host, w, delay)
		if err != nil || c.OK != wantOK || c.TookOver != wantTook {
			t.Errorf("%s: claim = ok %v, took over %v, %v; want %v, %v", name, c.OK, c.TookOver, err, wantOK, wantTook)
		}
	}
	mustClaim("1 takes x", "x.test", 1, true, true)
	if err := db.ReleasePace("x.test", 2); err != nil {
		t.Fatal(err)
	}
	clock.Advance(delay)
	mustClaim("2 after a release by a non-owner", "x.test", 2, false, false)
	if err := db.ReleasePace("x.test", 1); err != nil {
		t.Fatal(err)
	}
	c, err := db.ClaimPace("x.test", 2, delay)
	if err != nil || !c.OK || !c.TookOver {
		t.Errorf("2 after 1 released x: claim = %+v, %v; want ok, took over", c, err)
	}
	if err := db.ReleasePace("x.test", 2); err != nil {
		t.Fatal(err)
	}
	mustClaim("3 at once after a release waits for the last delay", "x.test", 3, false, false)
	clock.Advance(delay)
	mustClaim("3 after the delay", "x.test", 3, true, true)

	// Deregister gives up every host of the worker, and only its.
	w, err := db.Register(frontier.Holder{PID: 1, Hostname: "m1", Job: "j"})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.ReleasePace("x.test", 3); err != nil {
		t.Fatal(err)
	}
	clock.Advance(delay)
	mustClaim("the worker takes x", "x.test", w.ID, true, true)
	mustClaim("the worker takes y", "y.test", w.ID, true, true)
	mustClaim("4 takes z", "z.test", 4, true, true)
	if _, err := db.Deregister(w.ID); err != nil {
		t.Fatal(err)
	}
	clock.Advance(delay)
	mustClaim("5 takes x at once after the owner ended", "x.test", 5, true, true)
	mustClaim("5 takes y at once after the owner ended", "y.test", 5, true, true)
	mustClaim("5 is refused z, still 4's", "z.test", 5, false, false)
}

// A claim refused by a hold while another worker owns the host waits for
// the longer of the two, with the hold's reason when it is the hold.
func TestClaimPaceOwnerAndHold(t *testing.T) {
	t.Parallel()
	u := newSchema(t)
	clock := newClock()
	db := mustOpen(t, u, clock)
	if c, err := db.ClaimPace("h.test", 1, time.Second); err != nil || !c.OK {
		t.Fatalf("claim = %+v, %v", c, err)
	}
	if err := holdHost(db, "h.test", clock.Now().Add(30*time.Second), "retry-after"); err != nil {
		t.Fatal(err)
	}
	c, err := db.ClaimPace("h.test", 2, time.Second)
	if err != nil || c.OK || c.Wait() != 30*time.Second || c.Hold != "retry-after" || c.Owner != 1 {
		t.Errorf("claim during a hold = %+v (wait %s), %v; want a 30s wait for the hold, owner 1", c, c.Wait(), err)
	}
}

// A database at schema version 5 (before owners) migrates: host_pace
// keeps its rows, every host unowned, and claims own hosts.
func TestMigrateFromVersion5(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openFromVersion(t, 5, `INSERT INTO host_pace (host, next_at, claimed_by, hold_until, hold_reason) VALUES ('a.test', 100, 7, 200, 'retry-after')`)
	var next, by, hold, owner, until int64
	var reason string
	err := db.c.pool.QueryRow(ctx, `SELECT next_at, claimed_by, hold_until, hold_reason, owner, owner_until FROM host_pace WHERE host = 'a.test'`).
		Scan(&next, &by, &hold, &reason, &owner, &until)
	if err != nil || next != 100 || by != 7 || hold != 200 || reason != "retry-after" || owner != 0 || until != 0 {
		t.Errorf("host_pace row after migration = %d %d %d %q owner %d until %d, %v; want 100 7 200 retry-after, unowned",
			next, by, hold, reason, owner, until, err)
	}
	if c, err := db.ClaimPace("a.test", 3, time.Second); err != nil || !c.OK || !c.TookOver {
		t.Errorf("claim after migration = %+v, %v; want ok, took over", c, err)
	}
	if c, err := db.ClaimPace("a.test", 4, 0); err != nil || c.OK || c.Owner != 3 {
		t.Errorf("another worker's claim after migration = %+v, %v; want refused, owner 3", c, err)
	}
}

// A delay stored in the last minute binds a claim that takes the host
// over, from its first request; the owner's own claims follow its own
// delay, since it wrote the stored one.
func TestClaimPaceStoredDelayBindsTakeover(t *testing.T) {
	t.Parallel()
	u := newSchema(t)
	clock := newClock()
	db := mustOpen(t, u, clock)
	if c, err := db.ClaimPace("h.test", 1, time.Second); err != nil || !c.OK {
		t.Fatalf("claim = %+v, %v", c, err)
	}
	if err := db.Save(pace.State{Host: "h.test", Delay: 5 * time.Second, SetAt: clock.Now()}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Second)
	c, err := db.ClaimPace("h.test", 1, time.Second)
	if err != nil || !c.OK || c.Next.Sub(c.At) != time.Second {
		t.Errorf("the owner's claim = %+v, %v; want ok, next after its own 1s", c, err)
	}
	if err := db.ReleasePace("h.test", 1); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Second)
	c, err = db.ClaimPace("h.test", 2, time.Second)
	if err != nil || !c.OK || !c.TookOver || c.Next.Sub(c.At) != 5*time.Second {
		t.Errorf("the taking over claim = %+v, %v; want ok, took over, next after the stored 5s", c, err)
	}
}
