package crawl_test

import (
	"context"
	"crypto/tls"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/clock"
	"github.com/polite-crawler/polite/crawl/fetch/fetchtest"
	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/report"
	"github.com/polite-crawler/polite/store"
)

// httpsSite is a site over TLS on loopback: robots.txt disallows
// /private, every other path is a page; it records each request's path
// and protocol.
type httpsSite struct {
	*fetchtest.TLSServer
	mu     sync.Mutex
	served []string // "HTTP/2.0 /a"
}

func newHTTPSSite(t *testing.T, o fetchtest.ServerOptions) *httpsSite {
	t.Helper()
	s := &httpsSite{}
	s.TLSServer = fetchtest.StartTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.served = append(s.served, r.Proto+" "+r.URL.Path)
		s.mu.Unlock()
		if r.URL.Path == "/robots.txt" {
			w.Write([]byte("User-agent: *\nDisallow: /private\n"))
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("page " + r.URL.Path))
	}), o)
	return s
}

// take returns the requests served since the last call.
func (s *httpsSite) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.served
	s.served = nil
	return out
}

// crawlOnce runs cfg on the fake clock clk.
func crawlOnce(t *testing.T, db *store.DB, cfg crawl.Config, clk *clock.Fake) *report.Report {
	t.Helper()
	onClock(t, &cfg, clk)
	rep, err := crawl.Run(context.Background(), db, cfg)
	if err != nil || rep == nil {
		t.Fatalf("crawl: %v", err)
	}
	return rep
}

// statesOf counts a job's entries by state.
func statesOf(t *testing.T, db *store.DB, job string) map[frontier.State]int {
	t.Helper()
	n := map[frontier.State]int{}
	for _, e := range jobEntries(t, db, job) {
		n[e.State]++
	}
	return n
}

// checkRefused checks a run against a host whose TLS polite refused:
// exit 1, one handshake and no request served, the host stopped "tls"
// with the reason named, its URLs deferred for the next run (none dead).
func checkRefused(t *testing.T, rep *report.Report, site *httpsSite, db *store.DB, job string, reason frontier.Reason, detail string) {
	t.Helper()
	if rep.ExitCode != crawl.ExitFailure {
		t.Errorf("exit code %d, want 1", rep.ExitCode)
	}
	if n := site.Hellos(); n != 1 {
		t.Errorf("%d handshakes, want 1: a refused TLS is not tried again in the run", n)
	}
	if got := site.take(); len(got) != 0 {
		t.Errorf("requests served: %v, want none", got)
	}
	if len(rep.Hosts) != 1 || len(rep.TLSRefused()) != 1 {
		t.Fatalf("hosts %d, TLS refused %d; want 1, 1", len(rep.Hosts), len(rep.TLSRefused()))
	}
	h := rep.Hosts[0]
	if h.Stopped != frontier.StopTLS || h.LastError != reason || h.Requests != 1 {
		t.Errorf("host stopped %q, last error %q, %d requests; want tls, %q, 1", h.Stopped, h.LastError, h.Requests, reason)
	}
	if want := detail + ": URLs wait for the next run"; h.StoppedReason != want {
		t.Errorf("stopped reason %q, want %q", h.StoppedReason, want)
	}
	if len(rep.Dead) != 0 || rep.Totals.Dead != 0 {
		t.Errorf("dead %v, want none", rep.Dead)
	}
	var text strings.Builder
	rep.WriteText(&text)
	if want := "1 host stopped (" + detail; !strings.Contains(text.String(), want) {
		t.Errorf("summary does not say %q:\n%s", want, text.String())
	}
	states := statesOf(t, db, job)
	if states[frontier.Dead] != 0 || states[frontier.Queued] != 0 || states[frontier.Deferred] == 0 {
		t.Errorf("frontier %v, want every URL deferred for the next run, none dead", states)
	}
}

// TestTLSRefusedStopsHost: against each certificate or handshake that
// is refused, a crawl makes one handshake (robots.txt's, not retried),
// stops the host with the reason, exits 1, and leaves the URLs for the
// next run.
func TestTLSRefusedStopsHost(t *testing.T) {
	t.Parallel()
	ca := fetchtest.NewCA(t, "site CA")
	caFile := ca.WriteFile(t)
	tests := []struct {
		name   string
		opts   fetchtest.ServerOptions
		caFile string
		reason frontier.Reason
		detail string
	}{
		{"unknown authority", fetchtest.ServerOptions{Cert: ca.Leaf(t, fetchtest.Always, "127.0.0.1")}, "",
			frontier.ReasonTLSUnknownAuthority, `certificate signed by an unknown authority (issuer "CN=site CA,O=polite tests")`},
		{"expired", fetchtest.ServerOptions{Cert: ca.Leaf(t, fetchtest.Expired, "127.0.0.1")}, caFile,
			frontier.ReasonTLSExpired, "certificate expired on 2001-01-01T00:00:00Z"},
		{"another name", fetchtest.ServerOptions{Cert: ca.Leaf(t, fetchtest.Always, "www.example.org")}, caFile,
			frontier.ReasonTLSNameMismatch, "certificate for www.example.org, not 127.0.0.1"},
		{"protocol version", fetchtest.ServerOptions{Cert: ca.Leaf(t, fetchtest.Always, "127.0.0.1"),
			TLS: func(c *tls.Config) { c.MinVersion, c.MaxVersion = tls.VersionTLS10, tls.VersionTLS11 }}, caFile,
			frontier.ReasonTLSVersion, `the server refused the handshake: alert "protocol version not supported"`},
		{"alert", fetchtest.ServerOptions{Cert: ca.Leaf(t, fetchtest.Always, "127.0.0.1"),
			TLS: func(c *tls.Config) { c.ClientAuth, c.MaxVersion = tls.RequireAndVerifyClientCert, tls.VersionTLS12 }}, caFile,
			frontier.ReasonTLSAlert, `the server refused the handshake: alert "handshake failure"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			site := newHTTPSSite(t, tt.opts)
			cfg := fastConfig(t, site.URL+"/a", site.URL+"/b", site.URL+"/private/c")
			cfg.CAFile = tt.caFile
			db := mustOpen(t)
			rep := crawlOnce(t, db, cfg, clock.NewFake(fakeT0))
			checkRefused(t, rep, site, db, cfg.Job, tt.reason, tt.detail)
			if h := rep.Hosts[0]; h.Robots != "not read: TLS refused" {
				t.Errorf("robots %q, want not read: TLS refused", h.Robots)
			}
		})
	}
}

// TestTLSRenewedCertificate: a site crawled over HTTPS with its private CA
// trusted (--ca-file), robots.txt included, over HTTP/2; then its
// certificate expires: with robots.txt cached, the first page's handshake
// is refused, the host stops and its URLs wait; once the certificate is
// renewed, the next run fetches them.
func TestTLSRenewedCertificate(t *testing.T) {
	t.Parallel()
	ca := fetchtest.NewCA(t, "site CA")
	valid := ca.Leaf(t, fetchtest.Always, "127.0.0.1")
	site := newHTTPSSite(t, fetchtest.ServerOptions{Cert: valid, HTTP2: true})
	cfg := fastConfig(t, site.URL+"/a", site.URL+"/b", site.URL+"/private/c")
	cfg.CAFile = ca.WriteFile(t)
	db := mustOpen(t)
	clk := clock.NewFake(fakeT0)

	rep := crawlOnce(t, db, cfg, clk)
	served := site.take()
	if rep.ExitCode != 0 || rep.Totals.Done != 2 || rep.Totals.Excluded != 1 {
		t.Fatalf("run 1: exit %d, %d done, %d excluded; want 0, 2, 1 (served %v)", rep.ExitCode, rep.Totals.Done, rep.Totals.Excluded, served)
	}
	want := []string{"HTTP/2.0 /robots.txt", "HTTP/2.0 /a", "HTTP/2.0 /b"}
	if strings.Join(served, ", ") != strings.Join(want, ", ") {
		t.Errorf("run 1 served %v, want %v", served, want)
	}

	site.SetCert(ca.Leaf(t, fetchtest.Expired, "127.0.0.1"))
	hellos := site.Hellos()
	rep = crawlOnce(t, db, cfg, clk)
	if n := site.Hellos() - hellos; n != 1 {
		t.Errorf("run 2: %d handshakes, want 1", n)
	}
	if h := rep.Hosts[0]; !strings.HasPrefix(h.Robots, "parsed (cached") {
		t.Errorf("run 2: robots %q, want the cached copy (the refusal met on a page)", h.Robots)
	}
	if got := site.take(); len(got) != 0 {
		t.Errorf("run 2 served %v, want none", got)
	}
	h := rep.Hosts[0]
	if rep.ExitCode != 1 || h.Stopped != frontier.StopTLS || h.LastError != frontier.ReasonTLSExpired || rep.Totals.Dead != 0 {
		t.Errorf("run 2: exit %d, stopped %q, last error %q, %d dead; want 1, tls, tls-expired, 0", rep.ExitCode, h.Stopped, h.LastError, rep.Totals.Dead)
	}
	// The excluded URL is checked against robots.txt again at a new pass:
	// it waits with the others.
	if states := statesOf(t, db, cfg.Job); states[frontier.Deferred] != 3 || states[frontier.Dead] != 0 {
		t.Errorf("run 2: frontier %v, want the 3 URLs deferred, none dead", states)
	}

	site.SetCert(valid)
	rep = crawlOnce(t, db, cfg, clk)
	if rep.ExitCode != 0 || rep.Totals.Done != 2 || rep.Totals.Excluded != 1 {
		t.Errorf("run 3: exit %d, %d done, %d excluded; want 0, 2, 1", rep.ExitCode, rep.Totals.Done, rep.Totals.Excluded)
	}
	if got := site.take(); len(got) != 2 {
		t.Errorf("run 3 served %v, want the 2 pages", got)
	}
}
