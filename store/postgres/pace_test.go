package postgres

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/clock"
	"github.com/polite-crawler/polite/pace"
)

// Workers on their own connections race for one host's claim at every
// tick of a shared clock: at most one wins per tick, and no two claims
// are closer than the delay.
func TestClaimPaceConcurrentWorkersKeepTheDelay(t *testing.T) {
	t.Parallel()
	u := newSchema(t)
	clock := newClock()
	const workers = 6
	delay := 1000 * time.Millisecond
	dbs := make([]*DB, workers)
	for i := range dbs {
		dbs[i] = mustOpen(t, u, clock)
	}
	var claims []time.Time
	for tick := range 40 {
		var (
			mu  sync.Mutex
			won []int
			wg  sync.WaitGroup
		)
		for w, db := range dbs {
			wg.Go(func() {
				c, err := db.ClaimPace("api.test", int64(w+1), delay)
				if err != nil {
					t.Errorf("tick %d worker %d: %v", tick, w, err)
					return
				}
				// Refused, a worker waits for the owner's delay or, if
				// another owns the host, its ownership (its release wakes it).
				if most := delay + OwnerGrace; !c.OK && (c.Wait() <= 0 || c.Wait() > most) {
					t.Errorf("tick %d worker %d: refused with wait %s, want within (0, %s]", tick, w, c.Wait(), most)
				}
				if c.OK {
					mu.Lock()
					won = append(won, w)
					claims = append(claims, c.At)
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if len(won) > 1 {
			t.Errorf("tick %d: workers %v all claimed the host", tick, won)
		}
		clock.Advance(300 * time.Millisecond) // 0.3s ticks: a claim every 4th tick
	}
	slices.SortFunc(claims, func(a, b time.Time) int { return a.Compare(b) })
	for i := 1; i < len(claims); i++ {
		if gap := claims[i].Sub(claims[i-1]); gap < delay {
			t.Errorf("claims %d and %d %s apart, want at least %s", i-1, i, gap, delay)
		}
	}
	// Ticks at 0, 0.3, ..., 11.7 s: a claim at 0, 1.2, 2.4, ... 10.8.
	if want := 10; len(claims) != want {
		t.Errorf("%d claims in 40 ticks, want %d", len(claims), want)
	}
}

// Workers on their own connections claim one host until each has had its
// share, giving it up after each claim so that every claim contends
// again; a refused worker waits on the shared fake clock as long as the
// claim says (at most the delay). The clock moves only once every worker
// still claiming waits on it: the claims' own timestamps are never closer
// than the delay.
func TestClaimPaceWorkersTakeTurns(t *testing.T) {
	t.Parallel()
	u := newSchema(t)
	clk := newClock()
	const workers, each = 5, 3
	delay := 4 * time.Millisecond
	var (
		mu     sync.Mutex
		claims []time.Time
		wg     sync.WaitGroup
		live   = workers
	)
	// The workers still claiming are the clock's requests in flight: Auto
	// moves it only while each of them is held on it (clock.Sleep).
	clk.InFlight(live)
	t.Cleanup(clk.Auto())
	for w := range workers {
		db := mustOpen(t, u, clk)
		wg.Go(func() {
			defer func() {
				mu.Lock()
				live--
				clk.InFlight(live)
				mu.Unlock()
			}()
			for got := 0; got < each; {
				c, err := db.ClaimPace("api.test", int64(w+1), delay)
				if err != nil {
					t.Errorf("worker %d: %v", w, err)
					return
				}
				if !c.OK {
					// Refused by the pace or by another's ownership,
					// which the owner gives up at once (below).
					clock.Sleep(context.Background(), clk, min(c.Wait(), delay))
					continue
				}
				got++
				mu.Lock()
				claims = append(claims, c.At)
				mu.Unlock()
				// Give the host up, so that every claim contends again
				// (an owner keeps it for OwnerGrace otherwise).
				if err := db.ReleasePace("api.test", int64(w+1)); err != nil {
					t.Errorf("worker %d: %v", w, err)
					return
				}
			}
		})
	}
	wg.Wait()
	slices.SortFunc(claims, func(a, b time.Time) int { return a.Compare(b) })
	for i := 1; i < len(claims); i++ {
		if gap := claims[i].Sub(claims[i-1]); gap < delay {
			t.Errorf("claims %d and %d %s apart, want at least %s", i-1, i, gap, delay)
		}
	}
	if len(claims) != workers*each {
		t.Errorf("%d claims, want %d", len(claims), workers*each)
	}
}

// On the server's clock (no Now), workers claiming at once queue on the
// host's row and the server's timestamps decide: one claim wins and the
// others are refused until the winner's delay has run, by the server's
// clock; once the winner gives the host up, every claim is still refused
// until then (the pace stays), but no longer for another's ownership. The
// delay is longer than the test: no real time has to pass.
func TestClaimPaceServerClock(t *testing.T) {
	t.Parallel()
	u := newSchema(t)
	const workers = 5
	delay := time.Hour
	dbs := make([]*DB, workers)
	for i := range dbs {
		dbs[i] = mustOpen(t, u, nil)
	}
	claimAll := func() []Claim {
		cs := make([]Claim, workers)
		var wg sync.WaitGroup
		for w, db := range dbs {
			wg.Go(func() {
				c, err := db.ClaimPace("api.test", int64(w+1), delay)
				if err != nil {
					t.Errorf("worker %d: %v", w, err)
				}
				cs[w] = c
			})
		}
		wg.Wait()
		return cs
	}
	first := claimAll()
	winner := -1
	for w, c := range first {
		if c.OK {
			if winner >= 0 {
				t.Fatalf("workers %d and %d both claimed the host", winner, w)
			}
			winner = w
		}
	}
	if winner < 0 {
		t.Fatalf("no worker claimed a host nobody had: %+v", first)
	}
	next := first[winner].Next
	if got := next.Sub(first[winner].At); got != delay {
		t.Errorf("the winner's next claim %s after its own, want the delay %s", got, delay)
	}
	for w, c := range first {
		if w != winner && (!c.Next.Equal(next) || c.Owner != int64(winner+1)) {
			t.Errorf("worker %d: refused until %v, owner %d; want until %v, owned by %d", w, c.Next, c.Owner, next, winner+1)
		}
	}
	if err := dbs[winner].ReleasePace("api.test", int64(winner+1)); err != nil {
		t.Fatal(err)
	}
	for w, c := range claimAll() {
		if c.OK || !c.Next.Equal(next) || c.Owner != 0 {
			t.Errorf("after the release, worker %d: OK %v, until %v, owner %d; want refused until %v, owned by none", w, c.OK, c.Next, c.Owner, next)
		}
	}
}

// A hold one worker learns (a Retry-After) binds every worker, with its
// reason; holds only lengthen; a state saved with a hold holds too.
func TestHoldBindsEveryWorker(t *testing.T) {
	t.Parallel()
	u := newSchema(t)
	clock := newClock()
	a, b := mustOpen(t, u, clock), mustOpen(t, u, clock)
	steps := []struct {
		name     string
		do       func() error
		advance  time.Duration
		ok       bool
		wait     time.Duration
		reason   string
		holds    int
		holdHost string
	}{
		{name: "first claim", do: nil, ok: true},
		{name: "a is held by a 429 for 2m", do: func() error { return holdHost(a, "api.test", t0.Add(2*time.Minute), "429 Retry-After") },
			wait: 2 * time.Minute, reason: "429 Retry-After", holds: 1},
		{name: "a shorter hold does not shorten it", do: func() error { return holdHost(a, "api.test", t0.Add(time.Minute), "503") },
			advance: 30 * time.Second, wait: 90 * time.Second, reason: "429 Retry-After", holds: 1},
		{name: "the hold ends", advance: 90 * time.Second, ok: true},
		{name: "a saved state's hold binds b", do: func() error {
			return a.Save(pace.State{Host: "api.test", Delay: time.Second, SetAt: t0, LastSignal: "503", HoldUntil: t0.Add(10 * time.Minute)})
		}, advance: time.Second, wait: 7*time.Minute + 59*time.Second, reason: "503", holds: 1},
	}
	for _, s := range steps {
		clock.Advance(s.advance)
		if s.do != nil {
			if err := s.do(); err != nil {
				t.Fatalf("%s: %v", s.name, err)
			}
		}
		c, err := b.ClaimPace("api.test", 2, time.Second)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if c.OK != s.ok || c.Wait() != s.wait || c.Hold != s.reason {
			t.Errorf("%s: claim OK %v wait %s hold %q; want %v, %s, %q", s.name, c.OK, c.Wait(), c.Hold, s.ok, s.wait, s.reason)
		}
		hs, err := holdsOf(b)
		if err != nil || len(hs) != s.holds {
			t.Errorf("%s: Holds = %v, %v; want %d", s.name, hs, err, s.holds)
		}
	}
}

func TestClaimPaceHostsAreIndependent(t *testing.T) {
	t.Parallel()
	u := newSchema(t)
	db := mustOpen(t, u, newClock())
	for i := range 3 {
		h := fmt.Sprintf("h%d.test", i)
		if c, err := db.ClaimPace(h, 1, time.Hour); err != nil || !c.OK {
			t.Errorf("first claim of %s: %+v, %v; want OK", h, c, err)
		}
	}
	if _, err := db.ClaimPace("", 1, time.Second); err == nil {
		t.Error("ClaimPace without a host: no error")
	}
}
