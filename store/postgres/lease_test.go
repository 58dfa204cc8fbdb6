package postgres

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// seed enqueues n entries of job spread over hosts h0..h(hosts-1).
func seed(t *testing.T, db *DB, job string, n, hosts int) {
	t.Helper()
	es := make([]frontier.Entry, n)
	for i := range es {
		h := fmt.Sprintf("h%d.test", i%hosts)
		es[i] = frontier.Entry{URL: fmt.Sprintf("http://%s/p%d", h, i), Host: h, Priority: i % 3}
	}
	if got, err := db.Enqueue(job, es); err != nil || got != n {
		t.Fatalf("Enqueue = %d, %v; want %d", got, err, n)
	}
}

// leaseFor takes up to n due entries of job for worker, of host or (host
// "") of any, for ttl: the lease of Take, for a worker the test names.
func leaseFor(db *DB, job, host string, worker int64, n int, ttl time.Duration) ([]frontier.Entry, error) {
	return db.lease("lease from "+job, job, host, worker, db.c.nowArg(), n, ttl)
}

// finish writes back changed for worker as Record does for the worker
// Acquire registered: only the entries worker still holds the lease of;
// it returns the ids of the others.
func finish(db *DB, job string, worker int64, changed []frontier.Entry) ([]int64, error) {
	_, lost, err := db.record("finish leased entries", job, worker, nil, changed, nil)
	return lost, err
}

func register(t *testing.T, db *DB, name string) int64 {
	t.Helper()
	w, err := db.Register(frontier.Holder{PID: 1, Hostname: name, Job: "j"})
	if err != nil {
		t.Fatalf("Register %s: %v", name, err)
	}
	return w.ID
}

// Workers leasing at once, each on its own connections, get disjoint
// entries, and together they finish the job with every entry done once.
func TestLeaseWorkersNeverShareAnEntry(t *testing.T) {
	t.Parallel()
	u := newSchema(t)
	clock := newClock()
	const workers, entries = 4, 300
	seed(t, mustOpen(t, u, clock), "j", entries, 7)

	got := make([][]int64, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		db := mustOpen(t, u, clock)
		id := register(t, db, fmt.Sprintf("w%d", w))
		wg.Go(func() {
			for {
				es, err := leaseFor(db, "j", "", id, 5, time.Minute)
				if err != nil || len(es) == 0 {
					errs[w] = err
					return
				}
				for i := range es {
					got[w] = append(got[w], es[i].ID)
					es[i].State, es[i].Attempts = frontier.Done, es[i].Attempts+1
				}
				if lost, err := finish(db, "j", id, es); err != nil || len(lost) > 0 {
					errs[w] = fmt.Errorf("finish: lost %v, %v", lost, err)
					return
				}
			}
		})
	}
	wg.Wait()
	seen := map[int64]int{}
	for w := range workers {
		if errs[w] != nil {
			t.Errorf("worker %d: %v", w, errs[w])
		}
		for _, id := range got[w] {
			if prev, dup := seen[id]; dup {
				t.Errorf("entry %d leased by worker %d and worker %d", id, prev, w)
			}
			seen[id] = w
		}
	}
	if len(seen) != entries {
		t.Errorf("leased %d distinct entries, want %d", len(seen), entries)
	}
	counts, err := mustOpen(t, u, clock).Counts("j")
	if err != nil || counts[frontier.Done] != entries || len(counts) != 1 {
		t.Errorf("Counts = %v, %v; want %d done and nothing else", counts, err, entries)
	}
}

// A worker killed mid-run leaves its entries leased; once the lease runs
// out another worker takes them, and the dead one's late results are
// refused.
func TestLeaseOfAKilledWorkerComesBack(t *testing.T) {
	t.Parallel()
	u := newSchema(t)
	clock := newClock()
	a, b := mustOpen(t, u, clock), mustOpen(t, u, clock)
	seed(t, a, "j", 6, 1)
	ida, idb := register(t, a, "a"), register(t, b, "b")

	mine, err := leaseFor(a, "j", "", ida, 4, 30*time.Second)
	if err != nil || len(mine) != 4 {
		t.Fatalf("a: lease = %d entries, %v; want 4", len(mine), err)
	}
	// a is killed here: no finish, no Deregister.
	rest, err := leaseFor(b, "j", "", idb, 10, time.Hour)
	if err != nil || len(rest) != 2 {
		t.Fatalf("b before expiry: lease = %d entries, %v; want the 2 a does not hold", len(rest), err)
	}
	clock.Advance(29 * time.Second)
	if es, err := leaseFor(b, "j", "", idb, 10, 30*time.Second); err != nil || len(es) != 0 {
		t.Fatalf("b 29s later: lease = %d entries, %v; want none (a's lease runs)", len(es), err)
	}
	clock.Advance(time.Second)
	back, err := leaseFor(b, "j", "", idb, 10, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ids(back), ids(mine); !slices.Equal(got, want) {
		t.Errorf("b after expiry: lease = %v, want a's %v", got, want)
	}
	for _, e := range back {
		if e.State != frontier.InFlight || e.Attempts != 0 {
			t.Errorf("re-leased %s: state %s, attempts %d; want in-flight, 0", e.URL, e.State, e.Attempts)
		}
	}
	mine[0].State = frontier.Done
	var logged []string
	a.Log = func(msg string, args ...any) { logged = append(logged, fmt.Sprint(msg, args)) }
	if lost, err := finish(a, "j", ida, mine[:1]); err != nil || !slices.Equal(lost, ids(mine[:1])) {
		t.Errorf("a's late finish: lost %v, %v; want %v refused", lost, err, ids(mine[:1]))
	}
	if a.LeaseLost() != 1 || len(logged) != 1 || !strings.Contains(logged[0], mine[0].URL) {
		t.Errorf("a's late finish: LeaseLost %d, logged %q; want 1, one error naming %s", a.LeaseLost(), logged, mine[0].URL)
	}
	if b.LeaseLost() != 0 {
		t.Errorf("b: LeaseLost %d, want 0", b.LeaseLost())
	}
	if e, err := b.Get("j", mine[0].URL); err != nil || e.State != frontier.InFlight {
		t.Errorf("after a's late finish: %s is %s, %v; want still in flight for b", mine[0].URL, e.State, err)
	}
}

func ids(es []frontier.Entry) []int64 {
	out := make([]int64, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	slices.Sort(out)
	return out
}

func TestLeaseRules(t *testing.T) {
	t.Parallel()
	u := newSchema(t)
	clock := newClock()
	db := mustOpen(t, u, clock)
	w := register(t, db, "w")
	later := frontier.Entry{URL: "http://a.test/later", Host: "a.test", NextAt: t0.Add(time.Minute), Priority: 9}
	es := []frontier.Entry{
		{URL: "http://a.test/low", Host: "a.test"},
		{URL: "http://a.test/high", Host: "a.test", Priority: 5},
		{URL: "http://b.test/x", Host: "b.test", Priority: 7},
		{URL: "http://a.test/done", Host: "a.test", State: frontier.Done},
		later,
	}
	if _, err := db.Enqueue("j", es); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Enqueue("other", es[:1]); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name    string
		advance time.Duration
		host    string
		n       int
		want    []string
	}{
		{"one host, by priority, due only", 0, "a.test", 5, []string{"http://a.test/high", "http://a.test/low"}},
		{"any host takes what is left", 0, "", 5, []string{"http://b.test/x"}},
		{"nothing due", 0, "", 5, nil},
		{"a later entry comes due", time.Minute, "", 5, []string{"http://a.test/later"}},
	}
	for _, s := range steps {
		clock.Advance(s.advance)
		got, err := leaseFor(db, "j", s.host, w, s.n, time.Hour)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		var urls []string
		for _, e := range got {
			urls = append(urls, e.URL)
		}
		if !slices.Equal(urls, s.want) {
			t.Errorf("%s: lease = %v, want %v", s.name, urls, s.want)
		}
	}
	if c, err := db.Counts("j"); err != nil || c[frontier.Queued] != 0 || c[frontier.InFlight] != 4 {
		t.Errorf("Counts = %v, %v; want 0 queued, 4 in flight", c, err)
	}
	if n, err := db.Deregister(w); err != nil || n != 4 {
		t.Errorf("Deregister = %d, %v; want its 4 entries back in the queue", n, err)
	}
	if c, err := db.Counts("j"); err != nil || c[frontier.Queued] != 4 || c[frontier.InFlight] != 0 {
		t.Errorf("Counts after Deregister = %v, %v; want 4 queued", c, err)
	}
}

func TestRenewKeepsALiveWorkersLease(t *testing.T) {
	t.Parallel()
	u := newSchema(t)
	clock := newClock()
	a, b := mustOpen(t, u, clock), mustOpen(t, u, clock)
	seed(t, a, "j", 3, 1)
	ida, idb := register(t, a, "a"), register(t, b, "b")
	if es, err := leaseFor(a, "j", "", ida, 3, 10*time.Second); err != nil || len(es) != 3 {
		t.Fatalf("lease = %d, %v", len(es), err)
	}
	for range 3 {
		clock.Advance(8 * time.Second)
		if err := a.Beat(ida, 10*time.Second); err != nil {
			t.Fatalf("Beat: %v", err)
		}
		if es, err := leaseFor(b, "j", "", idb, 3, time.Second); err != nil || len(es) != 0 {
			t.Fatalf("b: lease = %d, %v; want none while a renews", len(es), err)
		}
	}
	if err := a.Beat(ida, time.Second); err != nil {
		t.Errorf("Beat: %v", err)
	}
	clock.Advance(time.Second)
	if es, err := leaseFor(b, "j", "", idb, 3, time.Second); err != nil || len(es) != 3 {
		t.Errorf("b once a stops renewing: lease = %d, %v; want 3", len(es), err)
	}
}

// Prepare requeues what a dead run left in flight, not what a live worker
// holds.
func TestPrepareLeavesLiveLeases(t *testing.T) {
	t.Parallel()
	u := newSchema(t)
	clock := newClock()
	db := mustOpen(t, u, clock)
	seed(t, db, "j", 4, 1)
	w := register(t, db, "w")
	if _, err := leaseFor(db, "j", "", w, 2, time.Minute); err != nil {
		t.Fatal(err)
	}
	db.LeaseTTL = time.Second // an old run's Take, silent since
	if es, err := db.Take("j", "h0.test", clock.Now(), 5); err != nil || len(es) != 2 {
		t.Fatalf("Take = %d entries, %v; want the 2 not leased", len(es), err)
	}
	clock.Advance(2 * time.Second)
	if err := db.Prepare("j", time.Time{}, time.Time{}); err != nil {
		t.Fatal(err)
	}
	c, err := db.Counts("j")
	if err != nil || c[frontier.InFlight] != 2 || c[frontier.Queued] != 2 {
		t.Errorf("Counts after Prepare = %v, %v; want 2 in flight (the live lease), 2 queued", c, err)
	}
}
