package hostgroup

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/polite-crawler/polite/crawl/frontier"
)

func addrs(ss ...string) []netip.Addr {
	out := make([]netip.Addr, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParseAddr(s)
	}
	return out
}

// counting is a Static that counts its lookups.
type counting struct {
	Static
	n atomic.Int32
}

func (c *counting) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	c.n.Add(1)
	return c.Static.LookupNetIP(ctx, network, host)
}

func TestKeys(t *testing.T) {
	res := Static{
		"www.example.org":  addrs("203.0.113.5"),
		"docs.example.org": addrs("203.0.113.5"),
		"blog.example.net": addrs("2001:db8::7", "203.0.113.5"), // shares the second
		"other.example":    addrs("198.51.100.1", "198.51.100.2"),
		"alias.example":    addrs("198.51.100.2"), // joins other.example's group by its second address
		"mapped.example":   addrs("::ffff:192.0.2.9"),
		"x.docs.co.uk":     addrs("192.0.2.1"),
	}
	tests := []struct {
		by   By
		host string
		want string
	}{
		{ByHost, "www.example.org", "www.example.org"},
		{ByHost, "www.example.org:8080", "www.example.org:8080"},
		{ByDomain, "www.example.org", "domain:example.org"},
		{ByDomain, "docs.example.org:8443", "domain:example.org"},
		{ByDomain, "x.docs.co.uk", "domain:docs.co.uk"},
		{ByDomain, "127.0.0.1:8080", "domain:127.0.0.1"},
		{ByDomain, "[::1]:8080", "domain:::1"},
		{ByDomain, "localhost:3000", "domain:localhost"},
		{ByIP, "www.example.org", "ip:203.0.113.5"},
		{ByIP, "docs.example.org:8080", "ip:203.0.113.5"},
		{ByIP, "blog.example.net", "ip:203.0.113.5"},
		{ByIP, "other.example", "ip:198.51.100.1"},
		{ByIP, "alias.example", "ip:198.51.100.1"},
		{ByIP, "mapped.example", "ip:192.0.2.9"},
		{ByIP, "127.0.0.1:8080", "ip:127.0.0.1"},
		{ByIP, "127.0.0.1:8081", "ip:127.0.0.1"},
		{ByIP, "[::1]:8081", "ip:::1"},
		{ByIP, "unknown.example", "unknown.example"}, // does not resolve: paced alone
	}
	groups := map[By]*Groups{}
	for _, by := range []By{ByHost, ByDomain, ByIP} {
		groups[by] = New(by, res, 0)
	}
	for _, tt := range tests {
		if got := groups[tt.by].Key(tt.host); got != tt.want {
			t.Errorf("--pace-by %s: Key(%q) = %q, want %q", tt.by, tt.host, got, tt.want)
		}
	}
	// The address paced is the address dialled: blog.example.net joined
	// the group of its second address, which it now dials first.
	got, err := groups[ByIP].Resolve(context.Background(), "blog.example.net")
	if want := addrs("203.0.113.5", "2001:db8::7"); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Resolve(blog.example.net) = %v, %v; want %v", got, err, want)
	}
	var members []string
	for _, m := range groups[ByIP].Unsaved() {
		members = append(members, m.Group+" "+m.Host)
	}
	want := []string{"ip:203.0.113.5 www.example.org", "ip:203.0.113.5 docs.example.org:8080",
		"ip:203.0.113.5 blog.example.net", "ip:198.51.100.1 other.example", "ip:198.51.100.1 alias.example",
		"ip:192.0.2.9 mapped.example", "ip:127.0.0.1 127.0.0.1:8080", "ip:127.0.0.1 127.0.0.1:8081", "ip:::1 [::1]:8081"}
	if !reflect.DeepEqual(members, want) {
		t.Errorf("Unsaved =\n%q\nwant\n%q", members, want)
	}
	if again := groups[ByIP].Unsaved(); len(again) != 0 {
		t.Errorf("Unsaved again = %v, want none", again)
	}
	if u := groups[ByHost].Unsaved(); len(u) != 0 {
		t.Errorf("--pace-by host: Unsaved = %v, want none (a host is no group)", u)
	}
}

// A name is looked up once a run, whoever asks (the loop's Key, the
// dialer's Resolve, Prepare); a failed lookup is tried again.
func TestLookupOncePerName(t *testing.T) {
	res := &counting{Static: Static{"a.example": addrs("192.0.2.1"), "b.example": addrs("192.0.2.1")}}
	g := New(ByIP, res, 0)
	g.Prepare([]frontier.HostQueue{{Host: "a.example"}, {Host: "b.example:8080"}, {Host: "c.example"}})
	if n := res.n.Load(); n != 3 {
		t.Errorf("Prepare: %d lookups, want 3", n)
	}
	if k := g.Key("b.example:8080"); k != "ip:192.0.2.1" {
		t.Errorf("Key(b.example:8080) = %q", k)
	}
	for range 3 {
		if _, err := g.Resolve(context.Background(), "a.example"); err != nil {
			t.Fatal(err)
		}
		g.Key("a.example")
	}
	if n := res.n.Load(); n != 3 {
		t.Errorf("after Key and Resolve: %d lookups, want still 3", n)
	}
	_, err := g.Resolve(context.Background(), "c.example")
	var dnsErr *net.DNSError
	if !errors.As(err, &dnsErr) || !dnsErr.IsNotFound {
		t.Errorf("Resolve(c.example) err = %v, want a not-found DNS error", err)
	}
	if n := res.n.Load(); n != 4 {
		t.Errorf("a failed name: %d lookups, want it tried again (4)", n)
	}
	if a, err := g.Resolve(context.Background(), "192.0.2.77"); err != nil || a[0] != netip.MustParseAddr("192.0.2.77") || res.n.Load() != 4 {
		t.Errorf("Resolve of an address = %v, %v (lookups %d); want itself, no lookup", a, err, res.n.Load())
	}
}

// Under host, names that resolved to one address are counted for the
// advice; addresses written in URLs are not names.
func TestSharedUnderHost(t *testing.T) {
	res := Static{"a.example": addrs("203.0.113.5"), "b.example": addrs("203.0.113.5", "192.0.2.1"),
		"c.example": addrs("192.0.2.1"), "d.example": addrs("203.0.113.5")}
	g := New(ByHost, res, 0)
	for _, h := range []string{"a.example", "b.example", "c.example", "d.example", "203.0.113.5", "127.0.0.1"} {
		if _, err := g.Resolve(context.Background(), h); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string][]string{"203.0.113.5": {"a.example", "b.example", "d.example"}}
	if got := g.Shared(); !reflect.DeepEqual(got, want) {
		t.Errorf("Shared = %v, want %v", got, want)
	}
	ip := New(ByIP, res, 0)
	ip.Resolve(context.Background(), "a.example")
	ip.Resolve(context.Background(), "d.example")
	if got := ip.Shared(); got != nil {
		t.Errorf("--pace-by ip: Shared = %v, want nil (already grouped)", got)
	}
}

func TestParse(t *testing.T) {
	for in, want := range map[string]By{"host": ByHost, "Domain": ByDomain, " ip ": ByIP} {
		if got, err := Parse(in); err != nil || got != want {
			t.Errorf("Parse(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "server", "ips"} {
		if _, err := Parse(in); err == nil {
			t.Errorf("Parse(%q): no error", in)
		}
	}
}
