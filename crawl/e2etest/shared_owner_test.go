package e2etest

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/clock"
	"github.com/polite-crawler/polite/crawl/report"
	"github.com/polite-crawler/polite/store/postgres"
	"github.com/polite-crawler/polite/store/postgres/pgtest"
)

// pgWorkers returns n stores on one empty schema of the test PostgreSQL
// (see pgtest.Schema), each a worker of its own.
func pgWorkers(t *testing.T, n int) []*postgres.DB {
	t.Helper()
	u := pgtest.Schema(t, "crawl")
	ctx := context.Background()
	var err error
	dbs := make([]*postgres.DB, n)
	for i := range dbs {
		if dbs[i], err = postgres.Open(ctx, u); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { dbs[i].Close() })
	}
	return dbs
}

// workerAgent is the User-Agent of worker i of crawlTogether.
func workerAgent(i int) string { return fmt.Sprintf("polite-test-%d/1.0", i) }

// crawlTogether serves o and crawls its pages /p0 to /p(pages-1) with
// every store of dbs at once, worker i as workerAgent(i), each one's
// configuration passed through set (when not nil); it returns their
// reports, after checking that none recorded an entry without its
// lease. OWNDEBUG in the environment logs every worker to stderr.
//
// Everything runs on one fake clock: each worker's crawl (a run of the
// clock of its own) and store (its pace claims, ownership and leases),
// and the origin, which holds each request on it. The clock moves only
// once every worker waits on it and every request in flight is held. It
// starts at the wall's now, as crawltest.SitemapCrawl's: the HTTP client
// notes when a request left on the wall's clock.
func crawlTogether(t *testing.T, dbs []*postgres.DB, o *ownedOrigin, pages int, set func(*crawl.Config)) []*report.Report {
	t.Helper()
	clk := clock.NewFake(time.Now())
	defer clk.Auto()()
	o.clock = clk
	srv := httptest.NewServer(o)
	defer srv.Close()
	seeds := make([]string, pages)
	for i := range seeds {
		seeds[i] = fmt.Sprintf("%s/p%d", srv.URL, i)
	}
	reps := make([]*report.Report, len(dbs))
	var wg sync.WaitGroup
	for i, db := range dbs {
		db.Now = clk.Now
		run := clk.NewRun()
		cfg := fastConfig(t, seeds...)
		cfg.Clock = run
		cfg.UserAgent = workerAgent(i)
		cfg.Shared, cfg.Wake = db.Coordination, db.Wakes()
		if set != nil {
			set(&cfg)
		}
		if os.Getenv("OWNDEBUG") != "" {
			cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug})).With("w", i)
		}
		wg.Go(func() {
			defer run.Done()
			rep, err := crawl.Run(context.Background(), db, cfg)
			if err != nil {
				t.Errorf("worker %d: %v", i, err)
			}
			reps[i] = rep
		})
	}
	wg.Wait()
	// No worker ever records an entry whose lease went to another: each
	// renews its leases long before they run out.
	for i, db := range dbs {
		if n := db.LeaseLost(); n != 0 {
			t.Errorf("worker %d recorded %d entries without their lease, want 0", i, n)
		}
		if reps[i] != nil && reps[i].LeaseLost != db.LeaseLost() {
			t.Errorf("worker %d's report: %d entries without their lease, the store counted %d", i, reps[i].LeaseLost, db.LeaseLost())
		}
	}
	return reps
}

// ownedHit is one request the origin saw: which worker sent it, and when
// (on the fake clock).
type ownedHit struct {
	agent      string
	host       string // the name it was sent to
	path       string
	start, end time.Time
}

// ownedOrigin serves pages, answering 429 to the requests listed in
// throttle (by their order, 1-based), each after 2 ms held on the clock,
// and logs every request.
type ownedOrigin struct {
	clock    *clock.Fake // set by crawlTogether
	mu       sync.Mutex
	hits     []ownedHit
	throttle map[int]bool
	n        int
}

func (o *ownedOrigin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/robots.txt" {
		http.NotFound(w, r)
		return
	}
	start := o.clock.Now()
	o.mu.Lock()
	o.n++
	throttled := o.throttle[o.n]
	o.mu.Unlock()
	if !o.clock.Hold(r.Context(), 2*time.Millisecond) {
		return
	}
	if throttled {
		w.WriteHeader(http.StatusTooManyRequests)
	} else {
		fmt.Fprintf(w, "<html><body>%s</body></html>", r.URL.Path)
	}
	o.mu.Lock()
	o.hits = append(o.hits, ownedHit{agent: r.UserAgent(), host: r.Host, path: r.URL.Path, start: start, end: o.clock.Now()})
	o.mu.Unlock()
}

// Three workers on one host of a shared store: one at a time owns the
// host, so the sender changes only when an owner lets it go, and no two
// workers ever have a request in flight to it at once; every page is
// fetched once.
func TestSharedHostOneOwnerAtATime(t *testing.T) {
	t.Parallel()
	o := &ownedOrigin{}
	const pages = 40
	crawlTogether(t, pgWorkers(t, 3), o, pages, nil)
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.hits) != pages {
		t.Errorf("%d page requests, want %d (every page once)", len(o.hits), pages)
	}
	switches := 0
	for i := 1; i < len(o.hits); i++ {
		a, b := o.hits[i-1], o.hits[i]
		if a.agent != b.agent {
			switches++
		}
		if b.start.Before(a.end) {
			t.Errorf("requests %d (%s) and %d (%s) overlap: two senders at once", i-1, a.agent, i, b.agent)
		}
	}
	// Ownership passes only when the owner has no more work or ends.
	if switches > 2 {
		t.Errorf("the sender changed %d times in %d requests, want at most 2 (one owner at a time)", switches, len(o.hits))
	}
}

// Two workers on one host: the first owner learns a longer delay from
// 429s and stops (its budget); the other, which met the host before,
// takes it over and continues from the saved delay, not from its own
// start.
func TestSharedHostTakeoverContinuesFromSavedDelay(t *testing.T) {
	t.Parallel()
	o := &ownedOrigin{throttle: map[int]bool{2: true, 3: true, 4: true}}
	reps := crawlTogether(t, pgWorkers(t, 2), o, 16, func(cfg *crawl.Config) {
		cfg.MaxRequests = 7 // robots.txt, a page, three 429s, two steps back down
	})
	o.mu.Lock()
	hits := o.hits
	o.mu.Unlock()
	if len(hits) < 8 {
		t.Fatalf("%d requests, want the first owner's 7 and more from the next", len(hits))
	}
	first := hits[0].agent
	next := -1
	for i, h := range hits {
		if h.agent != first {
			next = i
			break
		}
	}
	if next < 0 {
		t.Fatalf("only %s sent: no takeover", first)
	}
	var owner, taker *report.HostStats
	for i, rep := range reps {
		if rep == nil || len(rep.Hosts) != 1 || len(rep.Hosts[0].Timeline) == 0 {
			t.Fatalf("worker %d: report without the host's timeline: %+v", i, rep)
		}
		if workerAgent(i) == first {
			owner = rep.Hosts[0]
		} else {
			taker = rep.Hosts[0]
		}
	}
	learned := owner.DelayEndS
	if learned < 2*0.020 {
		t.Fatalf("the first owner ended at a delay of %.3fs: the 429s taught it nothing to hand over", learned)
	}
	// The taker's pacer was restored from the saved state: after its first
	// answer (a 200) its delay is the owner's one step down (halved, as the
	// owner's own went from 0.27s to 0.13s and 0.07s), far above where its
	// own pacer stood (the 20ms start, less the steps down of no answer at
	// all).
	if got := taker.Timeline[0].DelayS; got < learned*0.4 {
		t.Errorf("the taker's delay after its first request = %.3fs, want about half the owner's saved %.3fs", got, learned)
	}
	if gap := hits[next].start.Sub(hits[next-1].start).Seconds(); gap < learned*0.8 {
		t.Errorf("the taker's first request %.3fs after the owner's last, want at least about its delay %.3fs", gap, learned)
	}
}
