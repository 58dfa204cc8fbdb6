package crawl_test

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// sitemapSite serves robots.txt naming /sitemap.xml, the sitemap body
// given (with an ETag, answering 304 to it), and every other path as a
// small page without links, each with an ETag too.
func sitemapSite(t *testing.T, sitemap func(base string) string) (string, *hits) {
	t.Helper()
	var base string
	srv, seen := hostileServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprintf(w, "User-agent: *\nAllow: /\nSitemap: %s/sitemap.xml\n", base)
			return
		case "/sitemap.xml":
			w.Header().Set("Content-Type", "application/xml")
		default:
			w.Header().Set("Content-Type", "text/html")
		}
		w.Header().Set("ETag", `"v1"`)
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		if r.URL.Path == "/sitemap.xml" {
			fmt.Fprint(w, sitemap(base))
			return
		}
		fmt.Fprintf(w, "<html><body>%s</body></html>", r.URL.Path)
	})
	base = srv.URL
	return base, seen
}

// urlset is a urlset of base's paths, each with the lastmod element
// given ("" for none).
func urlset(base string, pages [][2]string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for _, p := range pages {
		fmt.Fprintf(&b, "\n<url><loc>%s%s</loc>%s</url>", base, p[0], p[1])
	}
	b.WriteString("\n</urlset>\n")
	return b.String()
}

// A <lastmod> in the year 9999 is the latest instant polite can store,
// not one that wraps to 1816: the sitemap answers 304 on later passes
// and the stored value decides, so the page is asked for on every pass
// (conditionally), never skipped as unchanged. One in the year 0001 is
// the earliest: the page, fetched since, is unchanged.
func TestSitemapLastModOutsideStorableRange(t *testing.T) {
	t.Parallel()
	base, seen := sitemapSite(t, func(base string) string {
		return urlset(base, [][2]string{
			{"/far", "<lastmod>9999-12-31</lastmod>"},
			{"/far-time", "<lastmod>9999-12-31T23:59:59Z</lastmod>"},
			{"/old", "<lastmod>0001-01-01</lastmod>"},
		})
	})
	db, out := mustOpen(t), t.TempDir()
	at := fakeT0
	for pass := 1; pass <= 3; pass++ {
		rep := sitemapCrawl(t, db, base, out, at)
		at = rep.End.Add(time.Hour)
	}
	for _, p := range []string{"/far", "/far-time"} {
		if n := seen.get(p); n != 3 {
			t.Errorf("%s (lastmod 9999) requested %d times in 3 passes, want 3", p, n)
		}
	}
	if n := seen.get("/old"); n != 1 {
		t.Errorf("/old (lastmod 0001) requested %d times in 3 passes, want 1", n)
	}
	if n := seen.get("/sitemap.xml"); n != 3 {
		t.Errorf("/sitemap.xml requested %d times, want 3", n)
	}
}

// lastmod is optional: a URL whose <lastmod> is empty or cannot be read
// is fetched as if it had none, and the summary counts it.
func TestSitemapUnreadableLastModKept(t *testing.T) {
	t.Parallel()
	pages := [][2]string{
		{"/a", "<lastmod>2024-05-01</lastmod>"},
		{"/b", ""},
		{"/c", "<lastmod>2024-05-01T10:00:00Z</lastmod>"},
		{"/d", "<lastmod></lastmod>"},
		{"/e", "<lastmod/>"},
		{"/f", "<lastmod>yesterday</lastmod>"},
		{"/g", "<lastmod>2024-13-01</lastmod>"},
		{"/h", "<lastmod>10000-01-01</lastmod>"},
	}
	base, seen := sitemapSite(t, func(base string) string { return urlset(base, pages) })
	rep := sitemapCrawl(t, mustOpen(t), base, t.TempDir(), fakeT0)
	for _, p := range pages {
		if n := seen.get(p[0]); n != 1 {
			t.Errorf("%s (%q) requested %d times, want 1", p[0], p[1], n)
		}
	}
	if s := rep.Sitemaps; s == nil || s.URLs != len(pages) || s.NoLastMod != 5 || s.Errors != 0 {
		t.Fatalf("sitemaps = %+v, want %d URLs, 5 without their lastmod, no error", s, len(pages))
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"sitemaps: 1 read, 0 not modified, 8 URLs found", "5 URLs kept without a lastmod that could not be read"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("summary:\n%s\nwant a line with %q", text.String(), want)
		}
	}
}

// A page a sitemap lists that the crawl knew otherwise (here the seed,
// which has no parent) and skips by its lastmod on a later pass, the
// sitemap answering 304, is counted for that sitemap: the frontier keeps
// which sitemap gave the lastmod, the run no map of every URL listed.
func TestSitemapUnchangedCountedForTheSitemapThatListedIt(t *testing.T) {
	t.Parallel()
	base, seen := sitemapSite(t, func(base string) string {
		return urlset(base, [][2]string{{"/", "<lastmod>2024-05-01</lastmod>"}, {"/other", "<lastmod>2024-05-01</lastmod>"}})
	})
	db, out := mustOpen(t), t.TempDir()
	rep := sitemapCrawl(t, db, base, out, fakeT0)
	rep = sitemapCrawl(t, db, base, out, rep.End.Add(time.Hour))
	if n, m := seen.get("/"), seen.get("/other"); n != 1 || m != 1 {
		t.Errorf("/ requested %d times, /other %d, in 2 passes; want 1 each (the second skipped by lastmod)", n, m)
	}
	s := rep.Sitemaps
	if s == nil || s.NotModified != 1 || s.Unchanged != 2 || len(s.Sitemaps) != 1 ||
		!strings.HasSuffix(s.Sitemaps[0].URL, "/sitemap.xml") || s.Sitemaps[0].Unchanged != 2 {
		t.Fatalf("pass 2: sitemaps = %+v, want /sitemap.xml alone, not modified, with both pages unchanged", s)
	}
}
