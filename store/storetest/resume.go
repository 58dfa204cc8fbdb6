package storetest

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// The crawl lock (or, where crawls share a database, a worker's place):
// a holder beats while it runs, which keeps its run alive, and loses the
// right to once it released.
func testLockAndHeartbeat(t *testing.T, v *env) {
	db, clock := v.db, v.clock
	h := frontier.Holder{PID: 1, Hostname: "storetest-1", Job: "j", Since: T0}
	if err := db.Heartbeat(h, 0); !errors.Is(err, frontier.ErrLockLost) {
		t.Errorf("Heartbeat before Acquire = %v, want ErrLockLost", err)
	}
	if err := db.Acquire(h); err != nil {
		t.Fatalf("Acquire of a new database: %v", err)
	}
	run, err := db.BeginRun("j", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(2 * frontier.Stale)
	if err := db.Heartbeat(h, run.ID); err != nil {
		t.Fatalf("Heartbeat of the holder: %v", err)
	}
	if got, err := db.GetRun(run.ID); err != nil || got.Died(clock.Now()) {
		t.Errorf("run after a heartbeat = %+v, %v; want it alive at %v", got, err, clock.Now())
	}
	if rs, err := db.Runs(1); err != nil || len(rs) != 1 || rs[0].Died(clock.Now()) {
		t.Errorf("Runs(1) after a heartbeat = %+v, %v; want the run alive", rs, err)
	}
	if err := db.Release(h); err != nil {
		t.Fatalf("Release: %v", err)
	}
	if err := db.Heartbeat(h, run.ID); !errors.Is(err, frontier.ErrLockLost) {
		t.Errorf("Heartbeat after Release = %v, want ErrLockLost", err)
	}
	clock.Advance(2 * frontier.Stale)
	if got, err := db.GetRun(run.ID); err != nil || !got.Died(clock.Now()) {
		t.Errorf("run silent for 2×Stale, no end = %+v, %v; want it died", got, err)
	}
	if err := db.Acquire(h); err != nil {
		t.Errorf("Acquire after Release: %v", err)
	}
	if err := db.Release(h); err != nil {
		t.Errorf("Release: %v", err)
	}
}

// A crawl killed mid-run leaves its run without an end and entries in
// flight; the next crawl, on another handle, sees the run died, gets the
// lock, and its Prepare queues those entries again, keeping what was
// settled.
func testResume(t *testing.T, v *env) {
	a, clock := v.db, v.clock
	ha := frontier.Holder{PID: 1, Hostname: "storetest-killed", Job: "j", Since: T0}
	if err := a.Acquire(ha); err != nil {
		t.Fatal(err)
	}
	run, err := a.BeginRun("j", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	mustEnqueue(t, a, "j", entry("a.example", "/1", 2), entry("a.example", "/2", 1), entry("a.example", "/3", 0))
	taken, err := a.Take("j", "a.example", T0, 2)
	if err != nil || len(taken) != 2 {
		t.Fatalf("Take = %v, %v; want 2", urls(taken), err)
	}
	done := taken[0]
	done.State, done.LastStatus, done.FetchedAt = frontier.Done, 200, T0
	f := frontier.Fetch{RunID: run.ID, URL: done.URL, Host: done.Host, Status: 200, FetchedAt: T0}
	if _, err := a.Record("j", nil, []frontier.Entry{done}, []frontier.Fetch{f}); err != nil {
		t.Fatal(err)
	}
	if err := a.Heartbeat(ha, run.ID); err != nil {
		t.Fatal(err)
	}
	// a is killed: no Release, no EndRun. Past Stale, the next crawl starts.
	clock.Advance(frontier.Stale + time.Minute)
	b := v.open(clock.Now)
	last, ok, err := b.LastRun("j")
	if err != nil || !ok || last.ID != run.ID || !last.Died(clock.Now()) {
		t.Fatalf("LastRun = %+v, %v, %v; want run %d, died", last, ok, err, run.ID)
	}
	hb := frontier.Holder{PID: 2, Hostname: "storetest-next", Job: "j", Since: clock.Now()}
	if err := b.Acquire(hb); err != nil {
		t.Fatalf("Acquire after the holder went silent for Stale: %v", err)
	}
	defer b.Release(hb)
	// The dead holder's entry is in flight still, or already queued again
	// (a store that registers workers takes back a dead one's at Acquire).
	if c, err := b.Counts("j"); err != nil || c[frontier.InFlight]+c[frontier.Queued] != 2 || c[frontier.Done] != 1 {
		t.Errorf("Counts before Prepare = %v, %v; want 1 done, 2 in flight or queued", c, err)
	}
	if err := b.Prepare("j", time.Time{}, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if c, err := b.Counts("j"); err != nil || c[frontier.Queued] != 2 || c[frontier.Done] != 1 || c[frontier.InFlight] != 0 {
		t.Errorf("Counts after Prepare = %v, %v; want 2 queued, 1 done", c, err)
	}
	again, err := b.Take("j", "a.example", clock.Now(), 10)
	if want := []string{taken[1].URL, "https://a.example/3"}; err != nil || len(again) != 2 || again[0].URL != want[0] || again[1].URL != want[1] {
		t.Errorf("Take after Prepare = %v, %v; want %v", urls(again), err, want)
	}
	if got, err := b.Get("j", done.URL); err != nil || got.State != frontier.Done || got.LastStatus != 200 {
		t.Errorf("the settled entry = %+v, %v; want it done still", got, err)
	}
	if fs, err := b.Fetches(run.ID); err != nil || len(fs) != 1 {
		t.Errorf("Fetches of the killed run = %+v, %v; want its one fetch", fs, err)
	}
	next, err := b.BeginRun("j", time.Time{})
	if err != nil || next.ID <= run.ID || !next.StartedAt.Equal(clock.Now()) {
		t.Errorf("BeginRun = %+v, %v; want a newer run started now", next, err)
	}
	if last, _, err := b.LastRun("j"); err != nil || last.ID != next.ID {
		t.Errorf("LastRun = %+v, %v; want the new run %d", last, err, next.ID)
	}
}

// What a held host leaves at a run's end: the crawl takes all its queued
// entries, due or not, and records them in the state the hold's kind says
// (deferred, excluded, or queued), none eligible before the hold ends.
// The next run's Prepare queues the deferred and excluded ones again, and
// they wait for the hold still.
func testLeftoverStates(t *testing.T, v *env) {
	db := v.db
	h := frontier.Holder{PID: 1, Hostname: "storetest-1", Job: "j", Since: T0}
	if err := db.Acquire(h); err != nil {
		t.Fatal(err)
	}
	defer db.Release(h)
	hold := T0.Add(6 * time.Hour)
	later := entry("a.example", "/later", 0)
	later.NextAt = T0.Add(time.Hour)
	mustEnqueue(t, db, "j", entry("a.example", "/1", 0), later, entry("b.example", "/1", 0), entry("c.example", "/1", 0))
	always := T0.Add(100 * 365 * 24 * time.Hour)
	for _, tt := range []struct {
		host  string
		state frontier.State
		n     int
	}{{"a.example", frontier.Deferred, 2}, {"b.example", frontier.Excluded, 1}, {"c.example", frontier.Queued, 1}} {
		es, err := db.Take("j", tt.host, always, 256)
		if err != nil || len(es) != tt.n {
			t.Fatalf("Take(%s) of everything queued = %v, %v; want %d", tt.host, urls(es), err, tt.n)
		}
		for i := range es {
			es[i].State, es[i].NextAt, es[i].Reason = tt.state, hold, "retry-after"
		}
		if _, err := db.Record("j", nil, es, nil); err != nil {
			t.Fatalf("Record(%s): %v", tt.host, err)
		}
	}
	want := map[frontier.State]int{frontier.Deferred: 2, frontier.Excluded: 1, frontier.Queued: 1}
	if c, err := db.Counts("j"); err != nil || !reflect.DeepEqual(c, want) {
		t.Errorf("Counts after the leftovers = %v, %v; want %v", c, err, want)
	}
	if hs, err := db.QueuedHosts("j"); err != nil || len(hs) != 1 || hs[0].Host != "c.example" || !hs[0].NextAt.Equal(hold) {
		t.Errorf("QueuedHosts = %+v, %v; want c.example due at the hold's end", hs, err)
	}
	if err := db.Prepare("j", time.Time{}, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if c, err := db.Counts("j"); err != nil || c[frontier.Queued] != 4 {
		t.Errorf("Counts after Prepare = %v, %v; want 4 queued", c, err)
	}
	if es, err := db.Take("j", "a.example", hold.Add(-time.Second), 10); err != nil || len(es) != 0 {
		t.Errorf("Take before the hold ends = %v, %v; want none", urls(es), err)
	}
	es, err := db.Take("j", "a.example", hold, 10)
	if err != nil || len(es) != 2 || es[0].Reason != "retry-after" {
		t.Errorf("Take at the hold's end = %+v, %v; want both, with their reason", es, err)
	}
}
