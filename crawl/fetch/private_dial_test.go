package fetch

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/urls"
)

func TestIsPrivateAddr(t *testing.T) {
	t.Parallel()
	tests := []struct {
		addr string
		want bool
	}{
		{"127.0.0.1", true},
		{"127.255.0.9", true},
		{"::1", true},
		{"10.1.2.3", true},
		{"172.16.0.1", true},
		{"192.168.1.1", true},
		{"169.254.169.254", true}, // cloud metadata
		{"fd00:ec2::254", true},   // cloud metadata over IPv6 (unique local)
		{"100.100.100.200", true}, // cloud metadata in shared address space
		{"fe80::1", true},
		{"fe80::1%eth0", true},
		{"0.0.0.0", true},
		{"::", true},
		{"224.0.0.1", true},
		{"ff02::1", true},
		{"255.255.255.255", true},
		{"::ffff:127.0.0.1", true},       // IPv4-mapped loopback
		{"::ffff:169.254.169.254", true}, // IPv4-mapped metadata
		{"64:ff9b::a9fe:a9fe", true},     // NAT64 of 169.254.169.254
		{"64:ff9b::808:808", false},      // NAT64 of 8.8.8.8
		{"8.8.8.8", false},
		{"93.184.216.34", false},
		{"2606:4700::1111", false},
		{"100.63.255.255", false}, // just below shared address space
		{"172.32.0.1", false},     // just above 172.16/12
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			ip, err := netip.ParseAddr(tt.addr)
			if err != nil {
				t.Fatal(err)
			}
			if got := isPrivateAddr(ip); got != tt.want {
				t.Errorf("isPrivateAddr(%s) = %v, want %v", tt.addr, got, tt.want)
			}
		})
	}
}

func TestDenyPrivateAddresses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		address string
		refused bool
	}{
		{"127.0.0.1:80", true},
		{"[::1]:443", true},
		{"169.254.169.254:80", true},
		{"[fe80::1%25lo]:80", true},
		{"not-an-address", true},
		{"8.8.8.8:53", false},
		{"[2606:4700::1111]:443", false},
	}
	for _, tt := range tests {
		t.Run(tt.address, func(t *testing.T) {
			err := denyPrivate("tcp", tt.address, nil)
			if got := errors.Is(err, ErrPrivate); got != tt.refused {
				t.Errorf("denyPrivate(%s) = %v, want refused %v", tt.address, err, tt.refused)
			}
		})
	}
}

// counted is a loopback server that counts its requests.
func counted(t *testing.T, body string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func mustURLOf(t testing.TB, raw string) *url.URL {
	t.Helper()
	u, err := urls.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestFetchRefusesPrivateAtDial: a request the crawl may not make to a
// private address fails at the dial with private-address, before any
// byte reaches the server, also when a public-looking name ("localhost" is
// not a seed's host) resolves to loopback; a grant, a seed's host or
// --allow-private lets it through.
func TestFetchRefusesPrivateAtDial(t *testing.T) {
	t.Parallel()
	srv, hits := counted(t, "hello")
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	tests := []struct {
		name    string
		url     string
		seed    string
		allow   bool
		grant   bool
		refused bool
	}{
		{name: "loopback literal", url: srv.URL + "/a", refused: true},
		{name: "a name that resolves to loopback", url: "http://localhost:" + port + "/a", refused: true},
		{name: "IPv4-mapped loopback", url: "http://[::ffff:127.0.0.1]:" + port + "/a", seed: "http://localhost:" + port + "/", refused: true},
		{name: "metadata address", url: "http://169.254.169.254/latest/meta-data/", refused: true},
		{name: "granted", url: srv.URL + "/a", grant: true},
		{name: "a seed's host", url: srv.URL + "/b", seed: srv.URL + "/"},
		{name: "another port of a seed's address", url: "http://localhost:" + port + "/a", seed: "http://localhost:1/", refused: true},
		{name: "allow-private", url: "http://localhost:" + port + "/a", allow: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultOptions()
			// A refusal must come before connect: with no connect timeout
			// to speak of, one that waited on the network would hang until
			// the hang guard below, and name no private address.
			cfg.ConnectTimeout = time.Hour
			cfg.AllowPrivate = tt.allow
			f := mustNew(t, cfg)
			defer f.Close()
			if tt.seed != "" {
				f.policy.seeds[OriginOf(mustURLOf(t, tt.seed))] = true
			}
			before := hits.Load()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // hang guard
			defer cancel()
			resp := f.Get(WithPrivateOK(ctx, tt.grant), mustURLOf(t, tt.url), nil)
			got := hits.Load() - before
			if tt.refused {
				if resp.Reason != "private-address" || got != 0 {
					t.Errorf("reason %q (%v), %d requests reached the server; want private-address and none", resp.Reason, resp.Err, got)
				}
				return
			}
			if resp.Err != nil || resp.Status != 200 || got != 1 {
				t.Errorf("status %d err %v, %d requests; want 200 and one request", resp.Status, resp.Err, got)
			}
		})
	}
}

// TestPrivateGrantCoversItsFirstHostOnly: the grant given to a robots.txt
// fetch of a seed host does not follow a redirect to another host.
func TestPrivateGrantCoversItsFirstHostOnly(t *testing.T) {
	t.Parallel()
	other, otherHits := counted(t, "User-agent: *\nDisallow:\n")
	seed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/robots.txt", http.StatusMovedPermanently)
	}))
	defer seed.Close()
	cfg := DefaultOptions()
	f := mustNew(t, cfg)
	defer f.Close()
	ctx := WithPrivateOK(context.Background(), true)
	first := f.Get(ctx, mustURLOf(t, seed.URL+"/robots.txt"), nil)
	if first.Status != http.StatusMovedPermanently {
		t.Fatalf("seed answered %d %v, want 301", first.Status, first.Err)
	}
	second := f.Get(ctx, mustURLOf(t, other.URL+"/robots.txt"), nil)
	if second.Reason != "private-address" || otherHits.Load() != 0 {
		t.Errorf("redirect target: reason %q, %d requests; want private-address and none", second.Reason, otherHits.Load())
	}
	again := f.Get(ctx, mustURLOf(t, seed.URL+"/robots.txt"), nil)
	if again.Err != nil {
		t.Errorf("the granted host itself: %v", again.Err)
	}
}

// TestProxiedRequestsJudgeTheTarget: through a proxy the address dialled is
// the proxy's (loopback here, the user's choice, allowed); the target's own
// addresses are judged instead, so a name that resolves to a private
// address is refused before the proxy hears of it.
func TestProxiedRequestsJudgeTheTarget(t *testing.T) {
	t.Parallel()
	var proxied atomic.Int32
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxied.Add(1)
		w.Write([]byte("from the proxy for " + r.URL.Host))
	}))
	defer proxy.Close()
	pu, _ := url.Parse(proxy.URL)
	resolve := map[string][]net.IPAddr{
		"internal.example": {{IP: net.ParseIP("10.0.0.7")}},
		"mixed.example":    {{IP: net.ParseIP("203.0.113.9")}, {IP: net.ParseIP("127.0.0.1")}},
		"public.example":   {{IP: net.ParseIP("203.0.113.9")}},
	}
	tests := []struct {
		url     string
		refused bool
	}{
		{"http://169.254.169.254/latest/meta-data/", true},
		{"http://[::1]:8080/", true},
		{"http://internal.example/", true},
		{"http://mixed.example/", true},
		{"http://public.example/", false},
		{"http://unresolvable.example/", false}, // left to the proxy
		{"http://192.0.2.10/page", false},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			cfg := DefaultOptions()
			f := mustNew(t, cfg)
			defer f.Close()
			f.guard.proxy = http.ProxyURL(pu)
			f.guard.lookup = func(_ context.Context, host string) ([]net.IPAddr, error) {
				if a, ok := resolve[host]; ok {
					return a, nil
				}
				return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
			}
			before := proxied.Load()
			resp := f.Get(context.Background(), mustURLOf(t, tt.url), nil)
			n := proxied.Load() - before
			if tt.refused {
				if resp.Reason != "private-address" || n != 0 {
					t.Errorf("reason %q (%v), proxy asked %d times; want private-address and never", resp.Reason, resp.Err, n)
				}
				return
			}
			if resp.Status != 200 || n != 1 {
				t.Errorf("status %d err %v, proxy asked %d times; want 200 through the proxy", resp.Status, resp.Err, n)
			}
		})
	}
}
