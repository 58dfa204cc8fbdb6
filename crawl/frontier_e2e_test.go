package crawl_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/clock"
	"github.com/polite-crawler/polite/crawl/crawltest"
	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/store"
)

// gauge counts requests being served at once and the peak.
type gauge struct {
	mu        sync.Mutex
	cur, peak int
}

func (g *gauge) add(d int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.cur += d
	g.peak = max(g.peak, g.cur)
}

func (g *gauge) max() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.peak
}

// hit is one request a watched server saw.
type hit struct {
	path        string
	at          time.Time
	conditional bool
}

// watched is a loopback test server that records what it was asked, in
// order, and how many requests it served at once (its own gauge, and an
// optional one shared with other servers).
type watched struct {
	*httptest.Server
	local  gauge
	global *gauge
	hitLog
}

func watch(t *testing.T, h http.Handler, global *gauge) *watched {
	t.Helper()
	return watchOn(t, nil, h, global)
}

// watchOn is watch with the arrival times read from clk (a run's fake
// clock); nil means the wall clock.
func watchOn(t *testing.T, clk *clock.Fake, h http.Handler, global *gauge) *watched {
	t.Helper()
	now := time.Now
	if clk != nil {
		now = clk.Now
	}
	w := &watched{global: global}
	w.Server = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w.record(r, now())
		w.local.add(1)
		defer w.local.add(-1)
		if w.global != nil {
			w.global.add(1)
			defer w.global.add(-1)
		}
		h.ServeHTTP(rw, r)
	}))
	t.Cleanup(w.Close)
	return w
}

// hitLog records the requests a test server saw.
type hitLog struct {
	mu   sync.Mutex
	hits []hit
}

// record notes r, arrived at at.
func (l *hitLog) record(r *http.Request, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.hits = append(l.hits, hit{r.URL.RequestURI(), at,
		r.Header.Get("If-None-Match") != "" || r.Header.Get("If-Modified-Since") != ""})
}

// log returns the requests so far, robots.txt left out.
func (l *hitLog) log() []hit {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []hit
	for _, h := range l.hits {
		if h.path != "/robots.txt" {
			out = append(out, h)
		}
	}
	return out
}

// count returns how many times path (with query) was requested.
func (l *hitLog) count(path string) int {
	n := 0
	for _, h := range l.log() {
		if h.path == path {
			n++
		}
	}
	return n
}

// key is the server's pacing key, host:port.
func (w *watched) key() string { return w.Listener.Addr().String() }

// flaky serves /fail/CODE/N (CODE for the first N requests of that path,
// then 200; N "always" never recovers), /hang (no answer until the client
// gives up), /reset (the connection is dropped), /big (5000 bytes), and a
// 404 robots.txt. Its 429 and 503 carry no Retry-After.
func flaky() http.Handler {
	var (
		mu   sync.Mutex
		seen = map[string]int{}
	)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.URL.Path]++
		n := seen[r.URL.Path]
		mu.Unlock()
		parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
		switch {
		case r.URL.Path == "/robots.txt":
			http.NotFound(w, r)
		case r.URL.Path == "/hang":
			<-r.Context().Done() // until the client gives up
		case r.URL.Path == "/reset":
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				if tc, ok := conn.(*net.TCPConn); ok {
					tc.SetLinger(0) // RST, not FIN
				}
				conn.Close()
			}
		case r.URL.Path == "/big":
			w.Write([]byte(strings.Repeat("x", 5000)))
		case len(parts) == 3 && parts[0] == "fail":
			code, _ := strconv.Atoi(parts[1])
			limit, err := strconv.Atoi(parts[2])
			if err != nil {
				limit = 1 << 30
			}
			if n <= limit {
				http.Error(w, "failing on purpose", code)
				return
			}
			fmt.Fprintf(w, "recovered after %d failures\n", limit)
		default:
			fmt.Fprintf(w, "page %s\n", r.URL.Path)
		}
	})
}

func mustGet(t *testing.T, db *store.DB, job, rawURL string) frontier.Entry {
	t.Helper()
	e, err := db.Get(job, mustNormalize(t, rawURL))
	if err != nil {
		t.Fatalf("frontier entry %s: %v", rawURL, err)
	}
	return e
}

func TestRetriesAndDeadReasons(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		path         string
		wantState    frontier.State
		wantReason   string
		wantAttempts int
		wantRequests int    // -1: not checked (the client may retry a reset itself; a request may time out unread)
		wantSignal   string // the host's last congestion signal
	}{
		{"404 is dead at once", "/fail/404/always", frontier.Dead, "http-404", 1, 1, ""},
		{"403 is dead at once", "/fail/403/always", frontier.Dead, "http-403", 1, 1, ""},
		{"410 is dead at once", "/fail/410/always", frontier.Dead, "http-410", 1, 1, ""},
		{"500 until max attempts", "/fail/500/always", frontier.Dead, "http-500", 3, 3, ""},
		{"502 twice then fine", "/fail/502/2", frontier.Done, "", 3, 3, ""},
		{"504 once then fine", "/fail/504/1", frontier.Done, "", 2, 2, ""},
		{"503 once, with the pacing penalty", "/fail/503/1", frontier.Done, "", 2, 2, "503"},
		{"429 once, with the pacing penalty", "/fail/429/1", frontier.Done, "", 2, 2, "429"},
		{"503 until max attempts", "/fail/503/always", frontier.Dead, "http-503", 3, 3, "503"},
		{"timeout", "/hang", frontier.Dead, "timeout", 3, -1, ""}, // on a loaded machine 150 ms may pass before the origin reads a request
		{"connection reset", "/reset", frontier.Dead, "reset", 3, -1, ""},
		{"too large is not retried", "/big", frontier.Dead, "too-large", 1, 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // each case has its own server, clock and database
			srv := watch(t, flaky(), nil)
			cfg := fastConfig(t, srv.URL+tt.path)
			cfg.MaxAttempts = 3
			cfg.Timeout = time.Minute // only /hang meets it: a loaded machine may be slow to read a reset
			if tt.path == "/hang" {
				cfg.Timeout = 150 * time.Millisecond
			}
			cfg.MaxBody = 1000
			cfg.Pace.Ceiling = 100 * time.Millisecond
			onFakeClock(t, &cfg) // backoffs and penalties in fake time; the timeout is the wall's
			db := mustOpen(t)

			rep, err := crawl.Run(context.Background(), db, cfg)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			e := mustGet(t, db, cfg.Job, srv.URL+tt.path)
			if e.State != tt.wantState || e.Reason.String() != tt.wantReason || e.Attempts != tt.wantAttempts {
				t.Errorf("entry state %s reason %q attempts %d, want %s %q %d",
					e.State, e.Reason, e.Attempts, tt.wantState, tt.wantReason, tt.wantAttempts)
			}
			if got := srv.count(tt.path); tt.wantRequests >= 0 && got != tt.wantRequests {
				t.Errorf("origin saw %d requests, want %d", got, tt.wantRequests)
			}
			st, _, err := db.Load(srv.key())
			if err != nil {
				t.Fatal(err)
			}
			if st.LastSignal != tt.wantSignal {
				t.Errorf("host's last signal %q, want %q (pacing penalty only for 429/503)", st.LastSignal, tt.wantSignal)
			}
			wantExit := 0
			if tt.wantState == frontier.Dead {
				wantExit = 1
				if len(rep.Dead) != 1 || rep.Dead[0].Reason.String() != tt.wantReason {
					t.Errorf("report dead = %+v, want one with reason %q", rep.Dead, tt.wantReason)
				}
			}
			if rep.ExitCode != wantExit {
				t.Errorf("exit code %d, want %d", rep.ExitCode, wantExit)
			}
			if got, want := rep.Totals.Retries, tt.wantAttempts-1; got != want {
				t.Errorf("report retries %d, want %d", got, want)
			}
		})
	}
}

// newFetcher returns a Fetcher on a new fake clock, and points cfg at both:
// each request takes 1 ms of the clock, which moves by itself whenever the
// run waits on it alone, then is answered in memory by the Fetcher's
// Handler, which the caller sets.
func newFetcher(t *testing.T, cfg *crawl.Config) (*crawltest.Fetcher, *clock.Fake) {
	t.Helper()
	clk := clock.NewFake(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	f := &crawltest.Fetcher{Clock: clk, Latency: time.Millisecond}
	cfg.Fetcher = f
	onClock(t, cfg, clk)
	return f, clk
}

// byHost sends each request to the handler of its host (name only).
type byHost map[string]http.Handler

func (m byHost) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h, ok := m[r.Host]
	if !ok {
		http.Error(w, "no such host", http.StatusBadGateway)
		return
	}
	h.ServeHTTP(w, r)
}

// asked counts the requests a Fetcher answered whose URL starts with
// prefix, robots.txt left out.
func asked(f *crawltest.Fetcher, prefix string) int {
	n := 0
	for _, r := range f.Requests() {
		if strings.HasPrefix(r.URL, prefix) && !strings.HasSuffix(r.URL, "/robots.txt") {
			n++
		}
	}
	return n
}

func TestFailingHostSpendsOnlyTheRetryBudget(t *testing.T) {
	t.Parallel()
	const healthy, failing = "http://healthy.example", "http://failing.example"
	var seeds []string
	for i := 0; i < 10; i++ {
		seeds = append(seeds, fmt.Sprintf("%s/ok/%d", healthy, i), fmt.Sprintf("%s/fail/503/always?n=%d", failing, i))
	}
	cfg := fastConfig(t, seeds...)
	cfg.RetryBase, cfg.RetryRatio = 3, 0.1 // at most 3 + 0.1 x 10 successes = 4 retries
	cfg.MaxAttempts = 5
	cfg.Pace.Ceiling = 40 * time.Millisecond
	db := mustOpen(t)
	// Both hosts answer in memory; the run's length is the clock's time.
	f, clk := newFetcher(t, &cfg)
	f.Handler = byHost{"healthy.example": flaky(), "failing.example": flaky()}

	start := clk.Now()
	rep, err := crawl.Run(context.Background(), db, cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if el := clk.Since(start); el > 3*time.Second {
		t.Errorf("run took %s; a failing host should not hold it", el)
	}
	failed := asked(f, failing+"/")
	if max := 10 + 4; failed > max {
		t.Errorf("failing host got %d requests, want at most %d (10 first tries + 4 retries)", failed, max)
	}
	if rep.Totals.Retries > 4 {
		t.Errorf("report retries %d, want at most 4", rep.Totals.Retries)
	}
	if !contains(rep.BudgetsBound, "retry-budget") {
		t.Errorf("budgets bound %v, want retry-budget", rep.BudgetsBound)
	}
	counts, err := db.Counts(cfg.Job)
	if err != nil {
		t.Fatal(err)
	}
	if counts[frontier.Done] != 10 || counts[frontier.Dead] != 0 || rep.Totals.Waiting != 10 {
		t.Errorf("frontier %v, waiting %d; want 10 done, none dead, the 10 failing URLs waiting", counts, rep.Totals.Waiting)
	}
	if rep.ExitCode != 0 {
		t.Errorf("exit code %d, want 0: a spent budget leaves URLs for the next run", rep.ExitCode)
	}
}

func contains[T ~string](ss []T, s string) bool {
	for _, x := range ss {
		if string(x) == s {
			return true
		}
	}
	return false
}

func TestRedirectsThroughTheFrontier(t *testing.T) {
	t.Parallel()
	origin := crawltest.New(crawltest.Config{Robots: "User-agent: *\nDisallow: /private\n"})
	mux := http.NewServeMux()
	mux.HandleFunc("/to-ftp", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "ftp://files.example/x", http.StatusFound)
	})
	mux.HandleFunc("/to-mailto", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", "mailto:someone@example.org")
		w.WriteHeader(http.StatusMovedPermanently)
	})
	mux.Handle("/", origin)

	tests := []struct {
		name      string
		seed      string
		never     []string // paths never requested
		final     string   // path whose entry is checked
		wantState frontier.State
		reason    string
		wantExit  int
	}{
		{"chain into a disallowed path", "/redirect/3?to=/private/secret", []string{"/private/secret"},
			"/private/secret", frontier.Excluded, "robots", 0},
		{"chain to an allowed path", "/redirect/2?to=/landing", nil, "/landing", frontier.Done, "", 0},
		{"ten hops are followed", "/redirect/9?to=/end", nil, "/end", frontier.Done, "", 0},
		{"eleven are not", "/redirect/10?to=/end", []string{"/end"}, "/redirect/0?to=%2Fend", frontier.Dead, "too-many-redirects", 1},
		{"loop", "/loop/a", nil, "/loop/b", frontier.Dead, "redirect-loop", 1},
		{"ftp scheme refused", "/to-ftp", nil, "/to-ftp", frontier.Dead, "redirect-scheme", 1},
		{"mailto scheme refused", "/to-mailto", nil, "/to-mailto", frontier.Dead, "redirect-scheme", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := watch(t, mux, nil)
			cfg := fastConfig(t, srv.URL+tt.seed)
			onFakeClock(t, &cfg) // the pace between hops in fake time
			db := mustOpen(t)
			rep, err := crawl.Run(context.Background(), db, cfg)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			for _, p := range tt.never {
				if n := srv.count(p); n != 0 {
					t.Errorf("%s was requested %d times, want never", p, n)
				}
			}
			for _, h := range srv.log() {
				if n := srv.count(h.path); n != 1 {
					t.Errorf("%s requested %d times, want once", h.path, n)
				}
			}
			e := mustGet(t, db, cfg.Job, srv.URL+tt.final)
			if e.State != tt.wantState || e.Reason.String() != tt.reason {
				t.Errorf("%s: state %s reason %q, want %s %q", tt.final, e.State, e.Reason, tt.wantState, tt.reason)
			}
			if rep.ExitCode != tt.wantExit {
				t.Errorf("exit code %d, want %d", rep.ExitCode, tt.wantExit)
			}
			seed := mustGet(t, db, cfg.Job, srv.URL+tt.seed)
			if seed.Hops != 0 || seed.LastStatus/100 != 3 {
				t.Errorf("seed entry hops %d status %d, want 0 and a 3xx", seed.Hops, seed.LastStatus)
			}
		})
	}
}

func TestRedirectTargetKeepsDepthAndCountsHops(t *testing.T) {
	t.Parallel()
	_, srv := serve(t, crawltest.Config{})
	cfg := fastConfig(t, srv.URL+"/redirect/2?to=/there")
	onFakeClock(t, &cfg) // the pace between hops in fake time
	db := mustOpen(t)
	if _, err := crawl.Run(context.Background(), db, cfg); err != nil {
		t.Fatal(err)
	}
	e := mustGet(t, db, cfg.Job, srv.URL+"/there")
	if e.State != frontier.Done || e.Depth != 0 || e.Hops != 3 || !strings.HasPrefix(e.Parent, srv.URL+"/redirect/0") {
		t.Errorf("target state %s depth %d hops %d parent %q; want done, depth 0, 3 hops, from /redirect/0",
			e.State, e.Depth, e.Hops, e.Parent)
	}
}

func TestRerunOfAnUnchangedOriginIsConditional(t *testing.T) {
	t.Parallel()
	o, srv := serve(t, crawltest.Config{})
	var seeds []string
	for i := 0; i < 8; i++ {
		seeds = append(seeds, fmt.Sprintf("%s/doc/%d", srv.URL, i))
	}
	cfg := fastConfig(t, seeds...)
	onFakeClock(t, &cfg) // the pace in fake time; the conditional requests go over loopback
	db := mustOpen(t)
	if _, err := crawl.Run(context.Background(), db, cfg); err != nil {
		t.Fatalf("first run: %v", err)
	}
	first := readManifest(t, cfg.OutDir)
	if len(first) != 8 {
		t.Fatalf("first manifest has %d lines, want 8", len(first))
	}
	// Date the bodies back: a body rewritten by the second run would
	// carry a new modification time.
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	sha := map[string]string{}
	for _, m := range first {
		if err := os.Chtimes(filepath.Join(cfg.OutDir, m.File), old, old); err != nil {
			t.Fatal(err)
		}
		sha[m.URL] = m.SHA256
	}
	o.Reset()

	rep, err := crawl.Run(context.Background(), db, cfg) // --refresh 0: re-check everything
	if err != nil {
		t.Fatalf("second run: %v", err)
	}
	st := o.Stats()
	if st.Requests != 8 || st.Conditional != 8 || st.NotModified != 8 {
		t.Errorf("second run: %d requests, %d conditional, %d answered 304; want 8, 8, 8", st.Requests, st.Conditional, st.NotModified)
	}
	if rep.Totals.NotModified != 8 || rep.Totals.Done != 0 || rep.ExitCode != 0 {
		t.Errorf("second run totals %+v exit %d, want 8 not modified, exit 0", rep.Totals, rep.ExitCode)
	}
	second := readManifest(t, cfg.OutDir)
	if len(second) != 8 {
		t.Fatalf("second manifest has %d lines, want 8", len(second))
	}
	for _, m := range second {
		fi, err := os.Stat(filepath.Join(cfg.OutDir, m.File))
		if err != nil {
			t.Errorf("%s: manifest points to %q: %v", m.URL, m.File, err)
			continue
		}
		if m.Status != 304 || m.SHA256 != sha[m.URL] {
			t.Errorf("%s: manifest status %d sha %s, want 304 and the first run's %s", m.URL, m.Status, m.SHA256, sha[m.URL])
		}
		if !fi.ModTime().Equal(old) {
			t.Errorf("%s: body was rewritten (modified %s)", m.URL, fi.ModTime())
		}
	}
}

func TestRefreshSkipsRecentFetches(t *testing.T) {
	t.Parallel()
	const site = "http://site.example"
	cfg := fastConfig(t, site+"/a", site+"/b")
	f, clk := newFetcher(t, &cfg)
	origin := crawltest.New(crawltest.Config{Clock: clk})
	f.Handler = origin
	db := mustOpen(t)
	if _, err := crawl.Run(context.Background(), db, cfg); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name         string
		refresh      time.Duration
		wantRequests int
	}{
		{"fetched within --refresh", time.Hour, 0},
		{"fetched before --refresh", time.Nanosecond, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			origin.Reset()
			clk.Advance(time.Second) // between two runs
			cfg.Revisit.Min = tt.refresh
			rep, err := crawl.Run(context.Background(), db, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if got := origin.Stats().Requests; got != tt.wantRequests {
				t.Errorf("%d requests, want %d", got, tt.wantRequests)
			}
			if rep.ExitCode != 0 || rep.Totals.Waiting != 0 {
				t.Errorf("exit %d waiting %d, want 0 and 0", rep.ExitCode, rep.Totals.Waiting)
			}
		})
	}
}

func TestResumeTakesBackWhatADeadRunLeftInFlight(t *testing.T) {
	t.Parallel()
	const site, host = "http://site.example", "site.example"
	cfg := fastConfig(t, site+"/1", site+"/2", site+"/3", site+"/4")
	f, clk := newFetcher(t, &cfg)
	o := crawltest.New(crawltest.Config{Clock: clk})
	f.Handler = o
	db := mustOpen(t)
	// A run that died: its seeds entered, two taken in flight, one done.
	var es []frontier.Entry
	for _, s := range cfg.Seeds.Lines {
		es = append(es, frontier.Entry{URL: mustNormalize(t, s), Host: host})
	}
	if _, err := db.Enqueue(cfg.Job, es); err != nil {
		t.Fatal(err)
	}
	taken, err := db.Take(cfg.Job, host, clk.Now(), 3)
	if err != nil || len(taken) != 3 {
		t.Fatalf("take = %d entries, %v", len(taken), err)
	}
	taken[0].State, taken[0].FetchedAt = frontier.Done, clk.Now()
	if err := db.Update(taken[:1]); err != nil {
		t.Fatal(err)
	}

	rep, err := crawl.Run(context.Background(), db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	counts, err := db.Counts(cfg.Job)
	if err != nil {
		t.Fatal(err)
	}
	if counts[frontier.Done] != 4 || counts[frontier.InFlight] != 0 || counts[frontier.Queued] != 0 {
		t.Errorf("frontier %v, want 4 done", counts)
	}
	st := o.Stats()
	if n := st.ByPath[mustParse(t, taken[0].URL).RequestURI()]; n != 0 {
		t.Errorf("the entry done before was fetched %d times, want 0 (resume does not refresh)", n)
	}
	if got := st.Requests - st.Robots; got != 3 || rep.Totals.Done != 3 {
		t.Errorf("%d requests, %d done this run; want the 3 left queued or in flight", got, rep.Totals.Done)
	}
}
