package crawltest

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"syscall"
	"time"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/clock"
	"github.com/polite-crawler/polite/crawl/fetch"
	"github.com/polite-crawler/polite/crawl/sitemap"
)

// Fetcher is a crawl.Fetcher that answers in memory, on a fake clock: each
// request is served by Handler (an Origin, or a test's own handler) in the
// fetching goroutine, after Latency held on Clock, so that fake time passes
// for it as for a request on the wire. No socket is opened. It records
// every request. It is safe for concurrent use.
type Fetcher struct {
	Clock   *clock.Fake
	Handler http.Handler
	// Latency is how long a request takes on Clock before Handler sees
	// it; LatencyOf, when set, gives it per URL instead.
	Latency   time.Duration
	LatencyOf func(u *url.URL) time.Duration
	// Refuse, when set and true for a URL, refuses its connection: the
	// answer is a network error of reason refused, after Latency.
	Refuse func(u *url.URL) bool

	mu   sync.Mutex
	reqs []Fetched
}

// Fetched is one request a Fetcher answered.
type Fetched struct {
	URL    string
	At     time.Time // when it started, on the clock
	Status int       // 0 when it failed or was cut
}

var _ crawl.Fetcher = (*Fetcher)(nil)

// Requests returns the requests answered so far, in the order they
// started.
func (f *Fetcher) Requests() []Fetched {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Fetched(nil), f.reqs...)
}

// Get serves u.
func (f *Fetcher) Get(ctx context.Context, u *url.URL, extra http.Header) fetch.Response {
	start := f.Clock.Now()
	f.mu.Lock()
	i := len(f.reqs)
	f.reqs = append(f.reqs, Fetched{URL: u.String(), At: start})
	f.mu.Unlock()
	lat := f.Latency
	if f.LatencyOf != nil {
		lat = f.LatencyOf(u)
	}
	if !f.Clock.Hold(ctx, lat) && ctx.Err() != nil {
		return fetch.Response{Err: ctx.Err(), Reason: fetch.Classify(ctx.Err()), Start: start}
	}
	if f.Refuse != nil && f.Refuse(u) {
		err := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
		return fetch.Response{Err: err, Reason: fetch.Classify(err), Start: start}
	}
	req := httptest.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	for k, v := range extra {
		req.Header[k] = v
	}
	rec := httptest.NewRecorder()
	f.Handler.ServeHTTP(rec, req)
	if err := ctx.Err(); err != nil {
		return fetch.Response{Err: err, Reason: fetch.Classify(err), Start: start}
	}
	took := f.Clock.Now().Sub(start)
	f.mu.Lock()
	f.reqs[i].Status = rec.Code
	f.mu.Unlock()
	return fetch.Response{Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes(),
		TTFB: took, Duration: took, Start: start, Sent: start}
}

// GetRobots serves a robots.txt request.
func (f *Fetcher) GetRobots(ctx context.Context, u *url.URL) fetch.Response {
	return f.Get(ctx, u, nil)
}

// GetSitemap serves a sitemap and reads its body as polite does, within opt.
func (f *Fetcher) GetSitemap(ctx context.Context, u *url.URL, extra http.Header, opt *sitemap.Options) (fetch.Response, *sitemap.Result) {
	r := f.Get(ctx, u, extra)
	if r.Err != nil || r.Status/100 != 2 {
		return r, nil
	}
	res := sitemap.Read(bytes.NewReader(r.Body), opt)
	r.Body = nil
	return r, res
}
