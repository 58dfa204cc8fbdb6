package sitemap_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/polite-crawler/polite/crawl/sitemap"
)

func ExampleRead() {
	body := `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>https://example.org/docs/a</loc><lastmod>2024-05-01T10:00:00Z</lastmod><priority>0.9</priority></url>
  <url><loc>https://example.org/docs/b</loc><lastmod>last week</lastmod></url>
  <url><loc>https://example.org/blog/c</loc></url>
</urlset>`
	r := sitemap.Read(strings.NewReader(body), nil)
	fmt.Println(r.Kind, len(r.URLs), "URLs,", r.Skipped, "skipped, cut:", r.Cut)
	for _, p := range r.Problems {
		fmt.Println(p)
	}
	lastFetch := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
	in := sitemap.Listed{Sitemap: "https://example.org/docs/sitemap.xml"}
	for _, e := range r.URLs {
		fmt.Printf("%s priority %d: check %v, unchanged %v\n", e.Loc, e.SeedPriority(), sitemap.CheckURL(e.Loc, in, nil), sitemap.Unchanged(e, lastFetch))
	}
	// Output:
	// urlset 3 URLs, 0 skipped, cut: none
	// line 4 (byte 221): unreadable lastmod "last week" for https://example.org/docs/b (not a W3C datetime), kept without it
	// https://example.org/docs/a priority 4: check <nil>, unchanged true
	// https://example.org/docs/b priority 0: check <nil>, unchanged false
	// https://example.org/blog/c priority 0: check https://example.org/blog/c listed in https://example.org/docs/sitemap.xml: outside the sitemap's folder /docs/, unchanged false
}
