// Package hostgroup decides which pace a host is paced under (--pace-by):
// its own (host, the default), its registrable domain's (domain), or that
// of the server address its name resolves to (ip). It resolves each name
// once a run and keeps the addresses, which polite's HTTP client dials
// (Resolve): the address paced is the address dialled, and the one the
// private-address policy judges.
package hostgroup

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/urls"
)

// By is how hosts are grouped into paces: the value of --pace-by.
type By string

// The groupings of --pace-by.
const (
	ByHost   By = "host"   // each host (name and port) has its own pace
	ByDomain By = "domain" // one pace per registrable domain, whatever the name's port
	ByIP     By = "ip"     // one pace per server address, whatever the name or port
)

// Parse reads a --pace-by value.
func Parse(s string) (By, error) {
	b := By(strings.ToLower(strings.TrimSpace(s)))
	if b == "" || !b.Valid() {
		return "", fmt.Errorf("--pace-by must be host, domain or ip, got %q", s)
	}
	return b, nil
}

// Valid reports whether b is a grouping; "" counts as ByHost.
func (b By) Valid() bool { return b == "" || b == ByHost || b == ByDomain || b == ByIP }

// Resolver looks names up: *net.Resolver is one, Static a test's.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Static resolves names from a table, for tests and benchmarks, which
// must not reach DNS: a name not in it is not found.
type Static map[string][]netip.Addr

// LookupNetIP returns the name's addresses of the network's family
// ("ip", "ip4" or "ip6").
func (s Static) LookupNetIP(_ context.Context, network, host string) ([]netip.Addr, error) {
	var out []netip.Addr
	for _, a := range s[normName(host)] {
		if network == "ip" || (network == "ip4") == a.Unmap().Is4() {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return out, nil
}

// lookupTimeout bounds a lookup the crawl's loop waits for when New is
// given none.
const lookupTimeout = 10 * time.Second

// prepareAtOnce is how many names Prepare looks up at once.
const prepareAtOnce = 16

// Groups is one run's grouping: the pace key of each host met, and the
// addresses each name resolved to. Safe for concurrent use: the crawl's
// loop asks for keys (Key), the HTTP client's dialer for addresses
// (Resolve). The zero value is not usable; call New.
type Groups struct {
	by      By
	res     Resolver
	timeout time.Duration

	mu      sync.Mutex
	names   map[string]*lookup    // name -> its lookup, once a run
	keys    map[string]string     // host key -> pace key, fixed for the run
	byAddr  map[netip.Addr]string // under ip: an address -> its group's key
	unsaved []frontier.PaceMember // members met since Unsaved last took them
}

// lookup is one name's resolution: addrs and err are set before done
// closes; addrs may be reordered later (under Groups.mu), never changed.
type lookup struct {
	done  chan struct{}
	addrs []netip.Addr
	err   error
}

// New returns the grouping by of one run. r looks names up (nil: the
// system's resolver); timeout bounds each lookup the crawl's loop waits
// for (0: 10 s).
func New(by By, r Resolver, timeout time.Duration) *Groups {
	if by == "" {
		by = ByHost
	}
	if r == nil {
		r = net.DefaultResolver
	}
	if timeout <= 0 {
		timeout = lookupTimeout
	}
	return &Groups{by: by, res: r, timeout: timeout, names: map[string]*lookup{},
		keys: map[string]string{}, byAddr: map[netip.Addr]string{}}
}

// By is the grouping.
func (g *Groups) By() By { return g.by }

// Key returns the key hostKey (a host plus any non-default port, as
// crawl/urls.Host gives it) is paced under: under host the host key
// itself; under domain "domain:" and its registrable domain (an address,
// or a name without one, stands for itself); under ip "ip:" and the
// address of its server: the first its name resolves to, or one it shares
// with a group met before (an address written in the URL is its own). A
// name that does not resolve is paced alone, under its host key. Under ip
// the first Key of a name waits for its lookup (at most New's timeout);
// Prepare looks many up at once. A host's key does not change in a run.
func (g *Groups) Key(hostKey string) string {
	if g.by == ByHost {
		return hostKey
	}
	g.mu.Lock()
	k, ok := g.keys[hostKey]
	g.mu.Unlock()
	if ok {
		return k
	}
	name := hostName(hostKey)
	var addrs []netip.Addr
	if g.by == ByIP {
		addrs = g.addrsOf(name)
	}
	return g.assign(hostKey, name, addrs)
}

// assign gives hostKey its key, unless it has one: from its name, or under
// ip from the addresses its name resolved to.
func (g *Groups) assign(hostKey, name string, addrs []netip.Addr) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if k, ok := g.keys[hostKey]; ok {
		return k
	}
	k := g.keyOf(hostKey, name, addrs)
	g.keys[hostKey] = k
	if k != hostKey {
		g.unsaved = append(g.unsaved, frontier.PaceMember{By: string(g.by), Group: k, Host: hostKey})
	}
	return k
}

// keyOf is Key's decision for a host met for the first time. g.mu is held.
func (g *Groups) keyOf(hostKey, name string, addrs []netip.Addr) string {
	if g.by == ByDomain {
		if d, ok := urls.Domain(name); ok {
			return "domain:" + d
		}
		return "domain:" + name
	}
	if len(addrs) == 0 {
		return hostKey
	}
	k := ""
	for i, a := range addrs {
		if gk, ok := g.byAddr[a]; ok {
			k = gk
			g.first(name, i) // dial the address the group is paced by
			break
		}
	}
	if k == "" {
		k = "ip:" + addrs[0].String()
	}
	for _, a := range addrs {
		if _, ok := g.byAddr[a]; !ok {
			g.byAddr[a] = k
		}
	}
	return k
}

// first moves the i-th address of name's lookup to the front. g.mu is held.
func (g *Groups) first(name string, i int) {
	l := g.names[name]
	if l == nil || i == 0 || i >= len(l.addrs) {
		return
	}
	addrs := slices.Clone(l.addrs)
	a := addrs[i]
	copy(addrs[1:i+1], addrs[:i])
	addrs[0] = a
	l.addrs = addrs
}

// addrsOf returns the addresses of name, a name or an address literal;
// none when the lookup fails.
func (g *Groups) addrsOf(name string) []netip.Addr {
	if a, ok := literal(name); ok {
		return []netip.Addr{a}
	}
	ctx, cancel := context.WithTimeout(context.Background(), g.timeout)
	defer cancel()
	addrs, _ := g.lookup(ctx, name)
	return addrs
}

// Prepare looks up, under ip, the names of the queued hosts not met yet,
// several at once, then gives each its key in the order given; under host
// and domain it does nothing (their keys need no lookup).
func (g *Groups) Prepare(queued []frontier.HostQueue) {
	if g.by != ByIP {
		return
	}
	var todo []string
	g.mu.Lock()
	for _, q := range queued {
		if _, ok := g.keys[q.Host]; !ok {
			todo = append(todo, q.Host)
		}
	}
	g.mu.Unlock()
	found := make([][]netip.Addr, len(todo))
	sem := make(chan struct{}, prepareAtOnce)
	var wg sync.WaitGroup
	for i, k := range todo {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			found[i] = g.addrsOf(hostName(k))
		})
	}
	wg.Wait()
	for i, k := range todo {
		g.assign(k, hostName(k), found[i])
	}
}

// Resolve returns the addresses polite dials for host, a name or an
// address (no port, no brackets): an address is itself; a name is looked
// up once a run (a failed lookup is tried again at the next dial), and
// under ip the address its group is paced by comes first. The HTTP
// client's dialer calls it (crawl/fetch's Resolver).
func (g *Groups) Resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, ok := literal(host); ok {
		return []netip.Addr{a}, nil
	}
	return g.lookup(ctx, normName(host))
}

// lookup resolves name once: the first caller looks it up, the others
// wait for its answer (or their ctx). A failure is not kept.
func (g *Groups) lookup(ctx context.Context, name string) ([]netip.Addr, error) {
	g.mu.Lock()
	l := g.names[name]
	mine := l == nil
	if mine {
		l = &lookup{done: make(chan struct{})}
		g.names[name] = l
	}
	g.mu.Unlock()
	if mine {
		addrs, err := g.res.LookupNetIP(ctx, "ip", name)
		if err == nil && len(addrs) == 0 {
			err = &net.DNSError{Err: "no address", Name: name, IsNotFound: true}
		}
		g.mu.Lock()
		l.err = err
		for _, a := range addrs {
			if a = a.Unmap(); !slices.Contains(l.addrs, a) {
				l.addrs = append(l.addrs, a)
			}
		}
		if err != nil {
			delete(g.names, name)
		}
		g.mu.Unlock()
		close(l.done)
	} else {
		select {
		case <-l.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(l.addrs), l.err
}

// Unsaved returns the members of groups met since it was last called, for
// the store (frontier.PaceMember; the store sets SeenAt).
func (g *Groups) Unsaved() []frontier.PaceMember {
	g.mu.Lock()
	defer g.mu.Unlock()
	ms := g.unsaved
	g.unsaved = nil
	return ms
}

// Shared returns, under host, the addresses that two or more names (not
// address literals) resolved to, each with its names, sorted: the first
// address of each name, the one dialled. It is what --pace-by ip would
// have grouped; under domain and ip it returns nil.
func (g *Groups) Shared() map[string][]string {
	if g.by != ByHost {
		return nil
	}
	g.mu.Lock()
	byAddr := map[netip.Addr][]string{}
	for name, l := range g.names {
		if len(l.addrs) > 0 {
			byAddr[l.addrs[0]] = append(byAddr[l.addrs[0]], name)
		}
	}
	g.mu.Unlock()
	var out map[string][]string
	for a, names := range byAddr {
		if len(names) < 2 {
			continue
		}
		if out == nil {
			out = map[string][]string{}
		}
		slices.Sort(names)
		out[a.String()] = names
	}
	return out
}

// hostName is the name (or address, unbracketed) of a host key.
func hostName(hostKey string) string {
	if strings.HasPrefix(hostKey, "[") {
		if i := strings.IndexByte(hostKey, ']'); i > 0 {
			return hostKey[1:i]
		}
	}
	if i := strings.LastIndexByte(hostKey, ':'); i >= 0 {
		return normName(hostKey[:i])
	}
	return normName(hostKey)
}

// normName is a name as the lookups key it.
func normName(name string) string { return strings.ToLower(name) }

// literal reads host as an address written in a URL.
func literal(host string) (netip.Addr, bool) {
	a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	if err != nil {
		return netip.Addr{}, false
	}
	return a.Unmap(), true
}
