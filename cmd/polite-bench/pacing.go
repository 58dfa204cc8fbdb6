package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/crawltest"
	"github.com/polite-crawler/polite/crawl/seeds"
	"github.com/polite-crawler/polite/crawl/urls"
	"github.com/polite-crawler/polite/pace"
	"github.com/polite-crawler/polite/store"
)

// The pacing scenarios' unscaled world; -scale divides every duration and multiplies every rate.
const (
	limitRate     = 1.0             // requests per second a limited origin allows
	fixedDelay    = 3 * time.Second // the fixed-delay baseline
	quotaBurst    = 60              // RateLimit scenario: 60 requests per minute
	queueMax      = 2               // queueing scenario: waiting room
	queuePerHost  = 4               // queueing scenario: --per-host, so that polite's own requests can queue
	manyHosts     = 20              // hosts at once
	firstRunShare = 2.0 / 3         // length of the throttled first run, as a share of the window
	secondURLs    = 32              // URLs of the second run
	firstN        = 30              // the second run's first requests that are judged
	userAgent     = "polite-bench/1 (+loopback benchmark)"
	robotsTxt     = "User-agent: *\nDisallow: /private\n"
)

// policy is one way of pacing the scenarios compare.
type policy struct {
	name string
	pace pace.Config // already scaled
}

// policies returns polite, plain AIMD and the fixed delay, scaled.
func policies(scale float64) []policy {
	def := scaledPace(pace.DefaultConfig(), scale)
	plain := def
	plain.Plain = true
	fixed := def
	d := scaleDur(fixedDelay, scale)
	fixed.Floor, fixed.Start, fixed.Ceiling, fixed.Jitter = d, d, d, 0
	return []policy{
		{"polite", def},
		{"plain AIMD", plain},
		{"fixed " + fixedDelay.String(), fixed},
	}
}

// scaledPace divides every duration of a pace configuration by scale; the
// factors (multiplier, knees, jitter) stay.
func scaledPace(c pace.Config, scale float64) pace.Config {
	for _, d := range []*time.Duration{&c.Floor, &c.Start, &c.Decrease, &c.Ceiling, &c.HalfLife, &c.LearnedHalfLife, &c.MaxRetryAfter, &c.MaxHold, &c.BreakerCooldown} {
		*d = scaleDur(*d, scale)
	}
	return c
}

func scaleDur(d time.Duration, scale float64) time.Duration {
	return time.Duration(math.Round(float64(d) / scale))
}

// origin is one running test origin.
type origin struct {
	cfg crawltest.Config
	o   *crawltest.Origin
	srv *httptest.Server
}

func startOrigins(n int, cfg crawltest.Config) []*origin {
	out := make([]*origin, n)
	for i := range out {
		o, srv := crawltest.Serve(cfg)
		out[i] = &origin{cfg: cfg, o: o, srv: srv}
	}
	return out
}

func closeOrigins(origins []*origin) {
	for _, o := range origins {
		o.srv.Close()
	}
}

// allowance is the most cfg admits over window: a token bucket's burst
// plus its rate times the window, or the queue's capacity times it.
func allowance(cfg crawltest.Config, window time.Duration) float64 {
	switch {
	case cfg.Rate > 0:
		return cfg.Rate*window.Seconds() + float64(max(cfg.Burst, 1))
	case cfg.Capacity > 0:
		return cfg.Capacity * window.Seconds()
	}
	return math.Inf(1)
}

// offered is how many requests cfg's limit offered from start to end to a
// client whose page requests arrived at arrivals (in order). A queue offers
// its capacity times the time. A token bucket, full at start, offers the
// tokens it made less those still in it at end: a token lost to a full
// bucket was offered and not taken, one still in the bucket may yet be. So
// a client that never spends a burst it is not asked to spend is not
// counted short, and for a bucket of one token this is the rate times the
// time, give or take one request.
func offered(cfg crawltest.Config, arrivals []time.Time, start, end time.Time) float64 {
	if cfg.Rate <= 0 {
		return allowance(cfg, end.Sub(start))
	}
	burst := float64(max(cfg.Burst, 1))
	tokens, last := burst, start
	for _, at := range arrivals {
		if at.Before(start) || at.After(end) {
			continue
		}
		tokens = math.Min(burst, tokens+at.Sub(last).Seconds()*cfg.Rate)
		last = at
		if tokens >= 1 {
			tokens--
		}
	}
	tokens = math.Min(burst, tokens+end.Sub(last).Seconds()*cfg.Rate)
	return burst + cfg.Rate*end.Sub(start).Seconds() - tokens
}

// seedURLs returns n URLs under base with the path prefix.
func seedURLs(base, prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = base + prefix + strconv.Itoa(i)
	}
	return out
}

// crawlConfig is the configuration of one in-process run.
func crawlConfig(p policy, dir, job string, seedList []string, perHost int, maxDur time.Duration) (crawl.Config, error) {
	cfg := crawl.DefaultConfig()
	cfg.Job = job
	cfg.OutDir = filepath.Join(dir, "out-"+job)
	cfg.UserAgent = userAgent
	cfg.Pace = p.pace
	cfg.PerHost = perHost
	cfg.MaxDuration = maxDur
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, s := range seedList {
		if _, err := urls.Normalize(s); err != nil {
			return cfg, fmt.Errorf("seed %s: %w", s, err)
		}
	}
	cfg.Seeds = seeds.Lines("seeds", seedList...)
	return cfg, nil
}

// span is when a run started and when its measured window ends.
type span struct{ start, end time.Time }

// crawlOnce runs one crawl of job to completion or maxDur.
func crawlOnce(ctx context.Context, db *store.DB, cfg crawl.Config) (span, error) {
	cfg.SeedTx, cfg.Trim = db.SeedLoads, db
	s := span{start: time.Now()}
	_, err := crawl.Run(ctx, db, cfg)
	s.end = time.Now()
	if deadline := s.start.Add(cfg.MaxDuration); cfg.MaxDuration > 0 && s.end.After(deadline) {
		s.end = deadline // in-flight requests finishing after the stop are not the window's
	}
	if err != nil {
		return s, fmt.Errorf("crawl %s: %w", cfg.Job, err)
	}
	return s, nil
}

// tally is what the origins counted over one run.
type tally struct {
	pages     int             // page requests (robots.txt not counted)
	ok        int             // 2xx answers to them
	refused   int             // 429 and 503 answers
	firstN    int             // 429s among the first firstN page requests
	latencies []time.Duration // origin-side latency of the 2xx pages
	window    time.Duration   // first page request to the end of the run
	offered   float64         // requests the origins' limits offered in the window
}

func isRobots(path string) bool { return path == "/robots.txt" || path == "/robots2.txt" }

// count reads the origins' logs up to end. The window opens at the first
// page request: robots.txt, which the limits exempt, comes a start delay
// before it.
func count(origins []*origin, end time.Time) tally {
	var all []crawltest.Request
	arrivals := make([][]time.Time, len(origins))
	for i, o := range origins {
		for _, r := range o.o.Stats().Log {
			if isRobots(r.Path) || r.At.After(end) {
				continue
			}
			all = append(all, r)
			arrivals[i] = append(arrivals[i], r.At)
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].At.Before(all[j].At) })
	var t tally
	if len(all) == 0 {
		return t
	}
	t.window = end.Sub(all[0].At)
	for _, r := range all {
		t.pages++
		switch {
		case r.Status >= 200 && r.Status < 300:
			t.ok++
			t.latencies = append(t.latencies, r.Latency)
		case r.Status == http.StatusTooManyRequests || r.Status == http.StatusServiceUnavailable:
			t.refused++
		}
		if t.pages <= firstN && r.Status == http.StatusTooManyRequests {
			t.firstN++
		}
	}
	for i, o := range origins {
		t.offered += offered(o.cfg, arrivals[i], all[0].At, end)
	}
	return t
}

// goodput is the 2xx answers over what the origins' limits offered.
func (t tally) goodput() float64 {
	if t.offered <= 0 || math.IsInf(t.offered, 1) {
		return math.NaN()
	}
	return float64(t.ok) / t.offered
}

// per100 is 429 and 503 answers per 100 page requests.
func (t tally) per100() float64 {
	if t.pages == 0 {
		return math.NaN()
	}
	return 100 * float64(t.refused) / float64(t.pages)
}

// median returns the middle value of ds, 0 for none.
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// scaled returns an origin configuration with its rates multiplied by
// scale, logging every request.
func scaled(cfg crawltest.Config, scale float64) crawltest.Config {
	cfg.Rate *= scale
	cfg.Capacity *= scale
	cfg.Log = true
	if cfg.Robots == "" {
		cfg.Robots = robotsTxt
	}
	return cfg
}

// window is the real length of a pacing run at scale.
func (o options) window(scale float64) time.Duration { return scaleDur(o.windowLen, scale) }

// urlsFor is enough URLs per origin that no policy runs out in window.
func urlsFor(cfg crawltest.Config, window time.Duration) int {
	return int(math.Ceil(1.5*allowance(cfg, window))) + 10
}

// scratch makes what one measured run needs: a temporary folder holding a
// fresh database, and n origins of cfg. done stops and removes it all.
func scratch(n int, cfg crawltest.Config) (dir string, db *store.DB, origins []*origin, done func(), err error) {
	dir, db, dbDone, err := scratchDB()
	if err != nil {
		return "", nil, nil, nil, err
	}
	origins = startOrigins(n, cfg)
	return dir, db, origins, func() {
		closeOrigins(origins)
		dbDone()
	}, nil
}

// scratchDB makes a temporary folder holding a fresh database. done
// closes the database and removes the folder.
func scratchDB() (dir string, db *store.DB, done func(), err error) {
	if dir, err = os.MkdirTemp("", "polite-bench-"); err != nil {
		return "", nil, nil, err
	}
	if db, err = store.Open(filepath.Join(dir, "polite.db")); err != nil {
		os.RemoveAll(dir)
		return "", nil, nil, err
	}
	return dir, db, func() {
		db.Close()
		os.RemoveAll(dir)
	}, nil
}

// measure runs one policy against n fresh origins of cfg (already scaled
// by scale) and returns its row.
func (b *bench) measure(ctx context.Context, scenario string, n int, cfg crawltest.Config, perHost int, scale float64, p policy) (row, error) {
	return b.measureWith(ctx, scenario, n, cfg, perHost, p, b.opts.window(scale), nil)
}

// measureWith is measure over the real window win; after, when not nil,
// reads the origins before they close.
func (b *bench) measureWith(ctx context.Context, scenario string, n int, cfg crawltest.Config, perHost int, p policy,
	win time.Duration, after func([]*origin)) (row, error) {
	r := newRow(scenario, p.name)
	dir, db, origins, done, err := scratch(n, cfg)
	if err != nil {
		return r, err
	}
	defer done()

	var baseline time.Duration
	if cfg.Capacity > 0 {
		if baseline, err = probe(ctx, origins[0]); err != nil {
			return r, err
		}
	}
	var seeds []string
	urls := urlsFor(cfg, win)
	for _, o := range origins {
		seeds = append(seeds, seedURLs(o.srv.URL, "/doc/", urls)...)
	}
	ccfg, err := crawlConfig(p, dir, "bench", seeds, perHost, win)
	if err != nil {
		return r, err
	}
	s, err := crawlOnce(ctx, db, ccfg)
	if err != nil {
		return r, err
	}
	t := count(origins, s.end)
	if t.pages == 0 {
		// Nothing to measure: a window too short for this machine's
		// load (a crawl must open its database and read robots.txt
		// first). The row says so rather than failing the whole bench.
		r.wall, r.note = s.end.Sub(s.start), "no page request reached the origins in the window"
		return r, nil
	}
	r.goodput, r.per100, r.wall = t.goodput(), t.per100(), s.end.Sub(s.start)
	r.refused = t.refused
	if baseline > 0 {
		r.latency = float64(median(t.latencies)) / float64(baseline)
	}
	if after != nil {
		after(origins)
	}
	return r, nil
}

// probe measures the unloaded latency of a queueing origin: five requests,
// one at a time, spaced so that each finds the server idle. The origin's
// counters are reset afterwards; its queue is empty by then.
func probe(ctx context.Context, o *origin) (time.Duration, error) {
	service := time.Duration(float64(time.Second) / o.cfg.Capacity)
	client := &http.Client{Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()
	for i := range 5 {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, o.srv.URL+"/probe/"+strconv.Itoa(i), nil)
		if err != nil {
			return 0, err
		}
		resp, err := client.Do(req)
		if err != nil {
			return 0, fmt.Errorf("probe: %w", err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		time.Sleep(2*service + o.cfg.Latency)
	}
	var lat []time.Duration
	for _, r := range o.o.Stats().Log {
		if r.Status == http.StatusOK {
			lat = append(lat, r.Latency)
		}
	}
	o.o.Reset()
	if len(lat) == 0 {
		return 0, fmt.Errorf("probe: no 200 from the origin")
	}
	return median(lat), nil
}
