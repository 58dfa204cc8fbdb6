package crawl_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/frontier"
)

// answering is an origin whose answer to a path is decided by the test;
// it counts requests per path.
type answering struct {
	mu     sync.Mutex
	counts map[string]int
	answer func(path string, n int) (status int, retryAfter string)
}

func (s *answering) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.counts[r.URL.Path]++
	n := s.counts[r.URL.Path]
	s.mu.Unlock()
	if r.URL.Path == "/robots.txt" {
		http.NotFound(w, r)
		return
	}
	status, ra := s.answer(r.URL.Path, n)
	if ra != "" {
		w.Header().Set("Retry-After", ra)
	}
	w.WriteHeader(status)
	fmt.Fprintf(w, "%s\n", r.URL.Path)
}

func (s *answering) count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[path]
}

func (s *answering) total() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.counts {
		n += c
	}
	return n
}

// answeringSite makes an answering origin the site of host name on web.
func answeringSite(web *fakeWeb, name string, answer func(path string, n int) (int, string)) (*answering, *fakeSite) {
	s := &answering{counts: map[string]int{}, answer: answer}
	return s, web.add(name, s)
}

// A Retry-After longer than --max-retry-after defers the host, and the
// next run, started at once, still leaves it alone: the hold is kept.
func TestLongRetryAfterHoldsTheHostAcrossRuns(t *testing.T) {
	t.Parallel()
	web := newFakeWeb(t)
	s, srv := answeringSite(web, "held.example", func(path string, _ int) (int, string) {
		if path == "/ra" {
			return 429, "3600"
		}
		return 200, ""
	})
	cfg := fastConfig(t, srv.URL+"/p1", srv.URL+"/ra", srv.URL+"/p2", srv.URL+"/p3")
	web.use(&cfg)
	clk := web.clk
	db := mustOpen(t)
	rep, err := crawl.Run(context.Background(), db, cfg)
	if err != nil {
		t.Fatalf("first run: %v", err)
	}
	if s.count("/ra") != 1 || s.count("/p2") != 0 || s.count("/p3") != 0 {
		t.Fatalf("first run requested /ra %d, /p2 %d, /p3 %d times; want 1, 0, 0", s.count("/ra"), s.count("/p2"), s.count("/p3"))
	}
	if len(rep.Hosts) != 1 || !strings.HasPrefix(rep.Hosts[0].Stopped.String(), "deferred") {
		t.Errorf("first run: host stopped %q, want deferred", rep.Hosts[0].Stopped)
	}
	e, err := db.Get("test", srv.URL+"/ra")
	if err != nil || e.State != frontier.Deferred || e.NextAt.Before(clk.Now().Add(59*time.Minute)) {
		t.Errorf("/ra after the first run = %+v, %v; want deferred, not before an hour from now", e, err)
	}

	before := s.total()
	rep, err = crawl.Run(context.Background(), db, cfg)
	if err != nil {
		t.Fatalf("second run: %v", err)
	}
	if got := s.total() - before; got != 0 {
		t.Errorf("second run, started at once, made %d requests to a host that asked for an hour's rest", got)
	}
	if len(rep.Hosts) != 1 || !strings.HasPrefix(rep.Hosts[0].Stopped.String(), "deferred") || rep.ExitCode != 0 {
		t.Errorf("second run: host stopped %q, exit %d; want deferred and exit 0", rep.Hosts[0].Stopped, rep.ExitCode)
	}
}

// A 429 without Retry-After near --max-duration is throttling, not a
// reason to give the host up: the run stops at its deadline with the rest
// queued, and the next run resumes it without refetching what was done.
func TestThrottlingNearTheDeadlineLeavesURLsToResume(t *testing.T) {
	t.Parallel()
	var throttle atomic.Bool
	throttle.Store(true)
	var served atomic.Int32
	web := newFakeWeb(t)
	s, srv := answeringSite(web, "busy.example", func(path string, n int) (int, string) {
		if throttle.Load() && served.Load() >= 3 {
			return 429, ""
		}
		served.Add(1)
		return 200, ""
	})
	var seeds []string
	for i := 0; i < 12; i++ {
		seeds = append(seeds, fmt.Sprintf("%s/p/%d", srv.URL, i))
	}
	cfg := fastConfig(t, seeds...)
	cfg.MaxDuration = 600 * time.Millisecond
	cfg.MaxAttempts = 50
	web.use(&cfg)
	db := mustOpen(t)
	rep, err := crawl.Run(context.Background(), db, cfg)
	if err != nil {
		t.Fatalf("first run: %v", err)
	}
	if rep.StopReason != "stopped by max-duration" {
		t.Errorf("first run stop reason %q, want stopped by max-duration", rep.StopReason)
	}
	counts, err := db.Counts("test")
	if err != nil {
		t.Fatal(err)
	}
	if counts[frontier.Deferred] != 0 || counts[frontier.Queued] == 0 || counts[frontier.Done] != 3 {
		t.Fatalf("frontier after the first run = %v, want 3 done, the rest queued, none deferred", counts)
	}

	throttle.Store(false)
	cfg.MaxDuration = 0
	if _, err := crawl.Run(context.Background(), db, cfg); err != nil {
		t.Fatalf("second run: %v", err)
	}
	for _, u := range seeds {
		path := strings.TrimPrefix(u, srv.URL)
		e, err := db.Get("test", u)
		if err != nil || e.State != frontier.Done {
			t.Errorf("%s after the second run: %+v, %v; want done", path, e.State, err)
		}
	}
	ok := 0
	for i := 0; i < 12; i++ {
		if s.count(fmt.Sprintf("/p/%d", i)) >= 1 {
			ok++
		}
	}
	if ok != 12 || served.Load() != 12 {
		t.Errorf("200s served %d for %d paths, want 12 for 12: the resume refetched what was done", served.Load(), ok)
	}
}

// A spent request budget ends the run at once, not when the host's pace
// (here a 20 s Retry-After) would next allow a request.
func TestSpentBudgetStopsAtOnce(t *testing.T) {
	t.Parallel()
	web := newFakeWeb(t)
	_, srv := answeringSite(web, "site.example", func(path string, _ int) (int, string) {
		if path == "/ra" {
			return 429, "20"
		}
		return 200, ""
	})
	cfg := fastConfig(t, srv.URL+"/p1", srv.URL+"/ra", srv.URL+"/p2")
	cfg.MaxRequests = 3 // robots.txt, /p1, /ra
	web.use(&cfg)
	clk := web.clk
	start := clk.Now()
	rep, err := crawl.Run(context.Background(), mustOpen(t), cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if took := clk.Since(start); took > 3*time.Second {
		t.Errorf("run took %s after its budget was spent, want it to stop at once", took)
	}
	if rep.StopReason != "stopped by max-requests" || rep.ExitCode != 0 {
		t.Errorf("stop reason %q exit %d, want stopped by max-requests, exit 0", rep.StopReason, rep.ExitCode)
	}
}
