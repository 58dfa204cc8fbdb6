package crawl_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/clock"
	"github.com/polite-crawler/polite/crawl/crawltest"
	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/report"
	"github.com/polite-crawler/polite/robots"
)

// privateRules is the robots.txt most tests serve.
const privateRules = "User-agent: *\nDisallow: /private\n"

// scripted is a crawltest origin whose robots.txt (and /r/N, for redirect
// chains) is answered by a script; every other path goes to the origin,
// whose Stats count it. It counts the robots.txt requests itself.
type scripted struct {
	*crawltest.Origin
	srv    *httptest.Server
	answer func(n int, w http.ResponseWriter, r *http.Request) // n: 1 for the first robots.txt request
	now    func() time.Time                                    // the origin's clock: cfg.Clock, or the wall clock

	mu     sync.Mutex
	hits   int
	agents []string
	times  []time.Time
}

func serveScripted(t *testing.T, cfg crawltest.Config, answer func(n int, w http.ResponseWriter, r *http.Request)) *scripted {
	t.Helper()
	s := &scripted{Origin: crawltest.New(cfg), answer: answer, now: time.Now}
	if cfg.Clock != nil {
		s.now = cfg.Clock.Now
	}
	s.srv = httptest.NewServer(s)
	t.Cleanup(s.srv.Close)
	return s
}

func (s *scripted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/robots.txt" && !strings.HasPrefix(r.URL.Path, "/r/") {
		s.Origin.ServeHTTP(w, r)
		return
	}
	s.mu.Lock()
	s.hits++
	n := s.hits
	s.agents = append(s.agents, r.Header.Get("User-Agent"))
	s.times = append(s.times, s.now())
	s.mu.Unlock()
	s.answer(n, w, r)
}

func (s *scripted) robotsHits() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits
}

// seen returns the User-Agent and arrival time of each robots.txt request.
func (s *scripted) seen() ([]string, []time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.agents...), append([]time.Time(nil), s.times...)
}

func (s *scripted) host() string { return s.srv.Listener.Addr().String() }

// status answers with a status and a short body.
func status(code int) func(int, http.ResponseWriter, *http.Request) {
	return func(_ int, w http.ResponseWriter, _ *http.Request) {
		http.Error(w, http.StatusText(code), code)
	}
}

// rules answers 200 with body.
func rules(body string) func(int, http.ResponseWriter, *http.Request) {
	return func(_ int, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte(body))
	}
}

// hostReport returns the report's line for host.
func hostReport(t *testing.T, rep *report.Report, host string) *report.HostStats {
	t.Helper()
	for _, h := range rep.Hosts {
		if h.Host == host {
			return h
		}
	}
	t.Fatalf("no report for host %s in %+v", host, rep.Hosts)
	return nil
}

// outcome is what a robots test checks of a run.
type outcome struct {
	done, excluded, waiting int
	robots                  string // substring of the host's Robots line
}

func checkRun(t *testing.T, rep *report.Report, err error, host string, want outcome) {
	t.Helper()
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	tot := rep.Totals
	if tot.Done != want.done || tot.Excluded != want.excluded || tot.Waiting != want.waiting || tot.Dead != 0 || rep.ExitCode != 0 {
		t.Errorf("done %d excluded %d waiting %d dead %d exit %d; want done %d excluded %d waiting %d dead 0 exit 0",
			tot.Done, tot.Excluded, tot.Waiting, tot.Dead, rep.ExitCode, want.done, want.excluded, want.waiting)
	}
	if h := hostReport(t, rep, host); !strings.Contains(h.Robots, want.robots) {
		t.Errorf("report robots = %q, want it to contain %q", h.Robots, want.robots)
	}
}

func TestRobotsStatusClassesEndToEnd(t *testing.T) {
	t.Parallel()
	wait := outcome{waiting: 2}
	for _, tc := range []struct {
		name   string
		origin crawltest.Config
		want   outcome
		cached bool
	}{
		{"200 with rules", crawltest.Config{Robots: privateRules}, outcome{1, 1, 0, "parsed (200)"}, true},
		{"301 to robots2.txt", crawltest.Config{Robots: privateRules, RobotsStatus: 301}, outcome{1, 1, 0, "parsed (200)"}, true},
		{"404 allows all", crawltest.Config{}, outcome{2, 0, 0, "no restrictions (404)"}, true},
		{"401 allows all", crawltest.Config{Robots: "User-agent: *\nDisallow: /\n", RobotsStatus: 401}, outcome{2, 0, 0, "no restrictions (401)"}, true},
		{"403 allows all", crawltest.Config{Robots: "User-agent: *\nDisallow: /\n", RobotsStatus: 403}, outcome{2, 0, 0, "no restrictions (403)"}, true},
		{"410 allows all", crawltest.Config{RobotsStatus: 410}, outcome{2, 0, 0, "no restrictions (410)"}, true},
		{"429 is unreachable", crawltest.Config{Robots: privateRules, RobotsStatus: 429}, withRobots(wait, "unreachable (429): URLs wait for the next run"), false},
		{"500 is unreachable", crawltest.Config{Robots: privateRules, RobotsStatus: 500}, withRobots(wait, "unreachable (500)"), false},
		{"503 is unreachable", crawltest.Config{Robots: privateRules, RobotsStatus: 503}, withRobots(wait, "unreachable (503)"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each case has its own origin and database
			o, srv := serve(t, tc.origin)
			cfg := fastConfig(t, srv.URL+"/a", srv.URL+"/private/x")
			cfg.MaxAttempts = 1  // an unreachable robots.txt is not retried this run
			onFakeClock(t, &cfg) // the pace in fake time; robots.txt over loopback
			db := mustOpen(t)
			rep, err := crawl.Run(context.Background(), db, cfg)
			host := srv.Listener.Addr().String()
			checkRun(t, rep, err, host, tc.want)

			st := o.Stats()
			if st.Disallowed != 0 {
				t.Errorf("origin counted %d disallowed requests, want 0", st.Disallowed)
			}
			wantRobots := 1
			if tc.origin.RobotsStatus == 301 {
				wantRobots = 2
			}
			if st.Robots != wantRobots {
				t.Errorf("robots.txt requests = %d, want %d", st.Robots, wantRobots)
			}
			if got := hostReport(t, rep, host).Requests; got != st.Requests {
				t.Errorf("report counts %d requests, origin %d", got, st.Requests)
			}
			if !tc.cached && st.Requests != st.Robots {
				t.Errorf("origin saw %d requests besides robots.txt, want none", st.Requests-st.Robots)
			}
			_, ok, err := db.Robots(host)
			if err != nil || ok != tc.cached {
				t.Errorf("cached copy: %v, %v; want %v", ok, err, tc.cached)
			}
		})
	}
}

func withRobots(o outcome, robots string) outcome { o.robots = robots; return o }

func TestRobotsRedirectsEndToEnd(t *testing.T) {
	t.Parallel()
	other, otherSrv := serve(t, crawltest.Config{Robots: privateRules})
	chain := func(n int) func(int, http.ResponseWriter, *http.Request) {
		// /robots.txt -> /r/1 -> ... -> /r/n, which serves the rules.
		return func(_ int, w http.ResponseWriter, r *http.Request) {
			var i int
			fmt.Sscanf(r.URL.Path, "/r/%d", &i)
			if i == n {
				rules(privateRules)(0, w, r)
				return
			}
			http.Redirect(w, r, fmt.Sprintf("/r/%d", i+1), http.StatusFound)
		}
	}
	for _, tc := range []struct {
		name       string
		answer     func(int, http.ResponseWriter, *http.Request)
		originText string // what the origin counts as disallowed
		want       outcome
		hits       int // robots.txt requests this origin sees
		elsewhere  int // redirects followed to another origin
	}{
		{"to another origin", func(_ int, w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, otherSrv.URL+"/robots.txt", http.StatusMovedPermanently)
		}, privateRules, outcome{1, 1, 0, "parsed (200)"}, 1, 1},
		{"five redirects are followed", chain(5), privateRules, outcome{1, 1, 0, "parsed (200)"}, 6, 0},
		{"six redirects allow all", chain(6), "", outcome{2, 0, 0, "no restrictions (302)"}, 6, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			other.Reset()
			s := serveScripted(t, crawltest.Config{Robots: tc.originText}, tc.answer)
			cfg := fastConfig(t, s.srv.URL+"/a", s.srv.URL+"/private/x")
			cfg.AllowPrivate = true // the other origin is on loopback too, and no seed's host
			onFakeClock(t, &cfg)    // the pace between the redirects in fake time
			rep, err := crawl.Run(context.Background(), mustOpen(t), cfg)
			checkRun(t, rep, err, s.host(), tc.want)
			if got := s.robotsHits(); got != tc.hits {
				t.Errorf("robots.txt requests (with redirects) = %d, want %d", got, tc.hits)
			}
			// The robots.txt host's line counts every redirect followed.
			if got, want := hostReport(t, rep, s.host()).Requests, tc.hits+tc.elsewhere+s.Stats().Requests; got != want {
				t.Errorf("report counts %d requests, want %d", got, want)
			}
			if d := s.Stats().Disallowed; d != 0 {
				t.Errorf("origin counted %d disallowed requests, want 0", d)
			}
			if n := other.Stats().Robots; n != tc.elsewhere {
				t.Errorf("the other origin's robots.txt was asked %d times, want %d", n, tc.elsewhere)
			}
			agents, _ := s.seen()
			for i, a := range agents {
				if a != cfg.UserAgent {
					t.Errorf("robots.txt request %d: User-Agent %q, want %q", i+1, a, cfg.UserAgent)
				}
			}
		})
	}
}

func TestRobotsTenMegabytesEndToEnd(t *testing.T) {
	t.Parallel()
	var body bytes.Buffer
	body.WriteString(privateRules)
	line := "# " + strings.Repeat("padding ", 12) + "\n"
	for body.Len() < 10<<20 {
		body.WriteString(line)
	}
	body.WriteString("Disallow: /late\n") // past the first 500 KiB: ignored
	s := serveScripted(t, crawltest.Config{Robots: privateRules}, rules(body.String()))
	cfg := fastConfig(t, s.srv.URL+"/a", s.srv.URL+"/private/x", s.srv.URL+"/late/y")
	onFakeClock(t, &cfg) // the pace in fake time
	db := mustOpen(t)
	rep, err := crawl.Run(context.Background(), db, cfg)
	checkRun(t, rep, err, s.host(), outcome{2, 1, 0, "parsed (200)"})
	if got := s.Stats().ByPath["/late/y"]; got != 1 {
		t.Errorf("/late/y fetched %d times, want 1: a rule past %d bytes must be ignored", got, robots.MaxBytes)
	}
	cp, ok, err := db.Robots(s.host())
	if err != nil || !ok || len(cp.Body) != robots.MaxBytes {
		t.Errorf("cached copy: %d bytes, %v, %v; want the first %d bytes", len(cp.Body), ok, err, robots.MaxBytes)
	}
}

func TestRobotsTimeoutEndToEnd(t *testing.T) {
	t.Parallel()
	s := serveScripted(t, crawltest.Config{}, func(_ int, w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // no answer until the client gives up
	})
	cfg := fastConfig(t, s.srv.URL+"/a", s.srv.URL+"/b")
	cfg.Timeout = 150 * time.Millisecond // the HTTP client's, on the wall clock
	cfg.MaxAttempts = 1
	onFakeClock(t, &cfg)
	db := mustOpen(t)
	rep, err := crawl.Run(context.Background(), db, cfg)
	// A host that never answered is unreachable: the run exits 1 so that
	// cron tells someone, and its URLs wait for the next run.
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	h := hostReport(t, rep, s.host())
	if tot := rep.Totals; tot.Waiting != 2 || tot.Dead != 0 || rep.ExitCode != 1 ||
		h.Stopped != "unreachable" || !strings.Contains(h.Robots, "unreachable (timeout)") {
		t.Errorf("waiting %d dead %d exit %d, host stopped %q, robots %q; want 2 waiting, 0 dead, exit 1, unreachable, robots unreachable (timeout)",
			tot.Waiting, tot.Dead, rep.ExitCode, h.Stopped, h.Robots)
	}
	if n := s.Stats().Requests; n != 0 {
		t.Errorf("origin served %d pages, want none while robots.txt times out", n)
	}
	if _, ok, _ := db.Robots(s.host()); ok {
		t.Errorf("a timed-out robots.txt was cached")
	}
}

func TestRobotsUnreachableRetriedWithBackoff(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(time.Now())
	s := serveScripted(t, crawltest.Config{Robots: privateRules, Clock: clk}, func(n int, w http.ResponseWriter, r *http.Request) {
		if n <= 2 {
			status(http.StatusServiceUnavailable)(n, w, r)
			return
		}
		rules(privateRules)(n, w, r)
	})
	cfg := fastConfig(t, s.srv.URL+"/a", s.srv.URL+"/private/x")
	cfg.RobotsRetry = 20 * time.Millisecond
	onClock(t, &cfg, clk) // the gaps asserted are the fake clock's
	rep, err := crawl.Run(context.Background(), mustOpen(t), cfg)
	checkRun(t, rep, err, s.host(), outcome{1, 1, 0, "parsed (200)"})
	if got := s.robotsHits(); got != 3 {
		t.Fatalf("robots.txt requests = %d, want 3 (two 503s, then 200)", got)
	}
	_, times := s.seen()
	for i := 1; i < len(times); i++ {
		if gap := times[i].Sub(times[i-1]); gap < cfg.RobotsRetry {
			t.Errorf("retry %d came %s after the previous try, want at least %s", i, gap, cfg.RobotsRetry)
		}
	}
	if d := s.Stats().Disallowed; d != 0 {
		t.Errorf("origin counted %d disallowed requests, want 0", d)
	}
	// The two waits reach the report, for report.html to draw.
	var waits []report.HoldMark
	for _, m := range rep.Hosts[0].Holds {
		if m.Kind == report.HoldMarkRobotsRetry {
			waits = append(waits, m)
		}
	}
	if len(waits) != 2 || waits[0].SpanS <= 0 || waits[1].AtS <= waits[0].AtS {
		t.Errorf("robots.txt retry waits in the report %+v, want two, in time order, each with a span", waits)
	}
}

func TestRobotsCacheAcrossRuns(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name         string
		ttl          time.Duration
		cacheControl string
		wantTTL      time.Duration // of the stored copy
		secondHits   int
	}{
		{"fresh copy is used", time.Hour, "", time.Hour, 0},
		{"shorter max-age is honoured", time.Hour, "max-age=600", 10 * time.Minute, 0},
		{"longer max-age is cut to the TTL", time.Hour, "max-age=86400", time.Hour, 0},
		{"expired after --robots-ttl", time.Nanosecond, "", time.Nanosecond, 1},
		{"expired by max-age=0", time.Hour, "max-age=0", 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s *scripted
			s = serveScripted(t, crawltest.Config{Robots: privateRules}, func(_ int, w http.ResponseWriter, r *http.Request) {
				if tc.cacheControl != "" {
					w.Header().Set("Cache-Control", tc.cacheControl)
				}
				s.Origin.ServeHTTP(w, r)
			})
			db := mustOpen(t)
			cfg := fastConfig(t, s.srv.URL+"/a", s.srv.URL+"/private/x")
			cfg.RobotsTTL = tc.ttl
			clk := onFakeClock(t, &cfg) // the TTLs and pace waits in fake time
			for run := 1; run <= 2; run++ {
				// A second between two runs, as on the wall clock.
				clk.Advance(time.Second)
				cfg.OutDir = filepath.Join(t.TempDir(), "out") // no conditional requests
				rep, err := crawl.Run(context.Background(), db, cfg)
				checkRun(t, rep, err, s.host(), outcome{done: 1, excluded: 1})
				if run == 1 {
					cp, ok, err := db.Robots(s.host())
					if err != nil || !ok || cp.Expires.Sub(cp.FetchedAt) != tc.wantTTL {
						t.Fatalf("stored copy %v, %v: lives %s, want %s", ok, err, cp.Expires.Sub(cp.FetchedAt), tc.wantTTL)
					}
				}
			}
			if got := s.robotsHits(); got != 1+tc.secondHits {
				t.Errorf("robots.txt requests over two runs = %d, want %d", got, 1+tc.secondHits)
			}
			if d := s.Stats().Disallowed; d != 0 {
				t.Errorf("origin counted %d disallowed requests, want 0", d)
			}
		})
	}
}

func TestRobotsStaleCopyStandsInForUnreachableHost(t *testing.T) {
	t.Parallel()
	s := serveScripted(t, crawltest.Config{Robots: privateRules}, func(n int, w http.ResponseWriter, r *http.Request) {
		if n == 1 {
			rules(privateRules)(n, w, r)
			return
		}
		status(http.StatusBadGateway)(n, w, r)
	})
	db := mustOpen(t)
	cfg := fastConfig(t, s.srv.URL+"/a", s.srv.URL+"/private/x")
	cfg.RobotsTTL = time.Nanosecond
	cfg.MaxAttempts = 1
	clk := onFakeClock(t, &cfg) // the pace and the TTL in fake time
	rep, err := crawl.Run(context.Background(), db, cfg)
	checkRun(t, rep, err, s.host(), outcome{1, 1, 0, "parsed (200)"})
	// A second between the two runs: the copy expired.
	clk.Advance(time.Second)
	cfg.OutDir = filepath.Join(t.TempDir(), "out") // no conditional requests
	rep, err = crawl.Run(context.Background(), db, cfg)
	checkRun(t, rep, err, s.host(), outcome{1, 1, 0, "unreachable (502); using the copy of "})
	if got := s.robotsHits(); got != 2 {
		t.Errorf("robots.txt requests = %d, want 2", got)
	}
	if d := s.Stats().Disallowed; d != 0 {
		t.Errorf("origin counted %d disallowed requests, want 0", d)
	}
	cp, _, _ := db.Robots(s.host())
	if cp.Status != 200 {
		t.Errorf("cached copy status %d after the 502, want the 200 copy kept", cp.Status)
	}
}

func TestRobotsFor(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("fetched, cached, then from the cache", func(t *testing.T) {
		o, srv := serve(t, crawltest.Config{Robots: privateRules + "Sitemap: /sitemap.xml\n"})
		db := mustOpen(t)
		cfg := fastConfig(t)
		for i, want := range []struct {
			how      string
			cached   bool
			requests int
		}{{"200", false, 1}, {"cached", true, 0}} {
			rb, src, err := crawl.RobotsFor(ctx, db, cfg, srv.URL+"/private/x")
			if err != nil {
				t.Fatalf("call %d: %v", i+1, err)
			}
			if src.How != want.how || src.Cached != want.cached || src.Requests != want.requests || src.Unreachable {
				t.Errorf("call %d: source %+v, want how %q cached %v requests %d", i+1, src, want.how, want.cached, want.requests)
			}
			d, err := crawl.RobotsDecision(rb, "polite", srv.URL+"/private/x")
			if err != nil || d.Allowed || d.Rule != "Disallow: /private" || d.RuleLine != 2 {
				t.Errorf("call %d: decision %+v, %v; want disallowed by line 2", i+1, d, err)
			}
		}
		if n := o.Stats().Robots; n != 1 {
			t.Errorf("robots.txt requests = %d, want 1", n)
		}
	})
	t.Run("unreachable disallows all", func(t *testing.T) {
		_, srv := serve(t, crawltest.Config{Robots: privateRules, RobotsStatus: 503})
		db := mustOpen(t)
		rb, src, err := crawl.RobotsFor(ctx, db, fastConfig(t), srv.URL+"/a")
		if err != nil || !src.Unreachable || src.How != "unreachable (503)" {
			t.Fatalf("source %+v, %v; want unreachable (503)", src, err)
		}
		if d := rb.Test("polite", "/a"); d.Allowed {
			t.Errorf("decision %+v, want disallowed", d)
		}
		if _, ok, _ := db.Robots(srv.Listener.Addr().String()); ok {
			t.Errorf("an unreachable answer was cached")
		}
	})
	t.Run("stale copy stands in", func(t *testing.T) {
		_, srv := serve(t, crawltest.Config{RobotsStatus: 500})
		db := mustOpen(t)
		host := srv.Listener.Addr().String()
		old := time.Now().Add(-48 * time.Hour)
		if err := db.PutRobots(frontier.RobotsCopy{Host: host, Status: 200, Body: []byte(privateRules), FetchedAt: old, Expires: old.Add(24 * time.Hour)}); err != nil {
			t.Fatal(err)
		}
		rb, src, err := crawl.RobotsFor(ctx, db, fastConfig(t), srv.URL+"/a")
		if err != nil || !src.Stale || src.Unreachable || !src.FetchedAt.Equal(old) {
			t.Fatalf("source %+v, %v; want the stale copy of %s", src, err, old)
		}
		if d := rb.Test("polite", "/private/x"); d.Allowed {
			t.Errorf("decision %+v, want disallowed by the stale copy", d)
		}
	})
	t.Run("bad URL is a usage error", func(t *testing.T) {
		for _, bad := range []string{"ftp://example.org/", "not a url", ""} {
			if _, _, err := crawl.RobotsFor(ctx, nil, fastConfig(t), bad); !errors.Is(err, crawl.ErrUsage) {
				t.Errorf("RobotsFor(%q) error = %v, want ErrUsage", bad, err)
			}
		}
	})
}
