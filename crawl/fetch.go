package crawl

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
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/polite-crawler/polite/robots"
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
	proxy   func(*http.Request) (*url.URL, error) // the transport's; nil: none
	ua      string
	maxBody int64
	timeout time.Duration
	now     func() time.Time

	allowPrivate bool            // --allow-private
	seedHosts    map[string]bool // hosts that may be private: the seeds' own
	lookup       func(ctx context.Context, host string) ([]net.IPAddr, error)

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

const (
	grantKey ctxKey = iota // *privateGrant: withPrivateOK
	dialKey                // dialMode: how get lets the transport dial
)

// dialMode is what the dialer of one request may reach.
type dialMode int

const (
	dialGuarded dialMode = iota // public addresses only, checked on the address dialled
	dialPrivate                 // any address: a seed's host, --allow-private
	dialProxy                   // the user's proxy; the target was checked before
)

// privateGrant lets the first host fetched under it dial private addresses.
type privateGrant struct {
	ok   bool
	once sync.Once
	host string
}

// withPrivateOK marks a fetch that may dial private addresses (a seed's
// host, --allow-private, a URL the user named). The grant covers the host
// of the first request made with ctx only: a redirect that leaves that host
// (a robots.txt chain) is judged anew, so a server cannot send polite to a
// private address by redirecting.
func withPrivateOK(ctx context.Context, ok bool) context.Context {
	return context.WithValue(ctx, grantKey, &privateGrant{ok: ok})
}

// mayDialPrivate reports whether a request for u may reach loopback,
// private and link-local addresses.
func (f *fetcher) mayDialPrivate(ctx context.Context, u *url.URL) bool {
	granted := false
	if g, _ := ctx.Value(grantKey).(*privateGrant); g != nil {
		g.once.Do(func() { g.host = hostKey(u) })
		granted = g.ok && g.host == hostKey(u)
	}
	return granted || f.allowPrivate || f.seedHosts[hostKey(u)]
}

func newFetcher(cfg *Config, now func() time.Time) *fetcher {
	dialer := &net.Dialer{Timeout: cfg.ConnectTimeout, KeepAlive: 30 * time.Second}
	guarded := *dialer
	guarded.Control = denyPrivate
	tr := &http.Transport{
		Proxy: http.ProxyFromEnvironment,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if m, _ := ctx.Value(dialKey).(dialMode); m != dialGuarded {
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
	seeds := map[string]bool{}
	for _, s := range cfg.Seeds {
		if u, err := normalizeURL(s.URL); err == nil {
			seeds[hostKey(u)] = true
		}
	}
	return &fetcher{
		client: &http.Client{
			Transport: tr,
			CheckRedirect: func(*http.Request, []*http.Request) error {
				return http.ErrUseLastResponse
			},
		},
		proxy:        tr.Proxy,
		ua:           cfg.UserAgent,
		maxBody:      cfg.MaxBody,
		timeout:      cfg.Timeout,
		now:          now,
		allowPrivate: cfg.AllowPrivate,
		seedHosts:    seeds,
		lookup:       net.DefaultResolver.LookupIPAddr,
	}
}

func (f *fetcher) close() { f.client.CloseIdleConnections() }

// denyPrivate refuses, at dial time, addresses a server may not send polite
// to. It runs as the dialer's Control hook: after the name was resolved and
// the socket made, before connect, so no packet leaves for a refused address
// and a public name that resolves to a private address is caught too.
func denyPrivate(network, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return fmt.Errorf("%w %q", errPrivate, address)
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || isPrivateAddr(ip) {
		return fmt.Errorf("%w %s", errPrivate, host)
	}
	return nil
}

// sharedSpace is RFC 6598 carrier-grade NAT space, where some clouds keep
// their metadata service (100.100.100.200).
var sharedSpace = netip.MustParsePrefix("100.64.0.0/10")

// nat64 is the RFC 6052 well-known prefix: an IPv4 address embedded in it
// is judged as that address.
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// isPrivateAddr reports whether ip is one a server may not send polite to:
// loopback, private (RFC 1918, fc00::/7), link-local (169.254.0.0/16, the
// cloud metadata address among them, fe80::/10), unspecified, multicast,
// broadcast and shared address space, also when IPv4 comes mapped into IPv6.
func isPrivateAddr(ip netip.Addr) bool {
	if ip.Zone() != "" {
		return true // a scoped address names a local interface
	}
	ip = ip.Unmap()
	if nat64.Contains(ip) {
		b := ip.As16()
		ip = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	}
	return !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() ||
		ip.IsLinkLocalMulticast() || ip.IsUnspecified() || ip.IsMulticast() ||
		ip.IsInterfaceLocalMulticast() || sharedSpace.Contains(ip) ||
		ip == netip.AddrFrom4([4]byte{255, 255, 255, 255})
}

// checkProxied judges the target of a request that goes through a proxy:
// the address dialled is then the proxy's, which the user chose, so the
// target's own addresses are looked up and judged instead. A name that does
// not resolve here is left to the proxy.
func (f *fetcher) checkProxied(ctx context.Context, u *url.URL) error {
	host := u.Hostname()
	if ip, err := netip.ParseAddr(host); err == nil {
		if isPrivateAddr(ip) {
			return fmt.Errorf("%w %s", errPrivate, host)
		}
		return nil
	}
	addrs, err := f.lookup(ctx, host)
	if err != nil {
		return nil
	}
	for _, a := range addrs {
		if ip, ok := netip.AddrFromSlice(a.IP); !ok || isPrivateAddr(ip.WithZone(a.Zone)) {
			return fmt.Errorf("%w %s (%s)", errPrivate, a.IP, host)
		}
	}
	return nil
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
	mode := dialGuarded
	if f.mayDialPrivate(ctx, u) {
		mode = dialPrivate
	} else if f.proxy != nil {
		if p, perr := f.proxy(req); perr == nil && p != nil {
			if err := f.checkProxied(ctx, u); err != nil {
				return response{Err: err, Reason: classify(err), Duration: f.now().Sub(start)}
			}
			mode = dialProxy
		}
	}
	req = req.WithContext(context.WithValue(ctx, dialKey, mode))
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

// errBadEncoding is a compressed body that does not decode.
var errBadEncoding = errors.New("body does not decode")

// MaxBodyLimit is the largest --max-body: a body is held whole in memory
// before it is written, once per request in flight.
const MaxBodyLimit = 1 << 30

// readChunk is how much of a body is read at a time: what a request holds
// grows with the bytes that arrive, never with what Content-Length claims.
const readChunk = 32 << 10

// readBody reads and decodes a body of at most max bytes: over max it fails
// with errTooLarge, or with truncate returns the first max bytes. An
// identity body whose Content-Length is over max fails before it is read.
// An empty body is empty whatever its Content-Encoding says (a 304 or 204
// may carry the header of the body it stands for).
func readBody(resp *http.Response, max int64, truncate bool) ([]byte, error) {
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
			return nil, decodeErr(err)
		}
		defer zr.Close()
		rd = zr
	default:
		// An encoding we did not ask for: keep the bytes as sent.
	}
	if identity && !truncate && resp.ContentLength > max {
		return nil, errTooLarge
	}
	data, over, err := readLimited(rd, max)
	switch {
	case err != nil:
		return nil, decodeErr(err)
	case over && truncate:
		return data, nil
	case over:
		return nil, errTooLarge
	case identity && resp.ContentLength >= 0 && int64(len(data)) != resp.ContentLength:
		// net/http reports a short body itself; a body that is not the
		// length announced is never kept as whole.
		return nil, fmt.Errorf("body of %d bytes, %d announced: %w", len(data), resp.ContentLength, io.ErrUnexpectedEOF)
	}
	return data, nil
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
// as errBadEncoding.
func decodeErr(err error) error {
	var corrupt flate.CorruptInputError
	if errors.Is(err, gzip.ErrHeader) || errors.Is(err, gzip.ErrChecksum) || errors.As(err, &corrupt) {
		return fmt.Errorf("%w: %v", errBadEncoding, err)
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
	case errors.Is(err, errBadEncoding):
		return "bad-encoding"
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
