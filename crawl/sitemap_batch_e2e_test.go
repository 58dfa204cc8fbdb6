package crawl_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/sitemap"
	"github.com/polite-crawler/polite/store"
)

// recordSpy is a store that notes how many entries each Record adds.
type recordSpy struct {
	*store.DB
	mu    sync.Mutex
	added []int
}

func (s *recordSpy) Record(job string, added, changed []frontier.Entry, fetches []frontier.Fetch) (int, error) {
	s.mu.Lock()
	s.added = append(s.added, len(added))
	s.mu.Unlock()
	return s.DB.Record(job, added, changed, fetches)
}

// A sitemap index whose children list more URLs than a batch goes into
// the frontier a batch at a time while the children are read: no write
// carries more than one batch (the run holds no more), and every URL is
// in the frontier and counted in the report.
func TestSitemapURLsEnterTheFrontierABatchAtATime(t *testing.T) {
	t.Parallel()
	const children, perChild = 2, sitemap.DefaultBatch * 3 / 2
	web := newFakeWeb(t)
	site := web.add("maps.example", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n int
		switch {
		case r.URL.Path == "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nAllow: /\nSitemap: http://maps.example/sitemap-index.xml\n")
		case r.URL.Path == "/sitemap-index.xml":
			w.Header().Set("Content-Type", "application/xml")
			fmt.Fprint(w, `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
			for i := range children {
				fmt.Fprintf(w, "<sitemap><loc>http://maps.example/sitemap-%d.xml</loc></sitemap>\n", i)
			}
			fmt.Fprint(w, "</sitemapindex>")
		case strings.HasPrefix(r.URL.Path, "/sitemap-"):
			fmt.Sscanf(r.URL.Path, "/sitemap-%d.xml", &n)
			w.Header().Set("Content-Type", "application/xml")
			var b strings.Builder
			b.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
			for i := range perChild {
				fmt.Fprintf(&b, "<url><loc>http://maps.example/s%d/p%d</loc><lastmod>2024-05-01</lastmod></url>\n", n, i)
			}
			b.WriteString("</urlset>")
			fmt.Fprint(w, b.String())
		default:
			fmt.Fprint(w, "<html><body>page</body></html>")
		}
	}))
	cfg := fastConfig(t, site.URL+"/")
	cfg.Sitemaps, cfg.MaxRequests = true, 2+children+2
	web.use(&cfg)
	db := &recordSpy{DB: mustOpen(t)}
	rep, err := crawl.Run(context.Background(), db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if s := rep.Sitemaps; s == nil || s.Read != 1+children || s.URLs != children*perChild || s.Errors != 0 {
		t.Fatalf("sitemaps = %+v, want %d read, %d URLs, no error", s, 1+children, children*perChild)
	}
	most, writes := 0, 0
	for _, n := range db.added {
		most = max(most, n)
		if n > 0 {
			writes++
		}
	}
	// One batch, and the few entries a page's answer adds beside it.
	if most > sitemap.DefaultBatch+10 || writes < children*perChild/sitemap.DefaultBatch {
		t.Errorf("%d writes added entries, at most %d at once; want at least %d, none over a batch (%d)",
			writes, most, children*perChild/sitemap.DefaultBatch, sitemap.DefaultBatch)
	}
	counts, err := db.Counts(cfg.Job)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, n := range counts {
		total += n
	}
	if want := 1 + 1 + children + children*perChild; total != want { // the root, the index, its children, their URLs
		t.Errorf("the frontier holds %d entries (%v), want %d", total, counts, want)
	}
}

// A seed host on its scheme's default port (http://a.example/, as most
// sites are) has the Sitemap lines of its robots.txt read: its key has
// no port, and the seeds' origins spell it.
func TestSitemapsOfASeedHostOnTheDefaultPort(t *testing.T) {
	t.Parallel()
	web := newFakeWeb(t)
	site := web.add("a.example", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nAllow: /\nSitemap: http://a.example/sitemap.xml\n")
		case "/sitemap.xml":
			w.Header().Set("Content-Type", "application/xml")
			fmt.Fprint(w, `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://a.example/unlinked</loc></url></urlset>`)
		default:
			fmt.Fprint(w, "<html><body>page</body></html>")
		}
	}))
	cfg := fastConfig(t, site.URL+"/")
	cfg.Sitemaps = true
	web.use(&cfg)
	rep, err := crawl.Run(context.Background(), mustOpen(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, h := range site.log() {
		paths = append(paths, h.path)
	}
	if s := rep.Sitemaps; s == nil || s.Read != 1 || s.URLs != 1 || !slices.Contains(paths, "/unlinked") {
		t.Errorf("sitemaps %+v, requests %q; want /sitemap.xml read and /unlinked fetched", s, paths)
	}
}
