// Package fetch makes polite's HTTP requests: one client whose transport
// decides which addresses may be dialled, bodies read within their limits,
// failures classified into the reasons the frontier records, and the
// quota a server announces in its RateLimit headers.
package fetch

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/netip"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/robots"
)

// maxHeaderBytes bounds a response's headers.
const maxHeaderBytes = 64 << 10

// maxIdleConns is how many idle connections the client keeps, each for up
// to 30 s: a host asked again within that time is asked on its open
// connection, with no new TCP or TLS handshake for its server. A crawl of
// 1,000 hosts at once kept only 256 of them and dialled most hosts twice
// (robots.txt, then the first page): with 1,024 it ran 1.2-1.4x the pages
// a second, for about 20 KB of memory each idle connection (plain HTTP).
const maxIdleConns = 1024

// ErrTooLarge is a body over --max-body (after decoding).
var ErrTooLarge = errors.New("body over the size limit")

// fetcher makes one HTTP request at a time per call; it follows no
// redirects and decodes compressed bodies itself, so that the size limit
// applies to what is decoded.
type Client struct {
	client  *http.Client
	guard   *guard // what the transport may dial
	ua      string
	maxBody int64
	timeout time.Duration
	now     func() time.Time

	policy dialPolicy // which requests may reach private addresses

	truncate bool // keep the first maxBody bytes instead of failing

	keep bool // --warc: each answer carries its Capture

	headers Headers // the operator's, each sent where it may go
}

// Options are a Client's settings; DefaultOptions gives the command
// line's defaults.
type Options struct {
	UserAgent      string        // sent on every request
	MaxBody        int64         // bytes of a decoded body; over it the fetch fails
	Timeout        time.Duration // whole request
	ConnectTimeout time.Duration
	HeaderTimeout  time.Duration // until the response headers
	AllowPrivate   bool          // --allow-private: any address may be dialled
	CAFile         string        // --ca-file: PEM certificates trusted beside the system's roots; "" for none
	Resolver       Resolver      // the addresses dialled for a name; nil: the system's, at each dial
	Headers        Headers       // the operator's request headers (--header...)
}

// Resolver gives the addresses to dial for a host name, in the order to
// try them: the crawl's, which looks each name up once a run and paces
// the address it dials (crawl/hostgroup).
type Resolver interface {
	Resolve(ctx context.Context, host string) ([]netip.Addr, error)
}

// DefaultOptions returns the defaults of polite crawl's flags.
func DefaultOptions() Options {
	return Options{
		UserAgent:      "polite/dev",
		MaxBody:        10 << 20,
		Timeout:        30 * time.Second,
		ConnectTimeout: 10 * time.Second,
		HeaderTimeout:  15 * time.Second,
	}
}

// Response is what one request gave.
type Response struct {
	Status   int
	Header   http.Header
	Body     []byte
	TTFB     time.Duration
	Duration time.Duration
	Err      error
	Reason   frontier.Reason // classified failure: "" on an HTTP answer
	Detail   string          // a refused TLS handshake in words (Refusal): "certificate expired on ..."
	Usage    []string        // what the site said of the use of this resource, as shown (crawl/usage's Policy.Keep); nil for nothing

	// Credentials says a secret header of the operator's went with the
	// request; the answer's Set-Cookie is then Redacted.
	Credentials bool

	// Capture is what a WARC record keeps of the exchange, when the
	// client keeps exchanges and the body was read (whole or cut at the
	// limit).
	Capture *Capture

	Start time.Time // when the request started, on the client's clock
	Sent  time.Time // when it was written, after any dial; zero if never

	note *connNote // the connection's address, for a WARC record
}

// New returns a Client with the given settings whose clock is now. Its
// only error is a CA file that cannot be used (LoadRoots).
func New(cfg Options, now func() time.Time) (*Client, error) {
	tc := &tls.Config{}
	if cfg.CAFile != "" {
		roots, err := LoadRoots(cfg.CAFile)
		if err != nil {
			return nil, err
		}
		tc.RootCAs = roots
	}
	g := newGuard(&net.Dialer{Timeout: cfg.ConnectTimeout, KeepAlive: 30 * time.Second})
	g.resolve = cfg.Resolver
	tr := &http.Transport{
		TLSClientConfig:        tc,
		Proxy:                  g.proxyFor,
		DialContext:            dialHeads(g.dial),
		DialTLSContext:         dialTLSHeads(g.dial, tc, cfg.ConnectTimeout, g.isProxy),
		TLSHandshakeTimeout:    cfg.ConnectTimeout,
		ResponseHeaderTimeout:  cfg.HeaderTimeout,
		MaxResponseHeaderBytes: maxHeaderBytes,
		DisableCompression:     true,
		MaxIdleConns:           maxIdleConns,
		MaxIdleConnsPerHost:    2,
		IdleConnTimeout:        30 * time.Second,
		ForceAttemptHTTP2:      true,
	}
	return &Client{
		client: &http.Client{
			Transport: tr,
			CheckRedirect: func(*http.Request, []*http.Request) error {
				return http.ErrUseLastResponse
			},
		},
		guard:   g,
		ua:      cfg.UserAgent,
		maxBody: cfg.MaxBody,
		timeout: cfg.Timeout,
		now:     now,
		policy:  newDialPolicy(cfg.AllowPrivate),
		headers: cfg.Headers,
	}, nil
}

// Close closes the idle connections.
func (f *Client) Close() { f.client.CloseIdleConnections() }

// KeepExchanges makes every later answer carry its Capture (--warc).
func (f *Client) KeepExchanges() { f.keep = true }

// Origins is the set of origins that may dial private addresses (the
// seeds'); the caller adds to it before the requests it covers.
func (f *Client) Origins() Origins { return f.policy.seeds }

// Get fetches u with the given extra headers.
func (f *Client) Get(ctx context.Context, u *url.URL, extra http.Header) Response {
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	resp, r := f.send(ctx, u, extra)
	if resp == nil {
		return r
	}
	defer resp.Body.Close()
	raw := keepRaw(f.keep, resp)
	body, cut, err := readBody(resp, f.maxBody, f.truncate)
	if err == nil && ctx.Err() != nil {
		// Cut (the run's grace ended, or the timeout) while the answer
		// came in: the transport may still hand over what it had read,
		// but a request that was cut did not finish.
		err = ctx.Err()
	}
	r.Body, r.Duration = body, f.now().Sub(r.Start)
	if f.keep && (err == nil || errors.Is(err, ErrTooLarge)) {
		r.Capture = f.capture(resp, r, raw.or(body), cut)
	}
	if err != nil {
		r.Err, r.Reason, r.Detail = err, Classify(err), Refusal(err, f.now())
		r.Body = nil
	}
	return r
}

// Conditional is the headers that make a request for a URL fetched
// before conditional: its ETag as If-None-Match, its Last-Modified as
// If-Modified-Since; none for an empty one.
func Conditional(etag, lastModified string) http.Header {
	hdr := http.Header{}
	if etag != "" {
		hdr.Set("If-None-Match", etag)
	}
	if lastModified != "" {
		hdr.Set("If-Modified-Since", lastModified)
	}
	return hdr
}

// Send makes the request for u and returns the response, whose body the
// caller reads and closes, with its status, headers and time to first
// byte; or no response and the failure.
func (f *Client) send(ctx context.Context, u *url.URL, extra http.Header) (*http.Response, Response) {
	start := f.now()
	var note *connNote
	if f.keep {
		ctx, note = withConnNote(ctx)
	}
	var sent atomic.Pointer[time.Time] // written by the transport's goroutine
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) {
		t := f.now()
		sent.Store(&t)
	}})
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, Response{Err: err, Reason: frontier.ReasonBadURL}
	}
	req.Header.Set("User-Agent", f.ua)
	req.Header.Set("Accept-Encoding", "gzip, deflate")
	secret := f.headers.apply(req.Header, u, f.policy.seeds)
	for k, v := range extra {
		req.Header[k] = v
	}
	mode := dialGuarded
	if f.policy.mayDialPrivate(ctx, u) {
		mode = dialPrivate
	}
	req = req.WithContext(withDialMode(ctx, mode))
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, Response{Err: err, Reason: Classify(err), Detail: Refusal(err, f.now()), Duration: f.now().Sub(start)}
	}
	if secret {
		redactAnswer(resp.Header)
	}
	r := Response{Status: resp.StatusCode, Header: resp.Header, TTFB: f.now().Sub(start), Start: start, note: note, Credentials: secret}
	if t := sent.Load(); t != nil {
		r.Sent = *t
	}
	return resp, r
}

// GetRobots fetches a robots.txt: like get, but a body over
// robots.MaxBytes is cut there instead of failing, as RFC 9309 allows.
func (f *Client) GetRobots(ctx context.Context, u *url.URL) Response {
	g := *f
	g.maxBody, g.truncate = robots.MaxBytes, true
	return g.Get(ctx, u, nil)
}
