// Package fetch makes polite's HTTP requests: one client whose transport
// decides which addresses may be dialled, bodies read within their limits,
// failures classified into the reasons the frontier records, and the
// quota a server announces in its RateLimit headers.
package fetch

import (
	"compress/flate"
	"compress/gzip"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/robots"
)

// maxHeaderBytes bounds a response's headers.
const maxHeaderBytes = 64 << 10

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
		TLSHandshakeTimeout:    cfg.ConnectTimeout,
		ResponseHeaderTimeout:  cfg.HeaderTimeout,
		MaxResponseHeaderBytes: maxHeaderBytes,
		DisableCompression:     true,
		MaxIdleConns:           256,
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

// ErrBadEncoding is a compressed body that does not decode.
var ErrBadEncoding = errors.New("body does not decode")

// MaxBodyLimit is the largest --max-body: a body is held whole in memory
// before it is written, once per request in flight.
const MaxBodyLimit = 1 << 30

// readChunk is how much of a body is read at a time: what a request holds
// grows with the bytes that arrive, never with what Content-Length claims.
const readChunk = 32 << 10

// readBody reads and decodes a body of at most max bytes: over max it fails
// with errTooLarge, or with truncate returns the first max bytes; cut says
// the body was over max, and the bytes read (at most max) come back with
// errTooLarge too, for the WARC record. An identity body whose
// Content-Length is over max fails before it is read.
// An empty body is empty whatever its Content-Encoding says (a 304 or 204
// may carry the header of the body it stands for).
func readBody(resp *http.Response, max int64, truncate bool) (data []byte, cut bool, err error) {
	body := newPeekReader(resp.Body)
	var rd io.Reader = body
	identity := false
	switch enc := strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding"))); enc {
	case "", "identity":
		identity = true
	case "gzip", "x-gzip", "deflate":
		if len(body.peek(1)) == 0 {
			break
		}
		if enc == "deflate" {
			rd = newDeflateReader(body)
			break
		}
		zr, err := gzip.NewReader(body)
		if err != nil {
			return nil, false, decodeErr(err)
		}
		defer zr.Close()
		rd = zr
	default:
		// An encoding we did not ask for: keep the bytes as sent.
	}
	if identity && !truncate && resp.ContentLength > max {
		return nil, true, ErrTooLarge
	}
	data, over, err := readLimited(rd, max)
	switch {
	case err != nil:
		return nil, false, decodeErr(err)
	case over && truncate:
		return data, true, nil
	case over:
		return data, true, ErrTooLarge
	case identity && resp.ContentLength >= 0 && int64(len(data)) != resp.ContentLength:
		// net/http reports a short body itself; a body that is not the
		// length announced is never kept as whole.
		return nil, false, fmt.Errorf("body of %d bytes, %d announced: %w", len(data), resp.ContentLength, io.ErrUnexpectedEOF)
	}
	return data, false, nil
}

// readLimited reads r to its end in chunks of readChunk bytes, keeping at
// most max; over reports that more than max bytes came (reading stops
// there). No length is computed past max, whatever max is.
func readLimited(r io.Reader, max int64) (data []byte, over bool, err error) {
	chunk := make([]byte, readChunk)
	for {
		n, rerr := r.Read(chunk)
		if n > 0 {
			if room := max - int64(len(data)); int64(n) > room {
				return append(data, chunk[:room]...), true, nil
			}
			data = append(data, chunk[:n]...)
		}
		switch {
		case rerr == io.EOF:
			return data, false, nil
		case rerr != nil:
			return nil, false, rerr
		}
	}
}

// decodeErr marks the errors of a decoder (not of the connection under it)
// as ErrBadEncoding.
func decodeErr(err error) error {
	var corrupt flate.CorruptInputError
	if errors.Is(err, gzip.ErrHeader) || errors.Is(err, gzip.ErrChecksum) || errors.As(err, &corrupt) {
		return fmt.Errorf("%w: %v", ErrBadEncoding, err)
	}
	return err
}

// newDeflateReader reads "deflate" bodies, which servers send either as
// zlib (RFC 1950, as the spec says) or as raw DEFLATE.
func newDeflateReader(r io.Reader) io.Reader {
	br := newPeekReader(r)
	head := br.peek(2)
	if len(head) == 2 && head[0]&0x0f == 8 && (uint16(head[0])<<8|uint16(head[1]))%31 == 0 {
		// zlib header: skip it; flate reads the rest (the checksum is ignored).
		br.skip(2)
	}
	return flate.NewReader(br)
}

type peekReader struct {
	r   io.Reader
	buf []byte
}

func newPeekReader(r io.Reader) *peekReader { return &peekReader{r: r} }

func (p *peekReader) peek(n int) []byte {
	for len(p.buf) < n {
		b := make([]byte, n-len(p.buf))
		m, err := p.r.Read(b)
		p.buf = append(p.buf, b[:m]...)
		if err != nil {
			break
		}
	}
	return p.buf
}

func (p *peekReader) skip(n int) { p.buf = p.buf[min(n, len(p.buf)):] }

func (p *peekReader) Read(b []byte) (int, error) {
	if len(p.buf) > 0 {
		n := copy(b, p.buf)
		p.buf = p.buf[n:]
		return n, nil
	}
	return p.r.Read(b)
}

// GetRobots fetches a robots.txt: like get, but a body over
// robots.MaxBytes is cut there instead of failing, as RFC 9309 allows.
func (f *Client) GetRobots(ctx context.Context, u *url.URL) Response {
	g := *f
	g.maxBody, g.truncate = robots.MaxBytes, true
	return g.Get(ctx, u, nil)
}
