package fetch

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/hostgroup"
)

// With a Resolver, a name is dialled at the addresses it gives, in turn:
// the address the crawl paces is the one dialled, and the one the dial
// policy judges.
func TestDialThroughTheResolver(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("host " + r.Host))
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	res := hostgroup.Static{
		"site.test":   {netip.MustParseAddr("127.0.0.1")},
		"second.test": {netip.MustParseAddr("127.0.0.2"), netip.MustParseAddr("127.0.0.1")}, // nothing listens on .2
		"linked.test": {netip.MustParseAddr("127.0.0.1")},
	}
	opts := DefaultOptions()
	opts.Resolver = hostgroup.New(hostgroup.ByHost, res, 0)
	opts.Timeout, opts.ConnectTimeout = 5*time.Second, 5*time.Second
	c, err := New(opts, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	at := func(name string) *url.URL { return &url.URL{Scheme: "http", Host: name + ":" + port, Path: "/"} }
	c.Origins().Add(at("site.test"))
	c.Origins().Add(at("second.test"))

	tests := []struct {
		name   string
		status int
		body   string
		reason frontier.Reason
	}{
		{"site.test", 200, "host site.test:" + port, ""},
		{"second.test", 200, "host second.test:" + port, ""},  // its first address refuses: the second answers
		{"linked.test", 0, "", frontier.ReasonPrivateAddress}, // no seed's: its resolved address is judged
		{"unknown.test", 0, "", frontier.ReasonDNS},           // the resolver does not know it
	}
	for _, tt := range tests {
		r := c.Get(context.Background(), at(tt.name), nil)
		if r.Status != tt.status || r.Reason != tt.reason || !strings.HasPrefix(string(r.Body), tt.body) {
			t.Errorf("GET %s: %d %q %q (err %v); want %d %q %q", tt.name, r.Status, r.Reason, r.Body, r.Err, tt.status, tt.reason, tt.body)
		}
	}
}
