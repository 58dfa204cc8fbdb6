package postgres

import (
	"errors"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/pace"
)

// A crawl on PostgreSQL registers as a worker: two may run at once, each
// Take is a lease of its own, Record settles only what the worker still
// holds, and Release gives the rest back.
func TestCrawlWorkersShareAJob(t *testing.T) {
	t.Parallel()
	u := newSchema(t)
	clock := newClock()
	a, b := mustOpen(t, u, clock), mustOpen(t, u, clock)
	a.LeaseTTL, b.LeaseTTL = 10*time.Second, 10*time.Second
	seed(t, a, "j", 4, 1)
	ha, hb := frontier.Holder{PID: 1, Hostname: "m1", Job: "j"}, frontier.Holder{PID: 2, Hostname: "m2", Job: "j"}
	if err := a.Acquire(ha); err != nil {
		t.Fatalf("a.Acquire: %v", err)
	}
	if err := b.Acquire(hb); err != nil {
		t.Fatalf("b.Acquire beside a live worker: %v, want nil", err)
	}
	if err := a.Acquire(ha); err == nil {
		t.Errorf("a.Acquire twice: nil, want an error")
	}
	ws, err := a.Workers(time.Minute)
	if err != nil || len(ws) != 2 {
		t.Fatalf("Workers = %v, %v; want the 2 registered", ws, err)
	}
	ea, err := a.Take("j", "h0.test", clock.Now(), 3)
	if err != nil || len(ea) != 3 {
		t.Fatalf("a.Take = %d, %v; want 3", len(ea), err)
	}
	if n, next, err := b.Pending("j", clock.Now()); err != nil || n != 3 || !next.Equal(clock.Now().Add(10*time.Second)) {
		t.Errorf("b.Pending = %d, %v, %v; want 3 until a's lease runs out in 10s", n, next, err)
	}
	if n, _, err := a.Pending("j", clock.Now()); err != nil || n != 0 {
		t.Errorf("a.Pending = %d, %v; want 0 (its own leases are not others' work)", n, err)
	}
	// a falls silent: its leases run out and b takes them.
	clock.Advance(11 * time.Second)
	if hs, err := b.QueuedHosts("j"); err != nil || len(hs) != 1 || hs[0].Queued != 4 {
		t.Errorf("b.QueuedHosts after a's leases ran out = %v, %v; want h0.test with 4", hs, err)
	}
	eb, err := b.Take("j", "h0.test", clock.Now(), 4)
	if err != nil || len(eb) != 4 {
		t.Fatalf("b.Take after a's leases ran out = %d, %v; want 4", len(eb), err)
	}
	// a wakes up and records its results: they are no longer its to settle.
	for i := range ea {
		ea[i].State = frontier.Done
	}
	if _, err := a.Record("j", nil, ea, nil); err != nil {
		t.Fatalf("a.Record: %v", err)
	}
	if c, err := a.Counts("j"); err != nil || c[frontier.InFlight] != 4 {
		t.Errorf("Counts after a's late Record = %v, %v; want 4 in flight (b's)", c, err)
	}
	if err := b.Heartbeat(hb, 0); err != nil {
		t.Errorf("b.Heartbeat: %v", err)
	}
	if err := b.Release(hb); err != nil {
		t.Fatalf("b.Release: %v", err)
	}
	if c, err := a.Counts("j"); err != nil || c[frontier.Queued] != 4 {
		t.Errorf("Counts after b's Release = %v, %v; want 4 queued again", c, err)
	}
	if err := b.Heartbeat(hb, 0); !errors.Is(err, frontier.ErrLockLost) {
		t.Errorf("b.Heartbeat after Release = %v, want ErrLockLost", err)
	}
	if _, err := a.Deregister(a.c.worker.Load()); err != nil {
		t.Fatal(err)
	}
	if err := a.Heartbeat(ha, 0); !errors.Is(err, frontier.ErrLockLost) {
		t.Errorf("a.Heartbeat once deregistered = %v, want ErrLockLost", err)
	}
}

// Claim keeps the one pace of a host across workers and binds them to a
// delay another one stored in the last minute.
func TestClaimSharesPaceAndLearnedDelay(t *testing.T) {
	t.Parallel()
	u := newSchema(t)
	clock := newClock()
	a, b := mustOpen(t, u, clock), mustOpen(t, u, clock)
	now := clock.Now()
	tests := []struct {
		name     string
		db       *DB
		advance  time.Duration
		delay    time.Duration
		wantOK   bool
		wantWait time.Duration
	}{
		{"a claims first", a, 0, time.Second, true, 0},
		{"b at once waits for a's delay", b, 0, time.Second, false, time.Second},
		{"b after the delay", b, time.Second, time.Second, true, 0},
		{"a claims early", a, 500 * time.Millisecond, time.Second, false, 500 * time.Millisecond},
	}
	for _, tt := range tests {
		clock.Advance(tt.advance)
		now = now.Add(tt.advance)
		c, err := tt.db.Claim("h.test", now, tt.delay)
		ok, wait := c.OK, c.Wait
		if err != nil || ok != tt.wantOK || !wait.Equal(now.Add(tt.wantWait)) {
			t.Errorf("%s: Claim = %v, %v, %v; want %v, now+%v", tt.name, ok, wait.Sub(now), err, tt.wantOK, tt.wantWait)
		}
	}
	// a learned a 5s delay and saved it: b's 1s claim now spaces 5s.
	clock.Advance(time.Minute)
	now = clock.Now()
	if err := a.Save(pace.State{Host: "h.test", Delay: 5 * time.Second, SetAt: now}); err != nil {
		t.Fatal(err)
	}
	if c, err := b.Claim("h.test", now, time.Second); !c.OK || err != nil {
		t.Fatalf("b.Claim = %v, %v; want ok", c.OK, err)
	}
	clock.Advance(2 * time.Second)
	if c, err := a.Claim("h.test", now.Add(2*time.Second), time.Second); c.OK || err != nil || !c.Wait.Equal(now.Add(5*time.Second)) {
		t.Errorf("Claim 2s after a claim under a stored 5s delay = %v, %v, %v; want wait until +5s", c.OK, c.Wait.Sub(now), err)
	}
}

// A run without an end beats with its job's live workers, so that runs
// and status do not call a long shared run dead.
func TestRunBeatsWithItsWorkers(t *testing.T) {
	t.Parallel()
	u := newSchema(t)
	clock := newClock()
	db := mustOpen(t, u, clock)
	r, err := db.BeginRun("j", clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Acquire(frontier.Holder{PID: 1, Hostname: "m1", Job: "j"}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(frontier.Stale * 2)
	if err := db.Heartbeat(frontier.Holder{}, r.ID); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		end      bool
		wantDied bool
	}{
		{"running, its worker beating", false, false},
		{"ended", true, false},
	}
	for _, tt := range tests {
		if tt.end {
			if err := db.EndRun(r.ID, clock.Now(), 0, "", nil); err != nil {
				t.Fatal(err)
			}
		}
		got, err := db.GetRun(r.ID)
		if err != nil || got.Died(clock.Now()) != tt.wantDied {
			t.Errorf("%s: run %+v, %v: Died = %v, want %v", tt.name, got, err, got.Died(clock.Now()), tt.wantDied)
		}
	}
	if err := db.Release(frontier.Holder{}); err != nil {
		t.Fatal(err)
	}
	r2, _ := db.BeginRun("j", clock.Now())
	clock.Advance(frontier.Stale * 2)
	if rs, err := db.Runs(1); err != nil || len(rs) != 1 || rs[0].ID != r2.ID || !rs[0].Died(clock.Now()) {
		t.Errorf("Runs(1) = %+v, %v; want run %d died (no worker, no end)", rs, err, r2.ID)
	}
}
