// Package crawltest provides the throttling origin polite is tested,
// benchmarked and demonstrated against: a net/http handler with a token
// bucket, a queueing mode, Retry-After, RateLimit headers, flaky and hostile
// modes, a robots.txt, and counters of everything it was asked. It decides
// how a polite-or-not crawler is answered, and keeps the evidence.
//
// Paths it serves (see Body for the exact bytes):
//
//	/robots.txt       Config.Robots (404 when empty), status RobotsStatus;
//	                  a 3xx RobotsStatus redirects to /robots2.txt
//	/page/N           HTML page N linking to the next Links pages, when
//	                  Pages > 0 (404 past the last page), and needing
//	                  Requisites requisites of its own
//	/req/N/I.EXT      page N's requisite I: a PNG image, a stylesheet or
//	                  a script, in turn
//	/status/CODE      that status, 200..599 (429 and 503 with Retry-After: 1)
//	/redirect/N?to=P  a chain of N 302s ending at the absolute path P
//	/loop/a, /loop/b  redirect to each other forever
//	/big/N            N bytes
//	/gzipbomb/N       gzip-encoded zeros inflating to N bytes
//	/trickle/N        N bytes, one every 100 ms
//	/slow/MS          waits MS milliseconds before answering
//	/weird-headers    garbage Retry-After and RateLimit headers
//	/softblock        200 with "Please slow down"
//	/sitemap*.xml ... robots.txt with Sitemap lines, sitemaps, pages only
//	                  they list, hostile sitemaps: see SitemapConfig
//	anything else     200 text derived from the path
//
// The limits (token bucket and queue) apply to every path except
// /robots.txt and /robots2.txt: a crawler must be able to read the rules
// before it is judged by them. Config.Latency applies to every path.
package crawltest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	"github.com/polite-crawler/polite/crawl/clock"
)

// Config describes one origin. The zero value serves every path at once
// with no limit and no robots.txt (404).
type Config struct {
	// Token bucket: Rate requests per second with Burst; 0 means unlimited.
	// A request over the limit gets 429 with Retry-After (RetryAfter, or the
	// time until the next token when RetryAfter is 0), in whole seconds
	// rounded up and at least 1. A Burst below 1 counts as 1. The bucket
	// starts full.
	Rate       float64
	Burst      int
	RetryAfter time.Duration

	// Queueing mode: a server with Capacity requests per second of service
	// and room for QueueMax waiting requests; latency rises as the queue
	// grows, 503 when it is full. Capacity 0 turns it off.
	Capacity float64
	QueueMax int

	// Clock is the origin's clock for its token bucket and queue; nil
	// means the wall clock. A test that runs a crawl on a fake clock gives
	// the origin the same clock; the origin's waits (Latency, queueing,
	// /slow) are then held on it (clock.Holder), else slept on the wall
	// clock.
	Clock interface{ Now() time.Time }

	// Latency added to every response (time to first byte).
	Latency time.Duration

	// RateLimitHeaders sends RateLimit-Limit/Remaining/Reset (and the
	// X-RateLimit-* forms) describing the token bucket. It has no effect
	// when Rate is 0. See rateLimitHeaders for the exact values.
	RateLimitHeaders bool

	// Robots is the robots.txt body; "" answers 404. RobotsStatus, when not
	// 0, is the status robots.txt answers with instead.
	Robots       string
	RobotsStatus int

	// Pages is the number of HTML pages /page/0 .. /page/N-1 (each links to
	// the next Links pages). Other paths serve a deterministic body.
	Pages int
	Links int
	// Requisites is how many requisites each page needs, its own: an
	// image, a stylesheet, a script, an image... (/req/N/I.png, .css, .js).
	Requisites int

	// Log keeps a record of every request in Stats.Log: arrival, path,
	// status and latency. Off by default.
	Log bool

	// OmitRetryAfter sends the limits' 429 and 503 refusals without a
	// Retry-After header. Benchmarks that divide every duration by a
	// factor use it, where whole seconds would be too long (see
	// polite-bench). The /status/429 and /status/503 paths keep theirs.
	OmitRetryAfter bool

	// Sitemap is the sitemap mode, off when nil (a pointer, so that
	// Config stays comparable).
	Sitemap *SitemapConfig
}

// Stats is what an origin counted.
type Stats struct {
	Requests    int            // every request, robots.txt included
	Robots      int            // requests for /robots.txt (and /robots2.txt)
	ByPath      map[string]int // requests per path (with query)
	ByStatus    map[int]int    // responses per status
	Disallowed  int            // requests to paths robots.txt disallows for "*" or any group
	OverLimit   int            // requests that arrived while the bucket was empty
	NotModified int            // 304 answers
	Conditional int            // requests carrying If-None-Match or If-Modified-Since
	BytesServed int64
	Times       []time.Time // arrival time of each request, in order

	QueueFull int // requests refused with 503 because the queue was full
	Canceled  int // requests whose client went away before the answer was complete

	Log []Request // every request in arrival order, when Config.Log is set
}

// Origin is a throttling test server handler. Build it with New; it is safe
// for concurrent use. Most callers want Serve, then Stats.
type Origin struct {
	cfg    Config
	robots robotsRules

	// now and sleep are the clock; tests replace them. sleep returns
	// ctx.Err() when ctx ends first.
	now          func() time.Time
	sleep        func(ctx context.Context, d time.Duration) error
	trickleEvery time.Duration

	mu       sync.Mutex
	stats    Stats
	tokens   float64   // token bucket level
	refilled time.Time // when tokens was last brought up to date; zero: full
	nextFree time.Time // when the queueing server finishes its backlog
}

// New returns an Origin for cfg.
func New(cfg Config) *Origin {
	o := &Origin{
		cfg:          cfg,
		robots:       parseRobots(cfg.Robots),
		now:          time.Now,
		sleep:        sleepCtx,
		trickleEvery: 100 * time.Millisecond,
	}
	if cfg.Clock != nil {
		o.now = cfg.Clock.Now
	}
	if h, ok := cfg.Clock.(clock.Holder); ok {
		// A fake clock: the origin's waits are held on it, so that fake
		// time passes for them as for the crawl's.
		o.sleep = func(ctx context.Context, d time.Duration) error {
			if !h.Hold(ctx, d) {
				return ctx.Err()
			}
			return nil
		}
	}
	o.stats = Stats{ByPath: map[string]int{}, ByStatus: map[int]int{}}
	return o
}

// Serve starts an httptest server for a new Origin on a loopback address.
// The caller closes the server.
func Serve(cfg Config) (*Origin, *httptest.Server) {
	o := New(cfg)
	return o, httptest.NewServer(o)
}

// ServePorts starts n httptest servers on loopback ports, all served by
// one new Origin of cfg: one server behind several ports (several sites
// of one machine), whose token bucket, queue and counters they share.
// The caller closes the servers.
func ServePorts(cfg Config, n int) (*Origin, []*httptest.Server) {
	o := New(cfg)
	srvs := make([]*httptest.Server, n)
	for i := range srvs {
		srvs[i] = httptest.NewServer(o)
	}
	return o, srvs
}

// Config returns the configuration the origin was built with.
func (o *Origin) Config() Config { return o.cfg }

// Stats returns a copy of the counters.
func (o *Origin) Stats() Stats {
	o.mu.Lock()
	defer o.mu.Unlock()
	s := o.stats
	s.ByPath = make(map[string]int, len(o.stats.ByPath))
	for k, v := range o.stats.ByPath {
		s.ByPath[k] = v
	}
	s.ByStatus = make(map[int]int, len(o.stats.ByStatus))
	for k, v := range o.stats.ByStatus {
		s.ByStatus[k] = v
	}
	s.Times = append([]time.Time(nil), o.stats.Times...)
	s.Log = append([]Request(nil), o.stats.Log...)
	return s
}

// Reset zeroes the counters. The token bucket and the queue keep their
// state: a second run against the same origin meets what the first left.
func (o *Origin) Reset() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.stats = Stats{ByPath: map[string]int{}, ByStatus: map[int]int{}}
}

// ServeHTTP serves a request: it counts it, applies the limits, waits
// as configured and answers from the path.
func (o *Origin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	now := o.now()
	uri := r.URL.RequestURI()
	robotsReq := isRobotsPath(r.URL.Path)
	conditional := r.Header.Get("If-None-Match") != "" || r.Header.Get("If-Modified-Since") != ""

	o.mu.Lock()
	o.stats.Requests++
	o.stats.ByPath[uri]++
	o.stats.Times = append(o.stats.Times, now)
	if robotsReq {
		o.stats.Robots++
	} else if o.disallowed(uri) {
		o.stats.Disallowed++
	}
	if conditional {
		o.stats.Conditional++
	}
	logAt := o.logArrival(now, uri)
	var adm admission
	if !robotsReq {
		adm = o.admit(now)
	}
	if o.cfg.RateLimitHeaders && o.cfg.Rate > 0 {
		o.rateLimitHeaders(w.Header(), now)
	}
	o.mu.Unlock()

	cw := &countingWriter{ResponseWriter: w, o: o, head: r.Method == http.MethodHead}
	if logAt >= 0 {
		defer o.logAnswer(logAt, now, cw)
	}
	if adm.status != 0 {
		refuse(cw, adm)
		return
	}
	ctx := r.Context()
	if err := o.sleep(ctx, adm.wait+o.cfg.Latency); err != nil {
		o.canceled()
		return
	}
	if o.serveSitemap(cw, r) {
		return
	}
	rep := o.cfg.route(r.URL)
	if err := o.sleep(ctx, rep.delay); err != nil {
		o.canceled()
		return
	}
	if err := o.write(cw, r, rep); err != nil {
		o.canceled()
	}
}

func (o *Origin) canceled() {
	o.mu.Lock()
	o.stats.Canceled++
	o.mu.Unlock()
}

// disallowed reports whether the robots.txt this origin answers with
// forbids uri, reading the status as RFC 9309 does: 4xx allows everything,
// 5xx forbids everything, anything else (2xx, or 3xx to /robots2.txt,
// which serves the same text) applies the rules. o.mu is held.
func (o *Origin) disallowed(uri string) bool {
	switch s := o.cfg.RobotsStatus; {
	case s >= 400 && s < 500:
		return false
	case s >= 500:
		return true
	case o.cfg.Robots == "":
		return false
	}
	return o.robots.disallows(uri)
}

func isRobotsPath(p string) bool { return p == "/robots.txt" || p == "/robots2.txt" }

// sleepCtx waits d, or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// countingWriter counts statuses and body bytes into the origin's stats.
type countingWriter struct {
	http.ResponseWriter
	o      *Origin
	head   bool // HEAD: the body is not sent, so not counted
	status int  // the status sent; 0 until WriteHeader
}

func (c *countingWriter) WriteHeader(status int) {
	c.status = status
	c.o.mu.Lock()
	c.o.stats.ByStatus[status]++
	if status == http.StatusNotModified {
		c.o.stats.NotModified++
	}
	c.o.mu.Unlock()
	c.ResponseWriter.WriteHeader(status)
}

func (c *countingWriter) Write(p []byte) (int, error) {
	// Count before writing, so that a client that has read the body
	// already sees it counted; take back what was not written.
	c.count(len(p))
	n, err := c.ResponseWriter.Write(p)
	if n < len(p) {
		c.count(n - len(p))
	}
	return n, err
}

func (c *countingWriter) count(n int) {
	if c.head {
		return
	}
	c.o.mu.Lock()
	c.o.stats.BytesServed += int64(n)
	c.o.mu.Unlock()
}

// Flush sends what was written so far.
func (c *countingWriter) Flush() error {
	return http.NewResponseController(c.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the real writer.
func (c *countingWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }
