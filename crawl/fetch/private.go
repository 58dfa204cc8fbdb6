package fetch

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"sort"
	"strings"
	"sync"
	"syscall"

	"github.com/polite-crawler/polite/crawl/urls"
)

// ErrPrivate is a dial to a loopback, private or link-local address that
// the crawl was not allowed to make.
var ErrPrivate = errors.New("refused to dial a private address")

// This file holds the one rule for what polite may dial. Seeds are the
// user's; links and redirects are the servers'. A request may reach a
// loopback, private or link-local address only when mayDialPrivate says so
// (the URL's origin is a seed's, --allow-private, or a URL the user named);
// every other request is judged on the address it reaches:
//
//   - dialled directly, by the dialer's Control hook on the address
//     connected to, after name resolution (denyPrivate);
//   - through a proxy, which resolves the name itself, by the transport's
//     Proxy hook on the URL's host before the proxy hears of it
//     (checkTarget): a literal in any form a resolver reads (2130706433,
//     127.1, 0x7f000001, 0177.0.0.1, IPv4-mapped IPv6), "localhost" and
//     its subdomains, and the addresses the name resolves to here.
//
// Both hooks sit in the fetcher's one transport, so every request polite
// makes (pages, redirects, robots.txt) passes them.

// Origin is what a seed exempts: scheme, host and effective port. A seed on
// http://127.0.0.1/ does not make https://127.0.0.1/ (port 443, another
// service) a seed's.
type Origin struct{ Scheme, Host, Port string }

// OriginOf returns u's origin, its port made explicit.
func OriginOf(u *url.URL) Origin {
	port := u.Port()
	if port == "" {
		port = "80"
		if strings.EqualFold(u.Scheme, "https") {
			port = "443"
		}
	}
	return Origin{strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), port}
}

// String is the origin as the database keeps it: "scheme://host:port".
func (o Origin) String() string { return o.Scheme + "://" + net.JoinHostPort(o.Host, o.Port) }

// ParseOrigin reads an origin written by String.
func ParseOrigin(s string) (Origin, bool) {
	scheme, hostport, ok := strings.Cut(s, "://")
	host, port, err := net.SplitHostPort(hostport)
	if !ok || err != nil || scheme == "" || port == "" {
		return Origin{}, false
	}
	return Origin{Scheme: scheme, Host: host, Port: port}, true
}

// Origins is a set of origins: those of the seeds, which the dial policy
// exempts.
type Origins map[Origin]bool

// Add adds the origin of u.
func (s Origins) Add(u *url.URL) { s[OriginOf(u)] = true }

// AddKept adds an origin as List wrote it; one that does not read is
// skipped.
func (s Origins) AddKept(o string) {
	if o, ok := ParseOrigin(o); ok {
		s[o] = true
	}
}

// List is the set as strings, sorted.
func (s Origins) List() []string {
	out := make([]string, 0, len(s))
	for o := range s {
		out = append(out, o.String())
	}
	sort.Strings(out)
	return out
}

// dialPolicy decides which requests may reach private addresses.
type dialPolicy struct {
	allowAll bool    // --allow-private
	seeds    Origins // the seeds' origins
}

func newDialPolicy(allowAll bool) dialPolicy {
	// The seeds' origins are added as the run loads its seeds, before
	// its first request (seeds.Loader).
	return dialPolicy{allowAll: allowAll, seeds: Origins{}}
}

// privateGrant lets the first origin fetched under it dial private addresses.
type privateGrant struct {
	ok     bool
	once   sync.Once
	origin Origin
}

type grantKey struct{}

// WithPrivateOK marks a fetch of a URL the user named (polite robots
// check): it may dial private addresses. The grant covers the origin of
// the first request made with ctx only: a redirect that leaves it (a
// robots.txt chain) is judged anew, so a server cannot send polite to a
// private address by redirecting.
func WithPrivateOK(ctx context.Context, ok bool) context.Context {
	return context.WithValue(ctx, grantKey{}, &privateGrant{ok: ok})
}

// mayDialPrivate reports whether a request for u may reach loopback,
// private and link-local addresses: u's origin is a seed's, the crawl has
// --allow-private, or ctx carries a grant for u's origin. It is the only
// place that decides it.
func (p *dialPolicy) mayDialPrivate(ctx context.Context, u *url.URL) bool {
	o := OriginOf(u)
	granted := false
	if g, _ := ctx.Value(grantKey{}).(*privateGrant); g != nil {
		g.once.Do(func() { g.origin = o })
		granted = g.ok && g.origin == o
	}
	return granted || p.allowAll || p.seeds[o]
}

// dialMode is what the dialer of one request may reach; get puts it in the
// request's context.
type dialMode int

const (
	dialGuarded dialMode = iota // public addresses only (also with no mode set)
	dialPrivate                 // any address: mayDialPrivate said so
)

type dialModeKey struct{}

func withDialMode(ctx context.Context, m dialMode) context.Context {
	return context.WithValue(ctx, dialModeKey{}, m)
}

func dialModeOf(ctx context.Context) dialMode {
	m, _ := ctx.Value(dialModeKey{}).(dialMode)
	return m
}

// guard is the fetcher's transport side of the rule: the Proxy and
// DialContext hooks.
type guard struct {
	proxy   func(*http.Request) (*url.URL, error) // the user's; nil: none
	lookup  func(ctx context.Context, host string) ([]net.IPAddr, error)
	dialer  *net.Dialer // any address
	guarded *net.Dialer // public addresses only
	resolve Resolver    // the addresses of a name; nil: the dialers look it up
	proxies sync.Map    // dial addresses of the user's proxies seen: "host:port" -> true
}

func newGuard(d *net.Dialer) *guard {
	g := &guard{proxy: http.ProxyFromEnvironment, lookup: net.DefaultResolver.LookupIPAddr, dialer: d}
	guarded := *d
	guarded.Control = denyPrivate
	g.guarded = &guarded
	return g
}

// proxyFor is the transport's Proxy hook: the user's proxy for req, given
// only a target that passed checkTarget (unless req may dial private
// addresses). The proxy's own address is the user's choice and is dialled
// as it is.
func (g *guard) proxyFor(req *http.Request) (*url.URL, error) {
	if g.proxy == nil {
		return nil, nil
	}
	p, err := g.proxy(req)
	if err != nil || p == nil {
		return p, err
	}
	if dialModeOf(req.Context()) != dialPrivate {
		if err := g.checkTarget(req.Context(), req.URL); err != nil {
			return nil, err
		}
	}
	g.proxies.Store(proxyDialAddr(p), true)
	if n := connNoteOf(req.Context()); n != nil {
		n.viaProxy() // the address dialled is the proxy's, not the server's
	}
	return p, nil
}

// proxyDialAddr is the address the transport dials for proxy p.
func proxyDialAddr(p *url.URL) string {
	port := p.Port()
	if port == "" {
		switch strings.ToLower(p.Scheme) {
		case "https":
			port = "443"
		case "socks5", "socks5h":
			port = "1080"
		default:
			port = "80"
		}
	}
	return net.JoinHostPort(p.Hostname(), port)
}

// isProxy reports whether addr is the dial address of a proxy of the user's.
func (g *guard) isProxy(addr string) bool {
	_, ok := g.proxies.Load(addr)
	return ok
}

// dial is the transport's DialContext hook. A server's name is dialled at
// the addresses the Resolver gives, each in turn within the connect
// timeout, so the dial policy (denyPrivate) judges the address the crawl
// paces; a proxy is dialled as the user named it.
func (g *guard) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	isProxy := g.isProxy(addr)
	d := g.guarded
	if isProxy || dialModeOf(ctx) == dialPrivate {
		d = g.dialer
	}
	host, port, err := net.SplitHostPort(addr)
	if isProxy || g.resolve == nil || err != nil {
		return d.DialContext(ctx, network, addr)
	}
	ips, err := g.resolve.Resolve(ctx, host)
	if err != nil {
		return nil, &net.OpError{Op: "dial", Net: network, Err: err}
	}
	if d.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d.Timeout)
		defer cancel()
	}
	var first error
	for _, ip := range ips {
		c, err := d.DialContext(ctx, network, net.JoinHostPort(ip.String(), port))
		if err == nil {
			return c, nil
		}
		first = cmp.Or(first, err)
		if ctx.Err() != nil {
			break
		}
	}
	return nil, cmp.Or(first, error(&net.AddrError{Err: "no address to dial", Addr: host}))
}

// checkTarget judges the host of a request that goes through a proxy: the
// proxy resolves the name, so polite judges it first, the way a resolver
// reads it. A name that does not urls.Resolve here is left to the proxy.
func (g *guard) checkTarget(ctx context.Context, u *url.URL) error {
	host := u.Hostname()
	if ip, ok := hostAddr(host); ok {
		if isPrivateAddr(ip) {
			return fmt.Errorf("%w %s", ErrPrivate, host)
		}
		return nil
	}
	name := strings.ToLower(strings.TrimRight(host, "."))
	if name == "localhost" || strings.HasSuffix(name, ".localhost") {
		return fmt.Errorf("%w %s", ErrPrivate, host) // RFC 6761: always loopback
	}
	if urls.EndsInNumber(name) {
		return fmt.Errorf("%w %s (not an address a resolver reads alike)", ErrPrivate, host)
	}
	addrs, err := g.lookup(ctx, host)
	if err != nil {
		return nil
	}
	for _, a := range addrs {
		if ip, ok := netip.AddrFromSlice(a.IP); !ok || isPrivateAddr(ip.WithZone(a.Zone)) {
			return fmt.Errorf("%w %s (%s)", ErrPrivate, a.IP, host)
		}
	}
	return nil
}

// denyPrivate refuses, at dial time, addresses a server may not send polite
// to. It runs as the dialer's Control hook: after the name was resolved and
// the socket made, before connect, so no packet leaves for a refused address
// and a public name that resolves to a private address is caught too.
func denyPrivate(network, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return fmt.Errorf("%w %q", ErrPrivate, address)
	}
	ip, ok := hostAddr(host)
	if !ok || isPrivateAddr(ip) {
		return fmt.Errorf("%w %s", ErrPrivate, host)
	}
	return nil
}

// hostAddr reads host as the address a resolver would make of it, if it is
// one: an IPv6 literal (bracketed or not, with a zone), or an IPv4 address
// in any form inet_aton and the URL standard read (127.0.0.1, 127.1,
// 2130706433, 0x7f000001, 0177.0.0.1). IPv4-mapped IPv6 stays mapped;
// isPrivateAddr judges it as the IPv4 address.
func hostAddr(host string) (netip.Addr, bool) {
	h := strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if ip, err := netip.ParseAddr(h); err == nil {
		return ip, true
	}
	if ip, err := urls.ParseLooseIPv4(strings.TrimSuffix(h, ".")); err == nil {
		return ip, true
	}
	return netip.Addr{}, false
}

// Special address ranges isPrivateAddr refuses beyond the standard library's.
var (
	sharedSpace = netip.MustParsePrefix("100.64.0.0/10") // RFC 6598 CGNAT; some clouds' metadata (100.100.100.200)
	thisNetwork = netip.MustParsePrefix("0.0.0.0/8")     // "this network": 0.x reaches the host itself on some systems
	nat64       = netip.MustParsePrefix("64:ff9b::/96")  // RFC 6052: the embedded IPv4 address is judged
	nat64Local  = netip.MustParsePrefix("64:ff9b:1::/48")
	v4Compat    = netip.MustParsePrefix("::/96") // deprecated IPv4-compatible IPv6
)

// isPrivateAddr reports whether ip is one a server may not send polite to:
// loopback, private (RFC 1918, fc00::/7), link-local (169.254.0.0/16, the
// cloud metadata address among them, fe80::/10), unspecified, "this
// network", multicast, broadcast and shared address space, also when IPv4
// comes mapped, compatible or NAT64-embedded into IPv6.
func isPrivateAddr(ip netip.Addr) bool {
	if ip.Zone() != "" {
		return true // a scoped address names a local interface
	}
	ip = ip.Unmap()
	if nat64.Contains(ip) || v4Compat.Contains(ip) {
		b := ip.As16()
		ip = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	}
	return !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() ||
		ip.IsLinkLocalMulticast() || ip.IsUnspecified() || ip.IsMulticast() ||
		ip.IsInterfaceLocalMulticast() || sharedSpace.Contains(ip) || thisNetwork.Contains(ip) ||
		nat64Local.Contains(ip) || ip == netip.AddrFrom4([4]byte{255, 255, 255, 255})
}
