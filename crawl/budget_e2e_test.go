package crawl_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/clock"
	"github.com/polite-crawler/polite/crawl/crawltest"
	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/urls"
)

func TestMaxDurationStopsOnTimeAndTheNextRunFinishes(t *testing.T) {
	t.Parallel()
	web := newFakeWeb(t)
	_, srv := web.origin("site.example", crawltest.Config{})
	var seeds []string
	for i := 0; i < 30; i++ {
		seeds = append(seeds, fmt.Sprintf("%s/doc/%d", srv.URL, i))
	}
	cfg := fastConfig(t, seeds...)
	cfg.FloorHosts = map[string]time.Duration{srv.key(): 40 * time.Millisecond}
	cfg.MaxDuration = 300 * time.Millisecond
	cfg.Grace = 500 * time.Millisecond
	web.use(&cfg)
	clk := web.clk
	db := mustOpen(t)

	start := clk.Now()
	rep, err := crawl.Run(context.Background(), db, cfg)
	el := clk.Since(start)
	if err != nil {
		t.Fatalf("first run: %v", err)
	}
	if el > cfg.MaxDuration+cfg.Grace {
		t.Errorf("first run took %s, want about --max-duration %s", el, cfg.MaxDuration)
	}
	done := len(srv.log())
	if done == 0 || done >= 30 {
		t.Fatalf("first run made %d requests; want some, not all 30", done)
	}
	if rep.StopReason != "stopped by max-duration" || !contains(rep.BudgetsBound, "max-duration") {
		t.Errorf("stop reason %q budgets %v, want max-duration", rep.StopReason, rep.BudgetsBound)
	}
	if rep.ExitCode != 0 || rep.Totals.Waiting != 30-rep.Totals.Done {
		t.Errorf("exit %d, %d done, %d waiting; want exit 0 and the other %d waiting", rep.ExitCode, rep.Totals.Done, rep.Totals.Waiting, 30-rep.Totals.Done)
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "max-duration") || !strings.Contains(text.String(), fmt.Sprintf("%d waiting", rep.Totals.Waiting)) {
		t.Errorf("summary does not say which budget bound and how many wait:\n%s", text.String())
	}
	counts, err := db.Counts(cfg.Job)
	if err != nil {
		t.Fatal(err)
	}
	if counts[frontier.InFlight] != 0 {
		t.Errorf("%d entries left in flight after a clean stop", counts[frontier.InFlight])
	}
	firstDone, err := db.Entries(cfg.Job, frontier.Done, 0)
	if err != nil {
		t.Fatal(err)
	}

	// The next run, with no limit, finishes the job without refetching.
	cfg.MaxDuration = 0
	cfg.FloorHosts = nil
	rep, err = crawl.Run(context.Background(), db, cfg)
	if err != nil {
		t.Fatalf("second run: %v", err)
	}
	if rep.Totals.Done != 30-len(firstDone) || rep.Totals.Waiting != 0 {
		t.Errorf("second run: %d done, %d waiting; want %d and 0", rep.Totals.Done, rep.Totals.Waiting, 30-len(firstDone))
	}
	for _, e := range firstDone {
		if n := srv.count(mustParse(t, e.URL).RequestURI()); n != 1 {
			t.Errorf("%s requested %d times over both runs, want once", e.URL, n)
		}
	}
	if counts, _ := db.Counts(cfg.Job); counts[frontier.Done] != 30 {
		t.Errorf("frontier after both runs %v, want 30 done", counts)
	}
}

func TestMaxDurationIsAHardStopWithSlowRequestsInFlight(t *testing.T) {
	t.Parallel()
	// The origin answers in memory on the crawl's fake clock: its /slow
	// page holds the one worker for 4 s of fake time.
	clk := clock.NewFake(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	origin := crawltest.New(crawltest.Config{Clock: clk})
	const site = "http://slow.example"
	cfg := fastConfig(t, site+"/slow/4000", site+"/fast")
	cfg.MaxDuration = 200 * time.Millisecond
	cfg.Grace = 100 * time.Millisecond
	cfg.Concurrency = 1 // every worker busy with the slow request
	cfg.Fetcher = &crawltest.Fetcher{Clock: clk, Handler: origin, Latency: time.Millisecond}
	crawltest.OnClock(t, &cfg, clk)
	db := mustOpen(t)

	start := clk.Now()
	rep, err := crawl.Run(context.Background(), db, cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if el := clk.Since(start); el > cfg.MaxDuration+cfg.Grace {
		t.Errorf("run took %s with --max-duration %s and grace %s", el, cfg.MaxDuration, cfg.Grace)
	}
	slow := mustGet(t, db, cfg.Job, site+"/slow/4000")
	if slow.State != frontier.Queued || slow.Attempts != 0 {
		t.Errorf("the cut request's entry: state %s attempts %d, want queued with 0 attempts", slow.State, slow.Attempts)
	}
	if rep.Totals.Waiting != 2 || rep.ExitCode != 0 {
		t.Errorf("waiting %d exit %d, want 2 and 0", rep.Totals.Waiting, rep.ExitCode)
	}
}

func TestBudgetsBind(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		set    func(*crawl.Config)
		budget string
		check  func(t *testing.T, a, b *fakeSite)
	}{
		{"max-requests", func(c *crawl.Config) { c.MaxRequests = 7 }, "max-requests", func(t *testing.T, a, b *fakeSite) {
			if n := len(a.hits) + len(b.hits); n > 7 {
				t.Errorf("%d requests, want at most 7", n)
			}
		}},
		{"max-per-host", func(c *crawl.Config) { c.MaxPerHost = 4 }, "max-per-host", func(t *testing.T, a, b *fakeSite) {
			if len(a.hits) != 4 || len(b.hits) != 4 {
				t.Errorf("hosts got %d and %d requests, want 4 each", len(a.hits), len(b.hits))
			}
		}},
		{"max-bytes", func(c *crawl.Config) { c.MaxBytes = 600 }, "max-bytes", func(t *testing.T, a, b *fakeSite) {
			if n := len(a.log()) + len(b.log()); n < 3 || n > 8 {
				t.Errorf("%d pages fetched, want the handful that 600 bytes allow", n)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // each case has its own web, clock and database
			web := newFakeWeb(t)
			_, a := web.origin("a.example", crawltest.Config{})
			_, b := web.origin("b.example", crawltest.Config{})
			var seeds []string
			for i := 0; i < 10; i++ {
				seeds = append(seeds, fmt.Sprintf("%s/doc/%d", a.URL, i), fmt.Sprintf("%s/doc/%d", b.URL, i))
			}
			cfg := fastConfig(t, seeds...)
			tt.set(&cfg)
			web.use(&cfg)
			db := mustOpen(t)
			rep, err := crawl.Run(context.Background(), db, cfg)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			tt.check(t, a, b)
			if !contains(rep.BudgetsBound, tt.budget) {
				t.Errorf("budgets bound %v, want %s", rep.BudgetsBound, tt.budget)
			}
			if rep.ExitCode != 0 || rep.Totals.Waiting == 0 || rep.Totals.Waiting+rep.Totals.Done != 20 {
				t.Errorf("exit %d, %d done, %d waiting; want exit 0 and the rest waiting", rep.ExitCode, rep.Totals.Done, rep.Totals.Waiting)
			}
			var text bytes.Buffer
			rep.WriteText(&text)
			if !strings.Contains(text.String(), tt.budget) {
				t.Errorf("summary does not name %s:\n%s", tt.budget, text.String())
			}
		})
	}
}

func TestSlowHostDoesNotHoldTheFastOne(t *testing.T) {
	t.Parallel()
	// Pacing, --max-duration and the arrival times asserted are all on
	// the fake web's clock.
	web := newFakeWeb(t)
	_, slow := web.origin("slow.example", crawltest.Config{})
	_, fast := web.origin("fast.example", crawltest.Config{})
	var seeds []string
	for i := 0; i < 20; i++ {
		seeds = append(seeds, fmt.Sprintf("%s/s/%d", slow.URL, i), fmt.Sprintf("%s/f/%d", fast.URL, i))
	}
	cfg := fastConfig(t, seeds...)
	web.use(&cfg)
	const slowDelay = 150 * time.Millisecond
	cfg.FloorHosts = map[string]time.Duration{slow.key(): slowDelay}
	cfg.MaxDuration = 700 * time.Millisecond
	db := mustOpen(t)
	rep, err := crawl.Run(context.Background(), db, cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	fl, sl := fast.log(), slow.log()
	if len(fl) != 20 {
		t.Fatalf("fast host got %d of its 20 URLs in %s", len(fl), cfg.MaxDuration)
	}
	// The fast host ran at its own pace: all 20 in far less than the
	// 20 x 150ms the slow host's pace would take.
	if span := fl[19].at.Sub(fl[0].at); span > 20*slowDelay/2 {
		t.Errorf("fast host's 20 requests spanned %s, want well under %s", span, 20*slowDelay)
	}
	// Meanwhile the slow host kept its own pace.
	slowBefore := 0
	for _, h := range sl {
		if !h.at.After(fl[19].at) {
			slowBefore++
		}
	}
	if limit := int(fl[19].at.Sub(fl[0].at)/slowDelay) + 2; slowBefore > limit {
		t.Errorf("slow host got %d requests while the fast one finished, want at most %d", slowBefore, limit)
	}
	for i := 1; i < len(sl); i++ {
		if gap := sl[i].at.Sub(sl[i-1].at); gap < slowDelay-10*time.Millisecond {
			t.Errorf("slow host requests %d and %d only %s apart, want its %s", i-1, i, gap, slowDelay)
		}
	}
	if rep.Totals.Waiting == 0 {
		t.Errorf("the slow host finished too; the test shows nothing")
	}
}

func TestInFlightCaps(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                 string
		concurrency, perHost int
		hosts                int
		wantHost, wantAll    int // cap per host; largest in flight in all
	}{
		{"one per host by default", 16, 1, 3, 1, 3},
		{"per-host 2", 16, 2, 2, 2, 4},
		{"global cap", 2, 2, 3, 2, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // each case has its own web, clock and gauges
			// Each page takes 60 ms of the fake clock, far longer than
			// the 5 ms pace, so that requests overlap as much as the
			// caps allow, and exactly that much: the clock moves only
			// once every request started has reached its wait.
			web := newFakeWeb(t)
			var (
				srvs  []*fakeSite
				seeds []string
			)
			for i := 0; i < tt.hosts; i++ {
				_, s := web.origin(fmt.Sprintf("h%d.example", i), crawltest.Config{})
				srvs = append(srvs, s)
				for j := 0; j < 6; j++ {
					seeds = append(seeds, fmt.Sprintf("%s/slow/60?n=%d", s.URL, j))
				}
			}
			cfg := fastConfig(t, seeds...)
			cfg.Concurrency, cfg.PerHost = tt.concurrency, tt.perHost
			cfg.Pace.Start, cfg.Pace.Floor = 5*time.Millisecond, 5*time.Millisecond
			web.use(&cfg)
			all := &web.all
			db := mustOpen(t)
			rep, err := crawl.Run(context.Background(), db, cfg)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			for _, s := range srvs {
				if got := s.local.max(); got > tt.wantHost {
					t.Errorf("%s: %d in flight at once, want at most %d", s.key(), got, tt.wantHost)
				}
			}
			if got := all.max(); got != tt.wantAll {
				t.Errorf("at most %d in flight over all hosts, want %d", got, tt.wantAll)
			}
			if rep.Totals.Done != 6*tt.hosts {
				t.Errorf("%d done, want %d", rep.Totals.Done, 6*tt.hosts)
			}
		})
	}
}

func TestHighestPriorityFirstWithinAHost(t *testing.T) {
	t.Parallel()
	web := newFakeWeb(t)
	_, srv := web.origin("site.example", crawltest.Config{})
	cfg := fastConfig(t)
	for i, p := range []int{0, 5, -1, 9, 5, 0} {
		cfg.Seeds.Lines = append(cfg.Seeds.Lines, fmt.Sprintf("%s/p%d/%d %d", srv.URL, p, i, p))
	}
	web.use(&cfg)
	db := mustOpen(t)
	if _, err := crawl.Run(context.Background(), db, cfg); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range srv.log() {
		got = append(got, h.path)
	}
	want := []string{"/p9/3", "/p5/1", "/p5/4", "/p0/0", "/p0/5", "/p-1/2"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("order %v, want %v", got, want)
	}
}

func TestLinksFollowedToDepthWithinScope(t *testing.T) {
	t.Parallel()
	elsewhere := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "elsewhere")
	})
	const otherURL = "http://other.example"
	site := http.NewServeMux()
	site.HandleFunc("/robots.txt", http.NotFound)
	site.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		n := 0
		fmt.Sscanf(r.URL.Path, "/p/%d", &n)
		fmt.Fprintf(w, `<a href="/p/%d">next</a> <a href="%s/x">away</a> <a rel="nofollow" href="/secret">no</a>`, n+1, otherURL)
	})
	tests := []struct {
		name      string
		depth     int
		scope     urls.Scope
		wantSite  []string
		wantOther int
	}{
		{"depth 0 fetches the seed only", 0, urls.ScopeHost, []string{"/p/0"}, 0},
		{"depth 2 within the host", 2, urls.ScopeHost, []string{"/p/0", "/p/1", "/p/2"}, 0},
		{"depth 1 any host", 1, urls.ScopeAny, []string{"/p/0", "/p/1"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // each case has its own web, clock and database
			web := newFakeWeb(t)
			srv := web.add("site.example", site)
			other := web.add("other.example", elsewhere)
			cfg := fastConfig(t, srv.URL+"/p/0")
			cfg.Depth, cfg.Scope = tt.depth, tt.scope
			web.use(&cfg)
			db := mustOpen(t)
			if _, err := crawl.Run(context.Background(), db, cfg); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range srv.log() {
				got = append(got, h.path)
			}
			if strings.Join(got, " ") != strings.Join(tt.wantSite, " ") {
				t.Errorf("site requests %v, want %v", got, tt.wantSite)
			}
			if n := len(other.log()); n != tt.wantOther {
				t.Errorf("other host got %d requests, want %d", n, tt.wantOther)
			}
		})
	}
}

func TestHostTheSiteKeepsAwayDoesNotBlockTheNextPass(t *testing.T) {
	t.Parallel()
	web := newFakeWeb(t)
	healthy, healthySrv := web.origin("healthy.example", crawltest.Config{})
	_, awaySrv := web.origin("away.example", crawltest.Config{Robots: "User-agent: *\nCrawl-delay: 600\n"})
	cfg := fastConfig(t, healthySrv.URL+"/a", healthySrv.URL+"/b", awaySrv.URL+"/x", awaySrv.URL+"/y")
	web.use(&cfg)
	db := mustOpen(t)

	rep, err := crawl.Run(context.Background(), db, cfg)
	if err != nil {
		t.Fatalf("first run: %v", err)
	}
	if rep.ExitCode != 0 || rep.Totals.Done != 2 || rep.Totals.Waiting != 2 {
		t.Fatalf("first run: exit %d, %d done, %d waiting; want 0, 2, 2", rep.ExitCode, rep.Totals.Done, rep.Totals.Waiting)
	}
	away := mustGet(t, db, cfg.Job, awaySrv.URL+"/x")
	if away.State != frontier.Deferred || !strings.Contains(away.Reason.String(), "Crawl-delay") {
		t.Errorf("URL of the skipped host: state %s reason %q, want deferred with the Crawl-delay", away.State, away.Reason)
	}

	// The next run is a new pass: it re-checks what was done and adds the
	// new seed; the deferred host is tried again (and skipped again).
	healthy.Reset()
	cfg.Seeds.Lines = append(cfg.Seeds.Lines, healthySrv.URL+"/new")
	rep, err = crawl.Run(context.Background(), db, cfg)
	if err != nil {
		t.Fatalf("second run: %v", err)
	}
	st := healthy.Stats()
	if st.ByPath["/a"] != 1 || st.ByPath["/b"] != 1 || st.ByPath["/new"] != 1 || st.Conditional != 2 {
		t.Errorf("second run asked the healthy host %v (%d conditional); want /a and /b re-checked conditionally and /new fetched", st.ByPath, st.Conditional)
	}
	if rep.Totals.NotModified != 2 || rep.Totals.Done != 1 || rep.Totals.Waiting != 2 {
		t.Errorf("second run: %d not modified, %d done, %d waiting; want 2, 1, 2", rep.Totals.NotModified, rep.Totals.Done, rep.Totals.Waiting)
	}
}

// A link may not leave --scope by redirecting; a seed's redirect may.
func TestRedirectOfALinkStaysInScope(t *testing.T) {
	t.Parallel()
	web := newFakeWeb(t)
	other := web.add("other.example", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "elsewhere")
	}))
	site := http.NewServeMux()
	site.HandleFunc("/robots.txt", http.NotFound)
	site.HandleFunc("/go", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/x", http.StatusFound)
	})
	site.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<a href="/go">out by a redirect</a>`)
	})
	srv := web.add("site.example", site)

	cfg := fastConfig(t, srv.URL+"/")
	cfg.Depth, cfg.Scope = 2, urls.ScopeHost
	web.use(&cfg)
	if _, err := crawl.Run(context.Background(), mustOpen(t), cfg); err != nil {
		t.Fatal(err)
	}
	if n := len(other.log()); n != 0 {
		t.Errorf("a link's redirect led %d requests out of --scope host", n)
	}

	cfg = fastConfig(t, srv.URL+"/go")
	web.use(&cfg)
	if _, err := crawl.Run(context.Background(), mustOpen(t), cfg); err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, h := range other.log() {
		paths = append(paths, h.path)
	}
	if !strings.Contains(strings.Join(paths, " "), "/x") {
		t.Errorf("a seed's redirect to another host was not followed: other host got %v", paths)
	}
}

// TestEntriesTakenAheadAreLeftQueued: a crawl alone takes the entries of
// the next hosts of the ring with the host whose turn it is (one commit
// for many); when a budget stops the run before their turn, what they
// hold goes back to the queue, and the next run fetches each page once.
func TestEntriesTakenAheadAreLeftQueued(t *testing.T) {
	t.Parallel()
	web := newFakeWeb(t)
	const hosts, pages = 30, 3
	var seeds []string
	var sites []*fakeSite
	for h := range hosts {
		_, srv := web.origin(fmt.Sprintf("site%d.example", h), crawltest.Config{})
		sites = append(sites, srv)
		for p := range pages {
			seeds = append(seeds, fmt.Sprintf("%s/doc/%d", srv.URL, p))
		}
	}
	cfg := fastConfig(t, seeds...)
	cfg.MaxRequests = hosts + 10 // every robots.txt, and ten pages
	web.use(&cfg)
	db := mustOpen(t)
	rep, err := crawl.Run(context.Background(), db, cfg)
	if err != nil {
		t.Fatalf("first run: %v", err)
	}
	counts, err := db.Counts(cfg.Job)
	if err != nil {
		t.Fatal(err)
	}
	if counts[frontier.InFlight] != 0 || counts[frontier.Done]+counts[frontier.Queued] != hosts*pages || rep.Totals.Done == 0 {
		t.Errorf("after the budget: %v; want none in flight, every page done or queued, some done", counts)
	}
	cfg.MaxRequests = 0
	if _, err := crawl.Run(context.Background(), db, cfg); err != nil {
		t.Fatalf("second run: %v", err)
	}
	if counts, _ := db.Counts(cfg.Job); counts[frontier.Done] != hosts*pages {
		t.Errorf("after the second run: %v; want all %d done", counts, hosts*pages)
	}
	for _, s := range sites {
		for p := range pages {
			if n := s.count(fmt.Sprintf("/doc/%d", p)); n != 1 {
				t.Errorf("%s/doc/%d fetched %d times over both runs, want once", s.URL, p, n)
			}
		}
	}
}
