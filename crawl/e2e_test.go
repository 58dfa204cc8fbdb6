package crawl_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/clock"
	"github.com/polite-crawler/polite/crawl/crawltest"
	"github.com/polite-crawler/polite/crawl/report"
	"github.com/polite-crawler/polite/crawl/urls"
)

// The fixtures crawl's end-to-end tests share with crawl/e2etest.
var (
	fastConfig = crawltest.FastConfig
	onClock    = crawltest.OnClock
	mustOpen   = crawltest.OpenDB
	serve      = crawltest.Start
)

// onFakeClock runs cfg on a fake clock that moves to the next timer
// whenever the run waits on time alone, so that what would take seconds
// of pacing, Retry-After or --max-duration takes milliseconds; time
// asserted is the clock's. The clock starts at the wall clock's now.
func onFakeClock(t *testing.T, cfg *crawl.Config) *clock.Fake {
	t.Helper()
	clk := clock.NewFake(time.Now())
	onClock(t, cfg, clk)
	return clk
}

// fakeT0 is when a test's fake clock starts.
var fakeT0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// fakeWeb is the web a crawl sees through a crawltest.Fetcher: sites by
// host name (http://a.example), answered in memory on one fake clock; no
// socket is opened. Each request takes Fetcher.Latency of the clock (1 ms
// unless the test sets another) before its site sees it. Each site
// records what it was asked, in order, at the clock's time, and how many
// requests it served at once; all counts them over every site.
type fakeWeb struct {
	t       testing.TB
	clk     *clock.Fake
	fetcher *crawltest.Fetcher
	all     gauge

	mu    sync.Mutex
	sites map[string]*fakeSite
}

// newFakeWeb returns a web with no site yet on a new fake clock standing
// at fakeT0.
func newFakeWeb(t testing.TB) *fakeWeb {
	w := &fakeWeb{t: t, clk: clock.NewFake(fakeT0), sites: map[string]*fakeSite{}}
	w.fetcher = &crawltest.Fetcher{Clock: w.clk, Handler: http.HandlerFunc(w.serve), Latency: time.Millisecond}
	return w
}

// use points cfg at the web: its requests go to the web's Fetcher, and
// its clock is the web's, moving by itself whenever the run waits on it
// alone (crawltest.OnClock).
func (w *fakeWeb) use(cfg *crawl.Config) {
	w.t.Helper()
	cfg.Fetcher = w.fetcher
	onClock(w.t, cfg, w.clk)
}

// add makes h the site of host name.
func (w *fakeWeb) add(name string, h http.Handler) *fakeSite {
	s := &fakeSite{URL: "http://" + name, name: name, clk: w.clk, h: h, all: &w.all}
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, dup := w.sites[name]; dup {
		w.t.Fatalf("fake web: two sites named %s", name)
	}
	w.sites[name] = s
	return s
}

// origin makes a crawltest.Origin on the web's clock the site of host
// name: its token bucket, Retry-After and waits (latency, queueing,
// /slow/N) run in fake time.
func (w *fakeWeb) origin(name string, cfg crawltest.Config) (*crawltest.Origin, *fakeSite) {
	cfg.Clock = w.clk
	o := crawltest.New(cfg)
	return o, w.add(name, o)
}

// serve hands a request to the site of its host; a request to a host the
// web has no site for fails the test.
func (w *fakeWeb) serve(rw http.ResponseWriter, r *http.Request) {
	w.mu.Lock()
	s := w.sites[r.Host]
	w.mu.Unlock()
	if s == nil {
		w.t.Errorf("fake web: request to %s, a host it has no site for", r.URL)
		http.Error(rw, "no such site", http.StatusBadGateway)
		return
	}
	s.ServeHTTP(rw, r)
}

// fakeSite is one host of a fakeWeb; it records requests as watched does.
type fakeSite struct {
	URL   string // http://name
	name  string
	clk   *clock.Fake
	h     http.Handler
	local gauge
	all   *gauge
	hitLog
}

func (s *fakeSite) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	s.record(r, s.clk.Now())
	s.local.add(1)
	defer s.local.add(-1)
	s.all.add(1)
	defer s.all.add(-1)
	s.h.ServeHTTP(rw, r)
}

// key is the site's pacing key, its host name.
func (s *fakeSite) key() string { return s.name }

func mustNormalize(t *testing.T, s string) string {
	t.Helper()
	u, err := urls.Normalize(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

type manifestLine struct {
	URL      string `json:"url"`
	Status   int    `json:"status"`
	File     string `json:"file"`
	SHA256   string `json:"sha256"`
	Bytes    int64  `json:"bytes"`
	Attempts int    `json:"attempts"`
}

func readManifest(t *testing.T, dir string) []manifestLine {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "manifest.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []manifestLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m manifestLine
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("manifest line %q: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	return out
}

func TestCrawlTwoOriginsOneThrottling(t *testing.T) {
	t.Parallel()
	// The whole path over loopback: robots.txt, 429 with Retry-After and
	// the bodies written as served go through polite's HTTP client. The
	// crawl's pacing and the busy origin's bucket run on one fake clock,
	// which stands still while a request is on the wire. It starts at
	// fakeT0, not at the wall clock's now on which the HTTP client notes
	// when a request left: the pace must not take one clock for the other.
	robotsTxt := "User-agent: *\nDisallow: /private\n"
	clk := clock.NewFake(fakeT0)
	calm, calmSrv := serve(t, crawltest.Config{Robots: robotsTxt})
	busy, busySrv := serve(t, crawltest.Config{Robots: robotsTxt, Rate: 20, Burst: 1, RetryAfter: time.Second, Clock: clk})

	var seeds []string
	for i := 0; i < 6; i++ {
		seeds = append(seeds, fmt.Sprintf("%s/doc/%d", calmSrv.URL, i), fmt.Sprintf("%s/doc/%d", busySrv.URL, i))
	}
	seeds = append(seeds, calmSrv.URL+"/private/secret", busySrv.URL+"/private/x")
	cfg := fastConfig(t, seeds...)
	onClock(t, &cfg, clk)
	cfg.Pace.Start = 5 * time.Millisecond // start well above the busy origin's 20/s
	db := mustOpen(t)

	rep, err := crawl.Run(context.Background(), db, cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	cs, bs := calm.Stats(), busy.Stats()
	if cs.Disallowed != 0 || bs.Disallowed != 0 {
		t.Errorf("requests to disallowed paths: calm %d, busy %d; want 0", cs.Disallowed, bs.Disallowed)
	}
	if bs.ByStatus[429] == 0 {
		t.Fatalf("the busy origin never answered 429 (stats %+v); the test does not test throttling", bs.ByStatus)
	}
	if rep.Totals.Done != 12 || rep.Totals.Excluded != 2 || rep.Totals.Dead != 0 || rep.ExitCode != 0 {
		t.Errorf("totals %+v exit %d, want 12 done, 2 excluded, 0 dead, exit 0", rep.Totals, rep.ExitCode)
	}

	// The report agrees with the origins' own counters.
	byHost := map[string]*report.HostStats{}
	for _, h := range rep.Hosts {
		byHost[h.Host] = h
	}
	for _, c := range []struct {
		srv   *httptest.Server
		stats crawltest.Stats
	}{{calmSrv, cs}, {busySrv, bs}} {
		h := byHost[c.srv.Listener.Addr().String()]
		if h == nil {
			t.Fatalf("no report for %s", c.srv.URL)
		}
		if h.Requests != c.stats.Requests || h.S429 != c.stats.ByStatus[429] || h.S2xx != c.stats.ByStatus[200] {
			t.Errorf("%s: report requests %d 2xx %d 429 %d; origin requests %d 200 %d 429 %d",
				h.Host, h.Requests, h.S2xx, h.S429, c.stats.Requests, c.stats.ByStatus[200], c.stats.ByStatus[429])
		}
		if h.Excluded != 1 {
			t.Errorf("%s: excluded %d, want 1", h.Host, h.Excluded)
		}
	}
	busyHost := byHost[busySrv.Listener.Addr().String()]
	if busyHost.DelayEndS <= cfg.Pace.Start.Seconds() {
		t.Errorf("busy host delay at end %.3fs, want above the start %.3fs", busyHost.DelayEndS, cfg.Pace.Start.Seconds())
	}

	// The raised delay is in the database.
	st, ok, err := db.Load(busySrv.Listener.Addr().String())
	if err != nil || !ok || st.Delay <= cfg.Pace.Start {
		t.Errorf("stored state of the busy host = %+v, %v, %v; want a delay above %s", st, ok, err, cfg.Pace.Start)
	}

	// Manifest and bodies: one line per URL, bytes as served.
	lines := readManifest(t, cfg.OutDir)
	if len(lines) != 12 {
		t.Errorf("manifest has %d lines, want 12", len(lines))
	}
	for _, m := range lines {
		u := mustParse(t, m.URL)
		want := crawltest.Body(u.RequestURI())
		got, err := os.ReadFile(filepath.Join(cfg.OutDir, m.File))
		if err != nil {
			t.Errorf("%s: %v", m.URL, err)
			continue
		}
		if !bytes.Equal(got, want) || m.Bytes != int64(len(want)) || m.Status != 200 {
			t.Errorf("%s: body on disk differs from what was served (status %d, %d bytes, want %d)", m.URL, m.Status, len(got), len(want))
		}
	}
	if _, err := os.Stat(filepath.Join(cfg.OutDir, "report.json")); err != nil {
		t.Errorf("report.json: %v", err)
	}
}

func mustParse(t *testing.T, s string) interface{ RequestURI() string } {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// A 200 whose body asks to slow down (--slow-down-pattern) raises the
// host's delay one step and is kept as a success, not retried.
func TestSlowDownPatternIsAMildCongestionSignal(t *testing.T) {
	t.Parallel()
	run := func(t *testing.T, pattern string) (*report.Report, crawltest.Stats) {
		web := newFakeWeb(t)
		o, srv := web.origin("site.example", crawltest.Config{})
		cfg := fastConfig(t, srv.URL+"/softblock", srv.URL+"/a", srv.URL+"/b")
		re, err := crawl.CompileSlowDown(pattern)
		if err != nil {
			t.Fatal(err)
		}
		cfg.SlowDown = re
		web.use(&cfg)
		rep, err := crawl.Run(context.Background(), mustOpen(t), cfg)
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		return rep, o.Stats()
	}
	plain, plainStats := run(t, "")
	soft, softStats := run(t, "(?i)slow down")
	for name, st := range map[string]crawltest.Stats{"without pattern": plainStats, "with pattern": softStats} {
		if got := st.ByPath["/softblock"]; got != 1 {
			t.Errorf("%s: /softblock requested %d times, want 1 (a soft block is not retried)", name, got)
		}
	}
	if soft.Totals.Done != 3 || soft.Totals.Retries != 0 {
		t.Errorf("with pattern: totals %+v, want 3 done and no retries", soft.Totals)
	}
	if len(plain.Hosts) != 1 || len(soft.Hosts) != 1 {
		t.Fatalf("want one host in each report")
	}
	if got, base := soft.Hosts[0].DelayMaxS, plain.Hosts[0].DelayMaxS; got <= base {
		t.Errorf("highest delay with the pattern %.3fs, without %.3fs: want the soft block to raise it", got, base)
	}
}
