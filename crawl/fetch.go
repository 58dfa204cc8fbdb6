package crawl

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	"polite/robots"
)

// maxHeaderBytes bounds a response's headers.
const maxHeaderBytes = 64 << 10

// errTooLarge is a body over --max-body (after decoding).
var errTooLarge = errors.New("body over the size limit")

// errPrivate is a dial to a loopback, private or link-local address that
// the crawl was not allowed to make.
var errPrivate = errors.New("refused to dial a private address")

// fetcher makes one HTTP request at a time per call; it follows no
// redirects and decodes compressed bodies itself, so that the size limit
// applies to what is decoded.
type fetcher struct {
	client  *http.Client
	ua      string
	maxBody int64
	timeout time.Duration
	now     func() time.Time

	truncate bool // keep the first maxBody bytes instead of failing
}

// response is what one request gave.
type response struct {
	Status   int
	Header   http.Header
	Body     []byte
	TTFB     time.Duration
	Duration time.Duration
	Err      error
	Reason   string // classified failure: "" on an HTTP answer
}

type ctxKey int

const privateOKKey ctxKey = 0

// withPrivateOK marks a request that may dial private addresses (a seed's
// host, or --allow-private).
func withPrivateOK(ctx context.Context, ok bool) context.Context {
	return context.WithValue(ctx, privateOKKey, ok)
}

func newFetcher(cfg *Config, now func() time.Time) *fetcher {
	dialer := &net.Dialer{Timeout: cfg.ConnectTimeout, KeepAlive: 30 * time.Second}
	guarded := *dialer
	guarded.Control = denyPrivate
	tr := &http.Transport{
		Proxy: http.ProxyFromEnvironment,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if ok, _ := ctx.Value(privateOKKey).(bool); ok {
				return dialer.DialContext(ctx, network, addr)
			}
			return guarded.DialContext(ctx, network, addr)
		},
		TLSHandshakeTimeout:    cfg.ConnectTimeout,
		ResponseHeaderTimeout:  cfg.HeaderTimeout,
		MaxResponseHeaderBytes: maxHeaderBytes,
		DisableCompression:     true,
		MaxIdleConns:           256,
		MaxIdleConnsPerHost:    2,
		IdleConnTimeout:        30 * time.Second,
		ForceAttemptHTTP2:      true,
	}
	return &fetcher{
		client: &http.Client{
			Transport: tr,
			CheckRedirect: func(*http.Request, []*http.Request) error {
				return http.ErrUseLastResponse
			},
		},
		ua:      cfg.UserAgent,
		maxBody: cfg.MaxBody,
		timeout: cfg.Timeout,
		now:     now,
	}
}

func (f *fetcher) close() { f.client.CloseIdleConnections() }

// denyPrivate refuses, at dial time, addresses a server may not send polite to.
func denyPrivate(network, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	ip := net.ParseIP(host)
	if ip == nil || isPrivateIP(ip) {
		return fmt.Errorf("%w %s", errPrivate, host)
	}
	return nil
}

func isPrivateIP(ip net.IP) bool {
	return ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() ||
		ip.IsLinkLocalMulticast() || ip.IsUnspecified() || ip.IsMulticast() ||
		ip.IsInterfaceLocalMulticast()
}

// get fetches u with the given extra headers.
func (f *fetcher) get(ctx context.Context, u *url.URL, extra http.Header) response {
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	start := f.now()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return response{Err: err, Reason: "bad-url"}
	}
	req.Header.Set("User-Agent", f.ua)
	req.Header.Set("Accept-Encoding", "gzip, deflate")
	for k, v := range extra {
		req.Header[k] = v
	}
	resp, err := f.client.Do(req)
	if err != nil {
		return response{Err: err, Reason: classify(err), Duration: f.now().Sub(start)}
	}
	defer resp.Body.Close()
	r := response{Status: resp.StatusCode, Header: resp.Header, TTFB: f.now().Sub(start)}
	r.Body, err = readBody(resp, f.maxBody, f.truncate)
	r.Duration = f.now().Sub(start)
	if err != nil {
		r.Err, r.Reason = err, classify(err)
		r.Body = nil
	}
	return r
}

// readBody reads and decodes a body, stopping one byte past max: over
// max it fails with errTooLarge, or with truncate returns the first max bytes.
func readBody(resp *http.Response, max int64, truncate bool) ([]byte, error) {
	var rd io.Reader = resp.Body
	switch strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding"))) {
	case "", "identity":
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(resp.Body)
		if err != nil {
			return nil, fmt.Errorf("decode gzip body: %w", err)
		}
		defer zr.Close()
		rd = zr
	case "deflate":
		rd = newDeflateReader(resp.Body)
	default:
		// An encoding we did not ask for: keep the bytes as sent.
	}
	var buf bytes.Buffer
	if resp.ContentLength > 0 && resp.ContentLength <= max {
		buf.Grow(int(resp.ContentLength))
	}
	n, err := io.Copy(&buf, io.LimitReader(rd, max+1))
	if err != nil {
		return nil, err
	}
	if n > max {
		if truncate {
			return buf.Bytes()[:max], nil
		}
		return nil, errTooLarge
	}
	return buf.Bytes(), nil
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

// classify names a failure the way the report and the frontier record it.
func classify(err error) string {
	var (
		dnsErr  *net.DNSError
		certErr *tls.CertificateVerificationError
		recErr  tls.RecordHeaderError
		netErr  net.Error
	)
	switch {
	case errors.Is(err, errTooLarge):
		return "too-large"
	case errors.Is(err, errPrivate):
		return "private-address"
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.As(err, &dnsErr):
		return "dns"
	case errors.As(err, &certErr), errors.As(err, &recErr):
		return "tls"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "refused"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "reset"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return "timeout"
	case strings.Contains(err.Error(), "header"):
		return "bad-headers"
	case strings.Contains(err.Error(), "gzip"), strings.Contains(err.Error(), "flate"):
		return "bad-encoding"
	}
	return "network"
}

// getRobots fetches a robots.txt: like get, but a body over
// robots.MaxBytes is cut there instead of failing, as RFC 9309 allows.
func (f *fetcher) getRobots(ctx context.Context, u *url.URL) response {
	g := *f
	g.maxBody, g.truncate = robots.MaxBytes, true
	return g.get(ctx, u, nil)
}
