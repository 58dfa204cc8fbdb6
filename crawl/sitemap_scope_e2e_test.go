package crawl_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/polite-crawler/polite/crawl"
)

// Under the default --scope host, no URL that came from a sitemap leaves
// the host by redirecting, whichever way it entered: a URL a sitemap
// lists (in one hop, or in a second hop after an in-scope one), a
// sitemap robots.txt names, a sitemap an index lists. A seed's own
// redirect still may. The other host sees only the seed's redirect and
// its robots.txt.
func TestSitemapRedirectsHeldToScope(t *testing.T) {
	t.Parallel()
	other, otherSeen := hostileServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/xml")
		fmt.Fprintf(w, `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://%s/listed-there</loc></url></urlset>`, r.Host)
	})
	var base string
	srv, seen := hostileServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xml")
		switch r.URL.Path {
		case "/robots.txt":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprintf(w, "User-agent: *\nAllow: /\nSitemap: %[1]s/sitemap.xml\nSitemap: %[1]s/index.xml\nSitemap: %[1]s/off-sitemap.xml\n", base)
		case "/sitemap.xml":
			fmt.Fprint(w, urlset(base, [][2]string{{"/r302", ""}, {"/hop", ""}, {"/page", ""}}))
		case "/index.xml":
			fmt.Fprintf(w, `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>%s/child-off.xml</loc></sitemap></sitemapindex>`, base)
		case "/r302":
			http.Redirect(w, r, other.URL+"/escaped-by-redirect", http.StatusFound)
		case "/hop":
			http.Redirect(w, r, base+"/hop2", http.StatusFound)
		case "/hop2":
			http.Redirect(w, r, other.URL+"/escaped-in-two-hops", http.StatusFound)
		case "/off-sitemap.xml":
			http.Redirect(w, r, other.URL+"/sitemap.xml", http.StatusFound)
		case "/child-off.xml":
			http.Redirect(w, r, other.URL+"/child.xml", http.StatusMovedPermanently)
		case "/seed-away":
			http.Redirect(w, r, other.URL+"/from-seed", http.StatusFound)
		default:
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html><body>page</body></html>")
		}
	})
	base = srv.URL
	cfg := fastConfig(t, base+"/", base+"/seed-away")
	cfg.Sitemaps = true
	cfg.AllowPrivate = true // both hosts are on loopback: only --scope stands between them
	onFakeClock(t, &cfg)
	db := mustOpen(t)
	rep, err := crawl.Run(context.Background(), db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/r302", "/hop", "/hop2", "/off-sitemap.xml", "/child-off.xml", "/page", "/seed-away"} {
		if n := seen.get(p); n != 1 {
			t.Errorf("%s requested %d times, want 1", p, n)
		}
	}
	if n := otherSeen.get("/from-seed"); n != 1 {
		t.Errorf("the seed's redirect target requested %d times, want 1 (a seed's redirects may leave --scope)", n)
	}
	if n, want := otherSeen.total(), otherSeen.get("/robots.txt")+otherSeen.get("/from-seed"); n != want {
		t.Errorf("the other host got %d requests, want only its robots.txt and the seed's target (%d)", n, want)
	}
	for u := range jobEntries(t, db, "test") {
		if strings.HasPrefix(u, other.URL) && u != other.URL+"/from-seed" {
			t.Errorf("the frontier holds %s, on the other host", u)
		}
	}
	if rep.ExitCode != crawl.ExitOK {
		t.Errorf("exit %d, want %d", rep.ExitCode, crawl.ExitOK)
	}
}

// A sitemap that moved is read where it moved to: robots.txt names
// /old-sitemap.xml, which answers 301 to /new/sitemap.xml; an index lists
// /child-old.xml, which answers 302 to /moved/child.xml. Their targets
// are read as sitemaps (the moved child as an index's child), their
// pages fetched, and the report names no error: the target is listed as
// found through the sitemap that moved.
func TestSitemapThatMovedIsRead(t *testing.T) {
	t.Parallel()
	var base string
	srv, seen := hostileServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xml")
		switch r.URL.Path {
		case "/robots.txt":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprintf(w, "User-agent: *\nAllow: /\nSitemap: %[1]s/old-sitemap.xml\nSitemap: %[1]s/index.xml\n", base)
		case "/old-sitemap.xml":
			http.Redirect(w, r, base+"/new/sitemap.xml", http.StatusMovedPermanently)
		case "/new/sitemap.xml":
			fmt.Fprint(w, urlset(base, [][2]string{{"/new/p1", ""}, {"/new/p2", ""}}))
		case "/index.xml":
			fmt.Fprintf(w, `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>%s/child-old.xml</loc></sitemap></sitemapindex>`, base)
		case "/child-old.xml":
			http.Redirect(w, r, base+"/moved/child.xml", http.StatusFound)
		case "/moved/child.xml":
			fmt.Fprint(w, urlset(base, [][2]string{{"/moved/c1", ""}}))
		default:
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html><body>page</body></html>")
		}
	})
	base = srv.URL
	rep := sitemapCrawl(t, mustOpen(t), base, t.TempDir(), fakeT0)
	for _, p := range []string{"/new/sitemap.xml", "/new/p1", "/new/p2", "/moved/child.xml", "/moved/c1"} {
		if n := seen.get(p); n != 1 {
			t.Errorf("%s requested %d times, want 1", p, n)
		}
	}
	if s := rep.Sitemaps; s == nil || s.Errors != 0 || s.URLs != 3 || s.Read != 3 {
		t.Fatalf("sitemaps = %+v, want 3 read (the index and both targets), 3 URLs, no error", s)
	}
	for _, c := range []struct{ moved, target, kind string }{{"/old-sitemap.xml", "/new/sitemap.xml", "urlset"}, {"/child-old.xml", "/moved/child.xml", "urlset"}} {
		m, s := sitemapStats(rep, c.moved), sitemapStats(rep, c.target)
		if m == nil || m.Error != "" || m.Status/100 != 3 {
			t.Errorf("%s = %+v, want a redirect without error", c.moved, m)
		}
		if s == nil || s.From != base+c.moved || s.Kind != c.kind || s.Error != "" {
			t.Errorf("%s = %+v, want read as a %s, from %s", c.target, s, c.kind, c.moved)
		}
	}
}
