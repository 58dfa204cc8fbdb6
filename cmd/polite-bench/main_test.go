package main

import (
	"bytes"
	"context"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/crawltest"
	"github.com/polite-crawler/polite/pace"
)

var t0 = time.Date(2025, time.March, 1, 12, 0, 0, 0, time.UTC)

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

func TestOffered(t *testing.T) {
	at := func(offsets ...int) []time.Time {
		var out []time.Time
		for _, o := range offsets {
			out = append(out, t0.Add(ms(o)))
		}
		return out
	}
	cases := []struct {
		name     string
		cfg      crawltest.Config
		arrivals []time.Time
		end      time.Duration
		want     float64
	}{
		{"queue: capacity times the time", crawltest.Config{Capacity: 10}, at(0, 100), 2 * time.Second, 20},
		{"bucket of one, client at the rate", crawltest.Config{Rate: 10, Burst: 1}, at(0, 100, 200, 300, 400), 500 * time.Millisecond, 5},
		{"bucket of one, idle client: tokens lost count", crawltest.Config{Rate: 10, Burst: 1}, at(0), time.Second, 10},
		{"burst not spent is not counted", crawltest.Config{Rate: 1, Burst: 60}, at(0, 1000, 2000), 3 * time.Second, 3},
		{"burst spent is counted, the refill still in the bucket is not", crawltest.Config{Rate: 1, Burst: 4}, at(0, 10, 20, 30, 40), 100 * time.Millisecond, 4},
		{"arrivals after the end are ignored", crawltest.Config{Rate: 10, Burst: 1}, at(0, 100, 5000), 200 * time.Millisecond, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := offered(tc.cfg, tc.arrivals, t0, t0.Add(tc.end))
			if math.Abs(got-tc.want) > 1e-6 {
				t.Errorf("offered = %.4f, want %.4f", got, tc.want)
			}
		})
	}
}

// serveLog sends paths to an origin one after the other and returns it.
func serveLog(t *testing.T, cfg crawltest.Config, paths ...string) *origin {
	t.Helper()
	cfg.Log = true
	o := &origin{cfg: cfg, o: crawltest.New(cfg)}
	for _, p := range paths {
		o.o.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, p, nil))
	}
	return o
}

func TestCount(t *testing.T) {
	robots := "User-agent: *\n"
	many := func(n int) []string {
		out := []string{"/robots.txt"}
		for range n {
			out = append(out, "/doc")
		}
		return out
	}
	cases := []struct {
		name                       string
		origins                    []*origin
		pages, ok, refused, firstN int
	}{
		{
			name:    "robots.txt is not a page",
			origins: []*origin{serveLog(t, crawltest.Config{Robots: robots}, "/robots.txt", "/a", "/b")},
			pages:   2, ok: 2,
		},
		{
			name:    "429s after the first 30 requests are not in firstN",
			origins: []*origin{serveLog(t, crawltest.Config{Robots: robots, Rate: 0.001, Burst: 31}, many(40)...)},
			pages:   40, ok: 31, refused: 9, firstN: 0,
		},
		{
			name:    "429s in the first 30",
			origins: []*origin{serveLog(t, crawltest.Config{Robots: robots, Rate: 0.001, Burst: 2}, many(30)...)},
			pages:   30, ok: 2, refused: 28, firstN: 28,
		},
		{
			name: "several origins add up",
			origins: []*origin{
				serveLog(t, crawltest.Config{}, "/a", "/b"),
				serveLog(t, crawltest.Config{}, "/status/503", "/c"),
			},
			pages: 4, ok: 3, refused: 1, firstN: 0,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := count(tc.origins, time.Now())
			if got.pages != tc.pages || got.ok != tc.ok || got.refused != tc.refused || got.firstN != tc.firstN {
				t.Errorf("count = pages %d ok %d refused %d firstN %d, want %d %d %d %d",
					got.pages, got.ok, got.refused, got.firstN, tc.pages, tc.ok, tc.refused, tc.firstN)
			}
			if got.window <= 0 {
				t.Errorf("window = %s, want positive", got.window)
			}
		})
	}
}

func TestCountBeforeAnyPage(t *testing.T) {
	o := serveLog(t, crawltest.Config{Robots: "User-agent: *\n"}, "/robots.txt")
	got := count([]*origin{o}, time.Now())
	if got.pages != 0 || !math.IsNaN(got.goodput()) {
		t.Errorf("count = %+v, goodput %v; want no pages and no goodput", got, got.goodput())
	}
}

func TestMedian(t *testing.T) {
	cases := []struct {
		name string
		in   []time.Duration
		want time.Duration
	}{
		{"none", nil, 0},
		{"odd", []time.Duration{ms(3), ms(1), ms(2)}, ms(2)},
		{"even", []time.Duration{ms(4), ms(1), ms(2), ms(3)}, ms(2) + ms(1)/2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := median(tc.in); got != tc.want {
				t.Errorf("median = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestPolicies(t *testing.T) {
	def := pace.DefaultConfig()
	ps := policies(10)
	if len(ps) != 3 {
		t.Fatalf("%d policies, want 3", len(ps))
	}
	cases := []struct {
		name string
		got  time.Duration
		want time.Duration
	}{
		{"polite floor", ps[0].pace.Floor, def.Floor / 10},
		{"polite start", ps[0].pace.Start, def.Start / 10},
		{"polite decrease", ps[0].pace.Decrease, def.Decrease / 10},
		{"polite ceiling", ps[0].pace.Ceiling, def.Ceiling / 10},
		{"polite half-life", ps[0].pace.HalfLife, def.HalfLife / 10},
		{"polite max Retry-After", ps[0].pace.MaxRetryAfter, def.MaxRetryAfter / 10},
		{"polite breaker cooldown", ps[0].pace.BreakerCooldown, def.BreakerCooldown / 10},
		{"fixed floor", ps[2].pace.Floor, 300 * time.Millisecond},
		{"fixed start", ps[2].pace.Start, 300 * time.Millisecond},
		{"fixed ceiling", ps[2].pace.Ceiling, 300 * time.Millisecond},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %s, want %s", tc.got, tc.want)
			}
		})
	}
	if ps[0].pace.Plain || !ps[1].pace.Plain || ps[2].pace.Jitter != 0 {
		t.Errorf("Plain %v/%v, fixed jitter %g; want polite not plain, plain AIMD plain, fixed without jitter",
			ps[0].pace.Plain, ps[1].pace.Plain, ps[2].pace.Jitter)
	}
	if ps[0].pace.Multiplier != def.Multiplier || ps[0].pace.Jitter != def.Jitter || ps[0].pace.LowKnee != def.LowKnee {
		t.Errorf("factors changed by scaling: %+v", ps[0].pace)
	}
	for _, p := range ps {
		if err := p.pace.Validate(); err != nil {
			t.Errorf("%s: %v", p.name, err)
		}
	}
}

func TestParseFlags(t *testing.T) {
	cases := []struct {
		name    string
		args    []string
		wantErr bool
		check   func(options) bool
	}{
		{"defaults", nil, false, func(o options) bool {
			return o.scale == 10 && o.quotaScaleMax == 6 && o.windowLen == 300*time.Second && o.runs("bucket") && o.runs("throughput")
		}},
		{"only some", []string{"-only", "queue, second"}, false, func(o options) bool {
			return o.runs("queue") && o.runs("second") && !o.runs("bucket")
		}},
		{"unknown scenario", []string{"-only", "nope"}, true, nil},
		{"scale below 1", []string{"-scale", "0.5"}, true, nil},
		{"no window", []string{"-window", "0s"}, true, nil},
		{"stray argument", []string{"extra"}, true, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o, err := parseFlags(tc.args, io.Discard)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if tc.check != nil && !tc.check(o) {
				t.Errorf("options %+v do not hold what was asked", o)
			}
		})
	}
}

func TestTargets(t *testing.T) {
	b := &bench{opts: options{scale: 10, quotaScaleMax: 2}}
	good := newRow("token bucket", "polite")
	good.goodput, good.per100 = 0.96, 0.5
	bad := newRow("second run", "polite")
	bad.firstN = 3
	other := newRow("token bucket", "plain AIMD")
	other.goodput, other.per100 = 0.5, 13
	b.rows = []row{good, other, bad}
	got := strings.Join(b.targets(b.opts), "\n")
	for _, want := range []string{"token bucket (0s): goodput >= 0.95 of the limit, <= 1 429 per 100: met (0.960, 0.50)",
		"second run: <= 1 429 in its first 30 requests: NOT met (3)"} {
		if !strings.Contains(got, want) {
			t.Errorf("targets:\n%s\nwant a line %q", got, want)
		}
	}
	if strings.Contains(got, "queueing") {
		t.Errorf("targets:\n%s\nname a scenario that did not run", got)
	}
}

// TestRunBucket runs the token-bucket scenario end to end at a scale that
// makes it last about a second.
func TestRunBucket(t *testing.T) {
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"-only", "bucket", "-scale", "100", "-window", "100s"}, &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d, want 0; stderr:\n%s", code, errOut.String())
	}
	for _, want := range []string{"time scale 1:100", "token bucket  ", "polite", "plain AIMD", "fixed 3s",
		"token bucket, Retry-After sent", "targets (polite):", "token bucket (1m40s): goodput"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if len(strings.Split(out.String(), "\n")) < 10 {
		t.Errorf("output too short:\n%s", out.String())
	}
}

func TestRunPipelineError(t *testing.T) {
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"-only", "throughput", "-polite", filepath.Join(t.TempDir(), "missing")}, &out, &errOut)
	if code != 1 || !strings.Contains(errOut.String(), "polite binary") {
		t.Errorf("exit %d, stderr %q; want 1 naming the missing binary", code, errOut.String())
	}
}

// TestInProcess runs the throughput crawl in process on a few origins and
// checks that it counts what the origins served and what polite kept.
func TestInProcess(t *testing.T) {
	o := options{concurrency: 4, cpuprofile: filepath.Join(t.TempDir(), "cpu.prof")}
	origins := startOrigins(3, crawltest.Config{Robots: robotsTxt, Pages: 4, Links: 1, Log: true})
	defer closeOrigins(origins)
	var urls []string
	for _, or := range origins {
		for p := range 4 {
			urls = append(urls, or.srv.URL+"/page/"+strconv.Itoa(p))
		}
	}
	f, err := inProcess(context.Background(), o, t.TempDir(), urls, origins)
	if err != nil {
		t.Fatal(err)
	}
	if f.pages != 12 || f.recorded != 12 || f.onDisk != 12 || f.p90 <= 0 || f.rate() <= 0 {
		t.Errorf("figures %+v, want 12 pages served, recorded and on disk", f)
	}
	ref, err := reference(context.Background(), urls, 4, origins)
	if err != nil {
		t.Fatal(err)
	}
	if ref.pages != 12 {
		t.Errorf("reference served %d pages, want 12", ref.pages)
	}
}

func TestScalePagesFlag(t *testing.T) {
	o, err := parseFlags([]string{"-scale-pages", "3, 30"}, io.Discard)
	if err != nil || len(o.scalePages) != 2 || o.scalePages[0] != 3 || o.scalePages[1] != 30 {
		t.Fatalf("-scale-pages 3,30: %v, %v; want [3 30]", o.scalePages, err)
	}
	if _, err := parseFlags([]string{"-scale-pages", "3,x"}, io.Discard); err == nil || !strings.Contains(err.Error(), `"x"`) {
		t.Errorf("-scale-pages 3,x: %v; want an error naming x", err)
	}
}

// The scale target holds only when memory stays under 80 MB in every run
// and the largest run keeps 90% of the smallest's rate (the mean of the
// smallest's runs, when it ran again), every page kept.
func TestScaleTarget(t *testing.T) {
	run := func(pages int, rate float64, rssMB int64) scaleRun {
		n := 2 * pages
		return scaleRun{hosts: 2, pages: pages, f: crawlerFigures{pages: n, wall: time.Duration(float64(n) / rate * float64(time.Second)),
			rssKiB: rssMB << 10, recorded: n, onDisk: n}}
	}
	for _, c := range []struct {
		rs   []scaleRun
		want string
	}{
		{[]scaleRun{run(10, 1000, 50), run(100, 950, 60)}, ": met"},
		{[]scaleRun{run(10, 1000, 50), run(100, 850, 60)}, "NOT met"},
		{[]scaleRun{run(10, 1000, 50), run(100, 1000, 90)}, "NOT met"},
		// The smallest run again: the largest against the mean of the
		// two (1,000 and 800: 900), not against the first alone.
		{[]scaleRun{run(10, 1000, 50), run(100, 850, 60), run(10, 800, 50)}, ": met (60.0 MB, 0.94)"},
		{[]scaleRun{run(10, 1000, 50), run(100, 800, 60), run(10, 1000, 50)}, "NOT met (60.0 MB, 0.80)"},
	} {
		if got := scaleTarget(c.rs); !strings.Contains(got, c.want) {
			t.Errorf("scaleTarget = %q, want %q in it", got, c.want)
		}
	}
}

// TestRevisitTargets judges polite's rule against always: requests as a
// share of always's, changes caught within two nights, lastmod changes
// caught the same night; against issue 32's target and the aim within
// reach.
func TestRevisitTargets(t *testing.T) {
	always := revisitRow{name: "always", t: crawltest.NightsTally{Requests: 1000, Changes: 100, CaughtTwo: 100, LastModChanges: 10, LastModSame: 10}}
	for _, tc := range []struct {
		t          crawltest.NightsTally
		issue, aim string
	}{
		{crawltest.NightsTally{Requests: 400, Changes: 100, CaughtTwo: 95, LastModChanges: 10, LastModSame: 10}, "met", "met (0.400, 95.0%, 10/10)"},
		{crawltest.NightsTally{Requests: 470, Changes: 100, CaughtTwo: 93, LastModChanges: 10, LastModSame: 10}, "NOT met", "met (0.470, 93.0%, 10/10)"},
		{crawltest.NightsTally{Requests: 300, Changes: 100, CaughtTwo: 99, LastModChanges: 10, LastModSame: 9}, "NOT met", "NOT met (0.300, 99.0%, 9/10)"},
		{crawltest.NightsTally{Requests: 510, Changes: 100, CaughtTwo: 99, LastModChanges: 10, LastModSame: 10}, "NOT met", "NOT met (0.510, 99.0%, 10/10)"},
	} {
		got := revisitTargets([]revisitRow{always, {name: "adaptive", t: tc.t}})
		if len(got) != 2 || !strings.Contains(got[0], "same night: "+tc.issue+" (") || !strings.HasSuffix(got[1], tc.aim) {
			t.Errorf("%+v: %q, want the issue's target %s and the aim %q", tc.t, got, tc.issue, tc.aim)
		}
	}
	if got := revisitTargets(nil); got != nil {
		t.Errorf("no revisit rows: %q, want no line", got)
	}
}

// procTimes reads this process's parent and CPU time from /proc, as the
// shared crawl's server CPU is read.
func TestProcTimesReadsThisProcess(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc on this system: the bench reports the server's CPU as not measured")
	}
	for selfCPU() < 50*time.Millisecond { // spend a few of /proc's ticks
		_ = strconv.Itoa(len(t.Name()))
	}
	st, ok := procTimes(strconv.Itoa(os.Getpid()))
	if !ok || st.ppid != strconv.Itoa(os.Getppid()) || st.self <= 0 {
		t.Fatalf("procTimes(self) = %+v, %v; want parent %d and some CPU time", st, ok, os.Getppid())
	}
}

// sharedCPU turns the CPU of both crawls into the most the shared one can
// reach on shared cores: the inverse ratio of the CPU a page takes.
func TestSharedCPUCeiling(t *testing.T) {
	one := crawlerFigures{cpu: 600 * time.Millisecond, origins: 200 * time.Millisecond}
	shared := crawlerFigures{cpu: time.Second, server: 400 * time.Millisecond, origins: 200 * time.Millisecond}
	if got := sharedCPU(one, shared, 1000); !strings.Contains(got, "server 0.40") || !strings.Contains(got, "at most 0.50x") {
		t.Errorf("sharedCPU = %q; want the server's 0.40 ms a page and a ceiling of 0.50x", got)
	}
	shared.server = -1
	if got := sharedCPU(one, shared, 1000); !strings.Contains(got, "not measured") {
		t.Errorf("sharedCPU without the server's CPU = %q; want it said not measured", got)
	}
}
