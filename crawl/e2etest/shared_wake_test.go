package e2etest

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/clock"
	"github.com/polite-crawler/polite/crawl/exclude"
	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/report"
	"github.com/polite-crawler/polite/crawl/urls"
)

// watchedShared is a crawl's Shared role that tells the test what the
// crawl met: its first claim refused because another owns the host, its
// first claim granted, and, once it owns a host, a wait for the others.
type watchedShared struct {
	crawl.Shared
	refused, claimed, waiting chan struct{}
	owns                      atomic.Bool
}

func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

func (w *watchedShared) Claim(host string, now time.Time, delay time.Duration) (frontier.PaceClaim, error) {
	c, err := w.Shared.Claim(host, now, delay)
	switch {
	case c.OK:
		w.owns.Store(true)
		signal(w.claimed)
	case c.Owned:
		signal(w.refused)
	}
	return c, err
}

func (w *watchedShared) Pending(job string, now time.Time) (int, time.Time, error) {
	n, next, err := w.Shared.Pending(job, now)
	if n > 0 && w.owns.Load() {
		signal(w.waiting)
	}
	return n, next, err
}

// pageCounter serves a page at every path and counts the requests.
type pageCounter struct {
	mu   sync.Mutex
	hits map[string]int
}

func (p *pageCounter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.hits[r.Host+r.URL.Path]++
	p.mu.Unlock()
	w.Write([]byte("<html><body>page</body></html>"))
}

// A worker waiting on a shared PostgreSQL database is woken by the other
// workers through NOTIFY: the host another worker owned, once released;
// the URLs another worker added, once recorded; and an exclusion rule
// added meanwhile keeps it from the rule's host. The fallback poll is an
// hour and the clock never moves, so nothing but a notification could
// have woken it: every wait it started (the owner's hold on the host,
// the other worker's lease) would have outlasted the test.
func TestSharedWorkerWokenByNotify(t *testing.T) {
	t.Parallel()
	dbs := pgWorkers(t, 2)
	other, db := dbs[0], dbs[1]
	start := time.Now()
	clk := clock.NewFake(start) // never moved: no Auto, no Advance
	for _, d := range dbs {
		d.Now, d.FallbackPoll = clk.Now, time.Hour
	}
	pages := &pageCounter{hits: map[string]int{}}
	var hosts [4]string // owned, held by the other's lease, added, excluded
	for i := range hosts {
		srv := httptest.NewServer(pages)
		t.Cleanup(srv.Close)
		u, _ := url.Parse(srv.URL)
		hosts[i] = urls.Host(u)
		// robots.txt known already: a first request needs no time to pass.
		err := other.PutRobots(frontier.RobotsCopy{Host: hosts[i], Status: 404, FetchedAt: start, Expires: start.Add(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
	}
	page := func(i int, p string) frontier.Entry {
		return frontier.Entry{URL: "http://" + hosts[i] + p, Host: hosts[i]}
	}
	const job = "test"
	if err := other.Acquire(frontier.Holder{Job: job, PID: 1, Hostname: "other"}); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Enqueue(job, []frontier.Entry{page(1, "/held")}); err != nil {
		t.Fatal(err)
	}
	held, err := other.Take(job, hosts[1], start, 1)
	if err != nil || len(held) != 1 {
		t.Fatalf("the other worker's lease: %v, %v", held, err)
	}
	if c, err := other.Claim(hosts[0], start, 0); err != nil || !c.OK {
		t.Fatalf("the other worker's claim of %s: %+v, %v", hosts[0], c, err)
	}

	w := &watchedShared{Shared: db.Coordination, refused: make(chan struct{}, 1), claimed: make(chan struct{}, 1), waiting: make(chan struct{}, 1)}
	cfg := fastConfig(t, "http://"+hosts[0]+"/owned")
	cfg.Job, cfg.Clock, cfg.Shared, cfg.Wake = job, clk, w, db.Wakes()
	cfg.AllowPrivate = true // the other worker's URLs are no seeds of this one
	if os.Getenv("OWNDEBUG") != "" {
		cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	var (
		rep    *report.Report
		runErr error
		done   = make(chan struct{})
	)
	go func() {
		defer close(done)
		rep, runErr = crawl.Run(context.Background(), db, cfg)
	}()

	<-w.refused // the other owns the host: the crawl waits for its ownership to end
	if err := other.ReleaseHost(hosts[0]); err != nil {
		t.Fatal(err)
	}
	<-w.claimed // woken by the release
	<-w.waiting // fetched its page; waits for the other's lease
	rule, err := exclude.Parse("http://" + hosts[3] + "/")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.AddExclusion(frontier.Exclusion{Rule: rule.Text}); err != nil {
		t.Fatal(err)
	}
	held[0].State = frontier.Done
	if _, err := other.Record(job, []frontier.Entry{page(2, "/added"), page(3, "/excluded")}, held, nil); err != nil {
		t.Fatal(err)
	}
	<-done
	if runErr != nil {
		t.Fatalf("crawl: %v", runErr)
	}
	if !clk.Now().Equal(start) {
		t.Errorf("the clock moved %s; want it still", clk.Now().Sub(start))
	}
	pages.mu.Lock()
	defer pages.mu.Unlock()
	want := map[string]int{hosts[0] + "/owned": 1, hosts[2] + "/added": 1}
	if len(pages.hits) != len(want) || pages.hits[hosts[0]+"/owned"] != 1 || pages.hits[hosts[2]+"/added"] != 1 {
		t.Errorf("requests %v, want %v: the released host's page and the added page once, nothing of the excluded host", pages.hits, want)
	}
	if rep.Totals.Done != 2 || len(rep.ExcludedBy) != 1 || !slices.Equal(rep.ExcludedBy[0].Hosts, []string{hosts[3]}) {
		t.Errorf("report: %d done, excluded by %+v; want 2 done, host %s excluded by %s", rep.Totals.Done, rep.ExcludedBy, hosts[3], rule.Text)
	}
}
