// Package crawltest provides the throttling origin polite is tested,
// benchmarked and demonstrated against: a net/http handler with a token
// bucket, a queueing mode, Retry-After, RateLimit headers, flaky and hostile
// modes, a robots.txt, and counters of everything it was asked.
package crawltest

import (
	"net/http"
	"time"
)

// Config describes one origin. The zero value serves every path at once
// with no limit and no robots.txt (404).
type Config struct {
	// Token bucket: Rate requests per second with Burst; 0 means unlimited.
	// A request over the limit gets 429 with Retry-After (RetryAfter, or the
	// time until the next token when RetryAfter is 0).
	Rate       float64
	Burst      int
	RetryAfter time.Duration

	// Queueing mode: a server with Capacity requests per second of service
	// and room for QueueMax waiting requests; latency rises as the queue
	// grows, 503 when it is full. Capacity 0 turns it off.
	Capacity float64
	QueueMax int

	// Latency added to every response (time to first byte).
	Latency time.Duration

	// RateLimitHeaders sends RateLimit-Limit/Remaining/Reset (and the
	// X-RateLimit-* forms) describing the token bucket.
	RateLimitHeaders bool

	// Robots is the robots.txt body; "" answers 404. RobotsStatus, when not
	// 0, is the status robots.txt answers with instead.
	Robots       string
	RobotsStatus int

	// Pages is the number of HTML pages /page/0 .. /page/N-1 (each links to
	// the next Links pages). Other paths serve a deterministic body.
	Pages int
	Links int
}

// Stats is what an origin counted.
type Stats struct {
	Requests     int            // every request, robots.txt included
	Robots       int            // requests for /robots.txt
	ByPath       map[string]int // requests per path (with query)
	ByStatus     map[int]int    // responses per status
	Disallowed   int            // requests to paths robots.txt disallows for "*" or any group
	OverLimit    int            // requests that arrived while the bucket was empty
	NotModified  int            // 304 answers
	Conditional  int            // requests carrying If-None-Match or If-Modified-Since
	BytesServed  int64
	Times        []time.Time    // arrival time of each request, in order
}

// Origin is a throttling test server handler. It is safe for concurrent use.
type Origin struct{}

// New returns an Origin for cfg.
func New(cfg Config) *Origin { panic("TODO") }

// ServeHTTP serves a request.
func (o *Origin) ServeHTTP(w http.ResponseWriter, r *http.Request) { panic("TODO") }

// Stats returns a copy of the counters.
func (o *Origin) Stats() Stats { panic("TODO") }

// Body returns the exact body the origin serves for a path (with query),
// for byte-for-byte checks.
func Body(path string) []byte { panic("TODO") }
