package crawltest

import (
	"bytes"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/sitemap"
)

// robotsSitemaps returns the Sitemap lines of the robots.txt at base.
func robotsSitemaps(t *testing.T, c *http.Client, base string) []string {
	t.Helper()
	resp, body := get(t, c, base+"/robots.txt")
	if resp.StatusCode != 200 {
		t.Fatalf("robots.txt: status %d", resp.StatusCode)
	}
	var lines []string
	for l := range strings.SplitSeq(string(body), "\n") {
		if v, ok := strings.CutPrefix(l, "Sitemap: "); ok {
			lines = append(lines, v)
		}
	}
	return lines
}

// readSitemap fetches and parses one sitemap with polite's own reader.
func readSitemap(t *testing.T, c *http.Client, u string, opt *sitemap.Options) *sitemap.Result {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: status %d", u, resp.StatusCode)
	}
	return sitemap.Read(resp.Body, opt)
}

// TestSitemapMode walks robots.txt → index → three sitemaps → pages, as
// a crawler would, and finds every hidden page exactly once, each an
// HTML page without links, with its lastmod.
func TestSitemapMode(t *testing.T) {
	lastmod := func(n int) time.Time { return time.Date(2025, 2, 1+n, 10, n, 0, 0, time.UTC) }
	cfg := &SitemapConfig{Pages: 8, LastMod: lastmod}
	o, srv := Serve(Config{Robots: "User-agent: *\nDisallow: /private", Sitemap: cfg})
	defer srv.Close()
	c := rawClient()

	lines := robotsSitemaps(t, c, srv.URL)
	if want := []string{srv.URL + "/sitemap.xml"}; !slices.Equal(lines, want) {
		t.Fatalf("robots.txt Sitemap lines %q, want %q", lines, want)
	}
	if _, body := get(t, c, srv.URL+"/robots.txt"); !strings.HasPrefix(string(body), "User-agent: *\nDisallow: /private\nSitemap: ") {
		t.Errorf("robots.txt %q does not keep Config.Robots first", body)
	}
	idx := readSitemap(t, c, lines[0], nil)
	if idx.Kind != sitemap.Index || idx.Cut != sitemap.None || len(idx.Sitemaps) != 3 {
		t.Fatalf("index: kind %v cut %v, %d sitemaps, want an index of 3", idx.Kind, idx.Cut, len(idx.Sitemaps))
	}
	found := map[string]sitemap.Entry{}
	kinds := map[string]bool{}
	for _, child := range idx.Sitemaps {
		if err := sitemap.CheckChild(child.Loc, lines[0], lines); err != nil {
			t.Errorf("child: %v", err)
		}
		r := readSitemap(t, c, child.Loc, nil)
		if r.Cut != sitemap.None || r.Skipped != 0 || len(r.Problems) != 0 {
			t.Errorf("%s: cut %v, skipped %d, problems %q", child.Loc, r.Cut, r.Skipped, r.Problems)
		}
		kinds[r.Kind.String()+map[bool]string{true: "+gzip"}[r.Gzip]] = true
		var newest time.Time
		for _, e := range r.URLs {
			if err := sitemap.CheckURL(e.Loc, sitemap.Listed{Sitemap: child.Loc, Index: lines[0]}, lines); err != nil {
				t.Errorf("%v", err)
			}
			if _, dup := found[e.Loc]; dup {
				t.Errorf("%s listed twice", e.Loc)
			}
			found[e.Loc] = e
			if e.LastMod.After(newest) {
				newest = e.LastMod
			}
		}
		if r.Kind != sitemap.Text && !child.LastMod.Equal(newest) {
			t.Errorf("index lastmod of %s = %v, want its newest page's %v", child.Loc, child.LastMod, newest)
		}
	}
	if want := map[string]bool{"urlset+gzip": true, "urlset": true, "text": true}; len(kinds) != 3 || !kinds["urlset+gzip"] || !kinds["urlset"] || !kinds["text"] {
		t.Errorf("sitemap kinds %v, want %v", kinds, want)
	}
	hidden := cfg.HiddenPages()
	if len(found) != len(hidden) {
		t.Errorf("sitemaps list %d pages, want %d", len(found), len(hidden))
	}
	for path, listedIn := range hidden {
		e, ok := found[srv.URL+path]
		if !ok {
			t.Errorf("%s (of %s) not listed", path, listedIn)
			continue
		}
		n, _ := strconv.Atoi(strings.TrimPrefix(path, "/hidden/"))
		if listedIn != "/sitemap-pages.txt" && !e.LastMod.Equal(lastmod(n)) {
			t.Errorf("%s: lastmod %v, want %v", path, e.LastMod, lastmod(n))
		}
		resp, body := get(t, c, srv.URL+path)
		if resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("Content-Type"), "text/html") || bytes.Contains(body, []byte("href")) {
			t.Errorf("%s: status %d, %s, %q; want an HTML page without links", path, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
		if got, want := resp.Header.Get("Last-Modified"), lastmod(n).Format(http.TimeFormat); got != want {
			t.Errorf("%s: Last-Modified %q, want %q", path, got, want)
		}
	}
	for _, p := range []string{"/hidden/8", "/hidden/-1", "/hidden/01", "/sitemap-huge.xml", "/sitemap-foreign.xml"} {
		if resp, _ := get(t, c, srv.URL+p); resp.StatusCode != 404 {
			t.Errorf("%s: status %d, want 404", p, resp.StatusCode)
		}
	}
	if s := o.Stats(); s.Robots != 2 || s.ByPath["/hidden/0"] != 1 {
		t.Errorf("stats: %d robots requests, /hidden/0 %d times; want 2 and 1", s.Robots, s.ByPath["/hidden/0"])
	}
}

func TestSitemapRobotsStatus(t *testing.T) {
	cases := []struct {
		name        string
		status      int
		want        int
		hasSitemaps bool
	}{
		{"default", 0, 200, true},
		{"4xx", 404, 404, false},
		{"5xx", 503, 503, false},
		{"3xx to robots2.txt", 301, 200, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, srv := Serve(Config{RobotsStatus: tc.status, Sitemap: &SitemapConfig{Pages: 1}})
			defer srv.Close()
			resp, body := get(t, srv.Client(), srv.URL+"/robots.txt")
			if resp.StatusCode != tc.want || strings.Contains(string(body), "Sitemap: ") != tc.hasSitemaps {
				t.Errorf("status %d body %q, want status %d, Sitemap lines %v", resp.StatusCode, body, tc.want, tc.hasSitemaps)
			}
		})
	}
}

// TestSitemapConditional: sitemaps and hidden pages answer 304 to their
// validators, and a page whose lastmod moves gets new ones, in its
// sitemap and in the index too.
func TestSitemapConditional(t *testing.T) {
	var mu sync.Mutex
	changed := LastModified
	lastmod := func(n int) time.Time {
		mu.Lock()
		defer mu.Unlock()
		if n == 1 {
			return changed
		}
		return LastModified
	}
	o := New(Config{Sitemap: &SitemapConfig{Pages: 3, LastMod: lastmod, Hostile: SitemapBroken}})
	paths := []string{"/sitemap.xml", "/sitemap-pages.xml.gz", "/sitemap-pages.xml", "/sitemap-pages.txt", "/hidden/1", "/sitemap-broken.xml", "/robots.txt"}
	validators := map[string][2]string{}
	for _, p := range paths {
		t.Run(p, func(t *testing.T) {
			w := do(o, p)
			etag, lm := w.Header().Get("ETag"), w.Header().Get("Last-Modified")
			if w.Code != 200 || etag == "" || lm == "" {
				t.Fatalf("status %d ETag %q Last-Modified %q", w.Code, etag, lm)
			}
			validators[p] = [2]string{etag, lm}
			lmt, _ := http.ParseTime(lm)
			steps := []struct {
				header []string
				want   int
			}{
				{[]string{"If-None-Match", etag}, 304},
				{[]string{"If-None-Match", `"other"`}, 200},
				{[]string{"If-Modified-Since", lm}, 304},
				{[]string{"If-Modified-Since", lmt.Add(-time.Second).Format(http.TimeFormat)}, 200},
			}
			for i, s := range steps {
				w := do(o, p, s.header...)
				if w.Code != s.want || (w.Code == 304 && w.Body.Len() != 0) {
					t.Errorf("step %d %v: status %d with %d bytes, want %d", i, s.header, w.Code, w.Body.Len(), s.want)
				}
			}
		})
	}
	mu.Lock()
	changed = LastModified.Add(48 * time.Hour)
	mu.Unlock()
	for _, p := range paths {
		w := do(o, p, "If-None-Match", validators[p][0])
		moved := p == "/sitemap.xml" || p == "/sitemap-pages.xml" || p == "/hidden/1"
		if want := map[bool]int{true: 200, false: 304}[moved]; w.Code != want {
			t.Errorf("after page 1 changed, %s: status %d, want %d", p, w.Code, want)
		}
		if moved && w.Header().Get("Last-Modified") != changed.Format(http.TimeFormat) {
			t.Errorf("after page 1 changed, %s: Last-Modified %q, want %q", p, w.Header().Get("Last-Modified"), changed.Format(http.TimeFormat))
		}
	}
	if !strings.Contains(do(o, "/sitemap-pages.xml").Body.String(), "<lastmod>"+changed.Format(time.RFC3339)+"</lastmod>") {
		t.Errorf("/sitemap-pages.xml does not carry page 1's new lastmod")
	}
}
