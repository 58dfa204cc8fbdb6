package postgres

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/pace"
	"github.com/polite-crawler/polite/store"
)

// sqliteShaped is store.DB's method set that this store mirrors, name for
// name and signature for signature, so that whatever interface crawl
// declares over the one fits the other.
type sqliteShaped interface {
	pace.StateStore
	SaveAll([]pace.State) error
	States() ([]pace.State, error)
	Forget(hosts ...string) (int, error)
	Robots(host string) (frontier.RobotsCopy, bool, error)
	PutRobots(frontier.RobotsCopy) error
	RobotsCopies() ([]frontier.RobotsCopy, error)
	BeginRun(job string, at time.Time) (frontier.Run, error)
	EndRun(id int64, at time.Time, exitCode int, summary string, report []byte) error
	Runs(limit int) ([]frontier.Run, error)
	GetRun(id int64) (frontier.Run, error)
	AddFetches([]frontier.Fetch) error
	Fetches(runID int64) ([]frontier.Fetch, error)
	Enqueue(job string, es []frontier.Entry) (int, error)
	Prepare(job string, refreshBefore time.Time) error
	QueuedHosts(job string) ([]frontier.HostQueue, error)
	Take(job, host string, now time.Time, n int) ([]frontier.Entry, error)
	Update([]frontier.Entry) error
	Record(job string, added, changed []frontier.Entry, fetches []frontier.Fetch) (int, error)
	Counts(job string) (map[frontier.State]int, error)
	Entries(job string, s frontier.State, limit int) ([]frontier.Entry, error)
	Get(job, url string) (frontier.Entry, error)
	Path() string
	Close() error
}

var (
	_ sqliteShaped = (*store.DB)(nil)
	_ sqliteShaped = (*DB)(nil)
)

func TestPaceStateRoundTripAndForget(t *testing.T) {
	t.Parallel()
	db := mustOpen(t, newSchema(t), newClock())
	want := []pace.State{
		{Host: "a.test", Delay: 3 * time.Second, SetAt: t0, Baseline: 80 * time.Millisecond,
			CongestionDelay: time.Second, CongestionAt: t0.Add(-time.Hour), LastSignal: "429",
			Floor: 500 * time.Millisecond, FloorSource: pace.FloorSource("robots"), HoldUntil: t0.Add(time.Minute)},
		{Host: "b.test:8080", Delay: time.Second, SetAt: t0},
	}
	if err := db.SaveAll(want); err != nil {
		t.Fatal(err)
	}
	want[1].Delay = 2 * time.Second
	if err := db.Save(want[1]); err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		got, ok, err := db.Load(w.Host)
		if err != nil || !ok || got != w {
			t.Errorf("Load(%s) = %+v, %v, %v; want %+v", w.Host, got, ok, err, w)
		}
	}
	if _, ok, err := db.Load("none.test"); ok || err != nil {
		t.Errorf("Load of an unknown host: found %v, %v", ok, err)
	}
	if got, err := db.States(); err != nil || !slices.Equal(got, want) {
		t.Errorf("States = %+v, %v; want %+v", got, err, want)
	}
	if err := db.PutRobots(frontier.RobotsCopy{Host: "c.test", Status: 200, FetchedAt: t0}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		hosts []string
		want  int
	}{
		{"case-insensitive, twice named", []string{"A.TEST", "a.test"}, 1},
		{"unknown", []string{"none.test"}, 0},
		{"all", nil, 2},
	}
	for _, tt := range tests {
		if n, err := db.Forget(tt.hosts...); err != nil || n != tt.want {
			t.Errorf("%s: Forget = %d, %v; want %d", tt.name, n, err, tt.want)
		}
	}
	if sts, err := db.States(); err != nil || len(sts) != 0 {
		t.Errorf("States after Forget() = %v, %v; want none", sts, err)
	}
	if hs, err := db.Holds(); err != nil || len(hs) != 0 {
		t.Errorf("Holds after Forget() = %v, %v; want none", hs, err)
	}
}

func TestRobotsCacheIsShared(t *testing.T) {
	t.Parallel()
	u := newSchema(t)
	a, b := mustOpen(t, u, nil), mustOpen(t, u, nil)
	c := frontier.RobotsCopy{Host: "a.test", Status: 200, Body: []byte("User-agent: *\nDisallow: /x\n"),
		FetchedAt: t0, Expires: t0.Add(24 * time.Hour)}
	if err := a.PutRobots(c); err != nil {
		t.Fatal(err)
	}
	got, ok, err := b.Robots("a.test")
	if err != nil || !ok || got.Status != c.Status || string(got.Body) != string(c.Body) ||
		!got.FetchedAt.Equal(c.FetchedAt) || !got.Expires.Equal(c.Expires) {
		t.Errorf("b.Robots = %+v, %v, %v; want a's %+v", got, ok, err, c)
	}
	c.Status, c.Body = 404, nil
	if err := b.PutRobots(c); err != nil {
		t.Fatal(err)
	}
	cs, err := a.RobotsCopies()
	if err != nil || len(cs) != 1 || cs[0].Status != 404 || cs[0].Body != nil {
		t.Errorf("RobotsCopies = %+v, %v; want one 404 without body", cs, err)
	}
	if _, ok, err := a.Robots("none.test"); ok || err != nil {
		t.Errorf("Robots of an unknown host: found %v, %v", ok, err)
	}
	if err := a.PutRobots(frontier.RobotsCopy{}); err == nil {
		t.Error("PutRobots without a host: no error")
	}
}

func TestRunsAndFetches(t *testing.T) {
	t.Parallel()
	db := mustOpen(t, newSchema(t), newClock())
	r1, err := db.BeginRun("nightly", time.Time{})
	if err != nil || r1.ID == 0 || !r1.StartedAt.Equal(t0) {
		t.Fatalf("BeginRun = %+v, %v; want an id, started at the store's clock", r1, err)
	}
	r2, err := db.BeginRun("other", t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	fs := []frontier.Fetch{
		{RunID: r1.ID, URL: "http://a.test/2", Host: "a.test", Status: 200, FetchedAt: t0.Add(2 * time.Second), Latency: time.Millisecond, Attempts: 1, Delay: time.Second, Bytes: 10},
		{RunID: r1.ID, URL: "http://a.test/1", Host: "a.test", Status: 429, Reason: "throttled", FetchedAt: t0.Add(time.Second)},
	}
	if err := db.AddFetches(fs); err != nil {
		t.Fatal(err)
	}
	if got, err := db.Fetches(r1.ID); err != nil || len(got) != 2 || got[0] != fs[1] || got[1] != fs[0] {
		t.Errorf("Fetches = %+v, %v; want in the order made", got, err)
	}
	report := []byte(`{"hosts":[]}`)
	if err := db.EndRun(r1.ID, t0.Add(time.Minute), 1, "1 done, 1 dead", report); err != nil {
		t.Fatal(err)
	}
	if err := db.EndRun(999, time.Time{}, 0, "", nil); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("EndRun of an unknown run: %v, want ErrNotFound", err)
	}
	got, err := db.GetRun(r1.ID)
	if err != nil || got.ExitCode != 1 || got.Summary != "1 done, 1 dead" || string(got.Report) != string(report) || !got.EndedAt.Equal(t0.Add(time.Minute)) {
		t.Errorf("GetRun = %+v, %v", got, err)
	}
	if _, err := db.GetRun(999); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("GetRun of an unknown run: %v, want ErrNotFound", err)
	}
	rs, err := db.Runs(0)
	if err != nil || len(rs) != 2 || rs[0].ID != r2.ID || rs[1].Report != nil {
		t.Errorf("Runs(0) = %+v, %v; want newest first, no reports", rs, err)
	}
	if rs, err := db.Runs(1); err != nil || len(rs) != 1 {
		t.Errorf("Runs(1) = %d runs, %v", len(rs), err)
	}
}

func TestFrontierAsSQLite(t *testing.T) {
	t.Parallel()
	db := mustOpen(t, newSchema(t), newClock())
	es := []frontier.Entry{
		{URL: "http://a.test/1", Host: "a.test", ETag: `"x"`},
		{URL: "http://a.test/2", Host: "a.test", NextAt: t0.Add(time.Minute)},
		{URL: "http://b.test/1", Host: "b.test", Depth: 1, Parent: "http://a.test/1"},
	}
	if n, err := db.Enqueue("j", append(es, es[0])); err != nil || n != 3 {
		t.Fatalf("Enqueue with a duplicate = %d, %v; want 3", n, err)
	}
	bad := []struct {
		name string
		e    frontier.Entry
	}{
		{"no url", frontier.Entry{Host: "a.test"}},
		{"no host", frontier.Entry{URL: "http://x/"}},
		{"host not lowercased", frontier.Entry{URL: "http://X/", Host: "X"}},
		{"unknown state", frontier.Entry{URL: "http://x/", Host: "x", State: "lost"}},
	}
	for _, b := range bad {
		if _, err := db.Enqueue("j", []frontier.Entry{b.e}); err == nil {
			t.Errorf("Enqueue %s: no error", b.name)
		}
	}
	hq, err := db.QueuedHosts("j")
	if err != nil || len(hq) != 2 || hq[0] != (frontier.HostQueue{Host: "a.test", Queued: 2}) {
		t.Errorf("QueuedHosts = %+v, %v", hq, err)
	}
	taken, err := db.Take("j", "a.test", t0, 5)
	if err != nil || len(taken) != 1 || taken[0].URL != es[0].URL || taken[0].State != frontier.InFlight {
		t.Fatalf("Take = %+v, %v; want a.test/1 in flight", taken, err)
	}
	e := taken[0]
	e.State, e.LastStatus, e.FetchedAt, e.File = frontier.Done, 200, t0, "a.test/1.html"
	added := []frontier.Entry{{URL: "http://a.test/3", Host: "a.test", Depth: 1}}
	f := frontier.Fetch{URL: e.URL, Host: e.Host, Status: 200, FetchedAt: t0}
	run, err := db.BeginRun("j", t0)
	if err != nil {
		t.Fatal(err)
	}
	f.RunID = run.ID
	if n, err := db.Record("j", added, []frontier.Entry{e}, []frontier.Fetch{f}); err != nil || n != 1 {
		t.Errorf("Record = %d, %v; want 1 added", n, err)
	}
	if got, err := db.Get("j", e.URL); err != nil || got != e {
		t.Errorf("Get after Record = %+v, %v; want %+v", got, err, e)
	}
	byURL := frontier.Entry{Job: "j", URL: es[2].URL, Host: "b.test", State: frontier.Dead, Reason: "http-404"}
	if err := db.Update([]frontier.Entry{byURL}); err != nil {
		t.Errorf("Update by URL: %v", err)
	}
	if err := db.Update([]frontier.Entry{{Job: "j", URL: "http://none/", Host: "none", State: frontier.Queued}}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Update of an unknown entry: %v, want ErrNotFound", err)
	}
	if _, err := db.Get("j", "http://none/"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Get of an unknown entry: %v, want ErrNotFound", err)
	}
	c, err := db.Counts("j")
	want := map[frontier.State]int{frontier.Done: 1, frontier.Queued: 2, frontier.Dead: 1}
	if err != nil || len(c) != len(want) || c[frontier.Done] != 1 || c[frontier.Queued] != 2 || c[frontier.Dead] != 1 {
		t.Errorf("Counts = %v, %v; want %v", c, err, want)
	}
	if q, err := db.Entries("j", frontier.Queued, 1); err != nil || len(q) != 1 || q[0].URL != es[1].URL {
		t.Errorf("Entries(queued, 1) = %+v, %v; want the oldest", q, err)
	}
	if err := db.Prepare("j", t0.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if got, err := db.Get("j", e.URL); err != nil || got.State != frontier.Queued || got.ETag != `"x"` || got.Attempts != 0 {
		t.Errorf("after Prepare with refresh: %+v, %v; want queued again, keeping its ETag", got, err)
	}
}

func TestWorkersRegistry(t *testing.T) {
	t.Parallel()
	u := newSchema(t)
	clock := newClock()
	a, b := mustOpen(t, u, clock), mustOpen(t, u, clock)
	wa, err := a.Register(frontier.Holder{PID: 11, Hostname: "m1", Job: "j"})
	if err != nil || wa.ID == 0 || !wa.Started.Equal(t0) || !wa.Heartbeat.Equal(t0) {
		t.Fatalf("Register = %+v, %v", wa, err)
	}
	wb, err := b.Register(frontier.Holder{PID: 22, Hostname: "m2", Job: "j"})
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name    string
		advance time.Duration
		beat    []int64
		want    []int64
	}{
		{"both fresh", 0, nil, []int64{wa.ID, wb.ID}},
		{"b beats, a is silent", 20 * time.Second, []int64{wb.ID}, []int64{wa.ID, wb.ID}},
		{"a's heartbeat is out of the window", 15 * time.Second, nil, []int64{wb.ID}},
		{"a beats again", 0, []int64{wa.ID}, []int64{wa.ID, wb.ID}},
	}
	for _, s := range steps {
		clock.Advance(s.advance)
		for _, id := range s.beat {
			if err := a.Beat(id, 0); err != nil {
				t.Fatalf("%s: Beat(%d): %v", s.name, id, err)
			}
		}
		ws, err := b.Workers(30 * time.Second)
		var got []int64
		for _, w := range ws {
			got = append(got, w.ID)
		}
		if err != nil || !slices.Equal(got, s.want) {
			t.Errorf("%s: Workers = %v, %v; want %v", s.name, got, err, s.want)
		}
	}
	if _, err := a.Deregister(wa.ID); err != nil {
		t.Fatal(err)
	}
	if err := a.Beat(wa.ID, 0); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Beat after Deregister: %v, want ErrNotFound", err)
	}
	if ws, err := b.Workers(time.Hour); err != nil || len(ws) != 1 || ws[0].Hostname != "m2" || ws[0].PID != 22 || ws[0].Job != "j" {
		t.Errorf("Workers after a deregistered = %+v, %v; want only m2/22", ws, err)
	}
}

// The PostgreSQL store is a store a crawl runs on, with the shared pace
// and the wait for other workers' leases that crawl asks of it.
var (
	_ crawl.Store       = (*DB)(nil)
	_ crawl.SharedPace  = (*DB)(nil)
	_ crawl.SharedQueue = (*DB)(nil)
)
