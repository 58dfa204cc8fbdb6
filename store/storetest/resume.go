package storetest

import (
	"errors"
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
	if c, err := b.Counts("j"); err != nil || c[frontier.InFlight] != 1 || c[frontier.Done] != 1 || c[frontier.Queued] != 1 {
		t.Errorf("Counts before Prepare = %v, %v; want 1 in flight, 1 done, 1 queued", c, err)
	}
	if err := b.Prepare("j", time.Time{}); err != nil {
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
