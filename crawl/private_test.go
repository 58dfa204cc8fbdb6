package crawl_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/urls"
)

// TestPrivateAddressesRefused crawls a loopback seed whose pages link,
// redirect and point their images (page requisites) to another loopback
// port, to names and literals that reach loopback, and to the cloud
// metadata address. None of them is the seed's
// host, so none may be dialled without --allow-private; each is recorded
// as excluded with reason private-address, at once (the refusal happens
// before connect, so the metadata address cannot time out).
func TestPrivateAddressesRefused(t *testing.T) {
	t.Parallel()
	other, otherSeen := hostileServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("private data"))
	})
	port := other.URL[strings.LastIndex(other.URL, ":")+1:]
	targets := []string{
		other.URL + "/another-port",
		"http://localhost:" + port + "/by-name",
		"http://[::1]:" + port + "/v6-loopback",
		"http://0.0.0.0:" + port + "/unspecified",
		"http://[::ffff:127.0.0.1]:" + port + "/v4-mapped",
		"http://169.254.169.254/latest/meta-data/",
	}
	var links, images strings.Builder
	for _, u := range targets {
		fmt.Fprintf(&links, "<a href=%q>x</a>\n", u)
		fmt.Fprintf(&images, "<img src=%q>\n", u)
	}

	tests := []struct {
		name         string
		paths        []string // on the seed host
		allowPrivate bool
		fetched      []string // targets that must be fetched; the others excluded
	}{
		{name: "links", paths: []string{"/links"}},
		{name: "page requisites", paths: []string{"/images"}},
		{name: "redirects", paths: []string{"/redirect/0", "/redirect/1", "/redirect/2", "/redirect/3", "/redirect/4", "/redirect/5"}},
		{name: "links with --allow-private", paths: []string{"/loopback-links"}, allowPrivate: true,
			fetched: []string{other.URL + "/another-port", "http://localhost:" + port + "/by-name"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seed, seedSeen := hostileServer(t, func(w http.ResponseWriter, r *http.Request) {
				switch p := r.URL.Path; {
				case p == "/robots.txt":
					http.NotFound(w, r)
				case p == "/links":
					w.Header().Set("Content-Type", "text/html")
					w.Write([]byte(links.String() + `<a href="/own">the seed's own host</a>`))
				case p == "/images":
					w.Header().Set("Content-Type", "text/html")
					w.Write([]byte(images.String()))
				case p == "/loopback-links":
					w.Header().Set("Content-Type", "text/html")
					fmt.Fprintf(w, "<a href=%q>a</a><a href=%q>b</a>", targets[0], targets[1])
				case strings.HasPrefix(p, "/redirect/"):
					var i int
					fmt.Sscan(strings.TrimPrefix(p, "/redirect/"), &i)
					http.Redirect(w, r, targets[i], http.StatusFound)
				default:
					w.Write([]byte("seed page"))
				}
			})
			before := otherSeen.total()
			var seeds []string
			for _, p := range tt.paths {
				seeds = append(seeds, seed.URL+p)
			}
			cfg := fastConfig(t, seeds...)
			cfg.Depth, cfg.Scope, cfg.AllowPrivate = 1, urls.ScopeAny, tt.allowPrivate
			cfg.Requisites = urls.RequisitesAnyHost // fetched off any host, never at a private address
			cfg.ConnectTimeout = 2 * time.Second    // a dial that got through would show as a timeout
			db := mustOpen(t)
			rep, err := runBounded(t, db, cfg, 2*time.Second)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			got := jobEntries(t, db, cfg.Job)
			fetched := map[string]bool{}
			for _, u := range tt.fetched {
				fetched[mustNormalize(t, u)] = true
			}
			want := targets
			if tt.allowPrivate {
				want = tt.fetched
			}
			for _, raw := range want {
				u := mustNormalize(t, raw)
				e, ok := got[u]
				switch {
				case !ok:
					t.Errorf("%s not in the frontier: %v", u, keys(got))
				case fetched[u] && e.State != "done":
					t.Errorf("%s: %s %q, want done (--allow-private)", u, e.State, e.Reason)
				case !fetched[u] && (e.State != "excluded" || e.Reason != "private-address"):
					t.Errorf("%s: %s %q, want excluded \"private-address\"", u, e.State, e.Reason)
				}
			}
			n := otherSeen.total() - before
			switch {
			case tt.allowPrivate && n == 0:
				t.Errorf("with --allow-private the other loopback port got no request")
			case !tt.allowPrivate && n != 0:
				t.Errorf("the other loopback port got %d requests, want 0", n)
			}
			if tt.name == "links" && seedSeen.get("/own") != 1 {
				t.Errorf("the seed host's own link was requested %d times, want 1", seedSeen.get("/own"))
			}
			if rep.ExitCode != 0 {
				t.Errorf("exit code %d, want 0: a refused address is the crawler's rule, not a failure", rep.ExitCode)
			}
			if !tt.allowPrivate {
				// A host polite refused to contact taught it nothing.
				sts, err := db.States()
				if err != nil {
					t.Fatal(err)
				}
				for _, st := range sts {
					if st.Host != hostOf(t, seed.URL) {
						t.Errorf("pace state stored for %s, a host never contacted", st.Host)
					}
				}
			}
		})
	}
}

func hostOf(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// TestRobotsRedirectToPrivateAddressRefused: a seed host's robots.txt that
// redirects to another loopback port, to a name for loopback or to the
// metadata address does not reach it: the grant to dial loopback covers the
// seed's host only. As when redirects run out, the seed host's robots.txt
// then counts as unavailable (RFC 9309 2.3.1.2), at once, without retries.
func TestRobotsRedirectToPrivateAddressRefused(t *testing.T) {
	t.Parallel()
	other, otherSeen := hostileServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("User-agent: *\nDisallow: /\n"))
	})
	port := other.URL[strings.LastIndex(other.URL, ":")+1:]
	for _, tt := range []struct{ name, to string }{
		{"another loopback port", other.URL + "/robots.txt"},
		{"a name for loopback", "http://localhost:" + port + "/robots.txt"},
		{"the metadata address", "http://169.254.169.254/robots.txt"},
	} {
		to := tt.to
		t.Run(tt.name, func(t *testing.T) {
			seed, seedSeen := hostileServer(t, func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/robots.txt" {
					http.Redirect(w, r, to, http.StatusMovedPermanently)
					return
				}
				w.Write([]byte("page"))
			})
			before := otherSeen.total()
			cfg := fastConfig(t, seed.URL+"/page")
			db := mustOpen(t)
			rep, err := runBounded(t, db, cfg, 2*time.Second)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if n := otherSeen.total() - before; n != 0 {
				t.Errorf("the other loopback port got %d requests, want 0", n)
			}
			if n := seedSeen.get("/robots.txt"); n != 1 {
				t.Errorf("the seed's robots.txt was asked %d times, want 1: a refused redirect is not retried", n)
			}
			if n := seedSeen.get("/page"); n != 1 {
				t.Errorf("/page was fetched %d times, want 1", n)
			}
			for _, h := range rep.Hosts {
				if h.Host == strings.TrimPrefix(seed.URL, "http://") && !strings.Contains(h.Robots, "no restrictions (301)") {
					t.Errorf("report says robots.txt %q, want no restrictions (301)", h.Robots)
				}
			}
		})
	}
}
