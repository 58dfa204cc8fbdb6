package fetch

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/polite-crawler/polite/crawl/urls"
)

// TestNumericHostsReadAsTheResolverReads: every IPv4 form a resolver
// accepts is normalised to its dotted quad (and so judged as that address);
// a host that ends in a number but is no address is refused.
func TestNumericHostsReadAsTheResolverReads(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"http://2130706433:8080/", "http://127.0.0.1:8080/"},
		{"http://127.1/", "http://127.0.0.1/"},
		{"http://0x7f000001/", "http://127.0.0.1/"},
		{"http://0X7F.0.0.1/", "http://127.0.0.1/"},
		{"http://0177.0.0.1/", "http://127.0.0.1/"},
		{"http://127.000.000.001/", "http://127.0.0.1/"},
		{"http://169.254.43518/", "http://169.254.169.254/"},
		{"http://127.0.0.1./", "http://127.0.0.1/"},
		{"http://[::ffff:127.0.0.1]/", "http://127.0.0.1/"},
		{"http://[::ffff:7f00:1]/", "http://127.0.0.1/"},
		{"http://1e100.net/", "http://1e100.net/"},
		{"http://4294967296/", "error"},
		{"http://1.2.3.4.5/", "error"},
		{"http://08.0.0.1/", "error"},
		{"http://example.123/", "error"},
		{"http://[fe80::1%25eth0]/", "error"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := urls.Normalize(tt.in)
			if err != nil {
				got = "error"
			}
			if got != tt.want {
				t.Errorf("Normalize(%q) = %q (%v), want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

// TestSeedExemptionIsPerOrigin: a seed exempts its scheme, host and
// effective port only.
func TestSeedExemptionIsPerOrigin(t *testing.T) {
	t.Parallel()
	tests := []struct {
		seed, url string
		want      bool
	}{
		{"http://127.0.0.1/", "http://127.0.0.1/x", true},
		{"http://127.0.0.1/", "http://127.0.0.1:80/x", true},
		{"http://127.0.0.1/", "https://127.0.0.1/x", false},
		{"http://127.0.0.1:8443/", "https://127.0.0.1:8443/x", false},
		{"https://127.0.0.1/", "https://127.0.0.1:443/x", true},
		{"https://127.0.0.1/", "http://127.0.0.1:443/x", false},
		{"http://127.0.0.1/", "http://127.0.0.1:8080/x", false},
		{"http://localhost/", "http://127.0.0.1/x", false},
	}
	for _, tt := range tests {
		t.Run(tt.seed+" "+tt.url, func(t *testing.T) {
			p := newDialPolicy(DefaultOptions().AllowPrivate)
			p.seeds[OriginOf(mustURLOf(t, tt.seed))] = true
			if got := p.mayDialPrivate(context.Background(), mustURLOf(t, tt.url)); got != tt.want {
				t.Errorf("seed %s: mayDialPrivate(%s) = %v, want %v", tt.seed, tt.url, got, tt.want)
			}
		})
	}
}

// TestProxyHookJudgesEveryRequest: a request sent through the fetcher's
// client without get (as a later path might) with a host in a numeric
// form never reaches the proxy on loopback.
func TestProxyHookJudgesEveryRequest(t *testing.T) {
	t.Parallel()
	var asked atomic.Int32
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		w.Write([]byte("proxied"))
	}))
	defer proxy.Close()
	pu, _ := url.Parse(proxy.URL)
	cfg := DefaultOptions()
	f := mustNew(t, cfg)
	defer f.Close()
	f.guard.proxy = http.ProxyURL(pu)
	for _, raw := range []string{"http://2130706433:9/", "http://127.1:9/", "http://0x7f000001:9/", "http://0177.0.0.1:9/",
		"http://[::ffff:127.0.0.1]:9/", "http://foo.localhost:9/", "http://169.254.169.254/", "http://1.2.3.4.5/"} {
		req, _ := http.NewRequest(http.MethodGet, raw, nil)
		resp, err := f.client.Do(req)
		if err == nil {
			resp.Body.Close()
			t.Errorf("%s: status %d through the proxy, want refused", raw, resp.StatusCode)
		} else if Classify(err) != "private-address" {
			t.Errorf("%s: %v, want private-address", raw, err)
		}
	}
	if n := asked.Load(); n != 0 {
		t.Errorf("the proxy was asked %d times, want never", n)
	}
	resp := f.Get(context.Background(), mustURLOf(t, "http://192.0.2.10/"), nil)
	if resp.Status != 200 || asked.Load() != 1 {
		t.Errorf("a public target: status %d (%v), proxy asked %d times; want 200 through the proxy", resp.Status, resp.Err, asked.Load())
	}
}
