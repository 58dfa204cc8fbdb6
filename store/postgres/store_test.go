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
	PutRobots(...frontier.RobotsCopy) error
	RobotsCopies() ([]frontier.RobotsCopy, error)
	BeginRun(job string, at time.Time) (frontier.Run, error)
	EndRun(id int64, at time.Time, exitCode int, summary string, report []byte) error
	Runs(limit int) ([]frontier.Run, error)
	GetRun(id int64) (frontier.Run, error)
	AddFetches([]frontier.Fetch) error
	Fetches(runID int64) ([]frontier.Fetch, error)
	Enqueue(job string, es []frontier.Entry) (int, error)
	Prepare(job string, refreshBefore, dueBy time.Time) error
	QueuedHosts(job string) ([]frontier.HostQueue, error)
	Take(job, host string, now time.Time, n int) ([]frontier.Entry, error)
	Update([]frontier.Entry) error
	Record(job string, added, changed []frontier.Entry, fetches []frontier.Fetch) (int, error)
	Counts(job string) (map[frontier.State]int, error)
	Entries(job string, s frontier.State, limit int) ([]frontier.Entry, error)
	Get(job, url string) (frontier.Entry, error)
	Close() error
}

var (
	_ sqliteShaped = (*store.DB)(nil)
	_ sqliteShaped = (*DB)(nil)
)

// Forget drops the holds and claims every worker respects, beside the
// pace state and robots.txt copy the shared suite checks.
func TestForgetDropsHolds(t *testing.T) {
	t.Parallel()
	db := mustOpen(t, newSchema(t), newClock())
	if err := db.Save(pace.State{Host: "a.test", Delay: time.Second, SetAt: t0, HoldUntil: t0.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	if err := holdHost(db, "b.test", t0.Add(time.Hour), "retry-after"); err != nil {
		t.Fatal(err)
	}
	if hs, err := holdsOf(db); err != nil || len(hs) != 2 {
		t.Fatalf("Holds = %v, %v; want a.test's and b.test's", hs, err)
	}
	tests := []struct {
		name      string
		hosts     []string
		want      int
		wantHolds int
	}{
		{"case-insensitive, twice named", []string{"A.TEST", "a.test"}, 1, 1},
		{"a host known by its hold alone", []string{"b.test"}, 1, 0},
	}
	for _, tt := range tests {
		if n, err := db.Forget(tt.hosts...); err != nil || n != tt.want {
			t.Errorf("%s: Forget = %d, %v; want %d", tt.name, n, err, tt.want)
		}
		if hs, err := holdsOf(db); err != nil || len(hs) != tt.wantHolds {
			t.Errorf("%s: Holds after Forget = %v, %v; want %d", tt.name, hs, err, tt.wantHolds)
		}
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
	if err := a.Beat(wa.ID, 0); !errors.Is(err, frontier.ErrNotFound) {
		t.Errorf("Beat after Deregister: %v, want ErrNotFound", err)
	}
	if ws, err := b.Workers(time.Hour); err != nil || len(ws) != 1 || ws[0].Hostname != "m2" || ws[0].PID != 22 || ws[0].Job != "j" {
		t.Errorf("Workers after a deregistered = %+v, %v; want only m2/22", ws, err)
	}
}

// The PostgreSQL store is a store a crawl runs on, with the shared pace
// and the wait for other workers' leases that crawl asks of it.
// Each of its role types plays one of those roles.
var (
	_ crawl.Store  = (*DB)(nil)
	_ crawl.Shared = (*DB)(nil)

	_ crawl.Lock       = (*Registry)(nil)
	_ crawl.Runs       = (*RunLog)(nil)
	_ crawl.Frontier   = (*Frontier)(nil)
	_ crawl.PaceStates = (*PaceStates)(nil)
	_ crawl.Shared     = (*Coordination)(nil)
)
