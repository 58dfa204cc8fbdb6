package robots_test

import (
	"fmt"

	"github.com/polite-crawler/polite/robots"
)

func ExampleParse() {
	r := robots.Parse([]byte(`User-agent: *
Disallow: /

User-agent: polite
Crawl-delay: 2
Allow: /$
Disallow: /private
Allow: /private/press

Sitemap: https://example.org/sitemap.xml
`))
	agent := robots.ProductToken("polite/0.1 (+https://example.org/bot)")
	for _, path := range []string{"/", "/private/x", "/private/press/1", "/public"} {
		d := r.Test(agent, path)
		why := d.Reason
		if d.Rule != "" {
			why = fmt.Sprintf("%s (line %d)", d.Rule, d.RuleLine)
		}
		fmt.Printf("%-17s allowed=%-5v %s\n", path, d.Allowed, why)
	}
	g := r.Group(agent)
	fmt.Println(g.Name, "line", g.Line, "crawl-delay", g.CrawlDelay)
	fmt.Println(r.Sitemaps())
	// Output:
	// /                 allowed=true  Allow: /$ (line 6)
	// /private/x        allowed=false Disallow: /private (line 7)
	// /private/press/1  allowed=true  Allow: /private/press (line 8)
	// /public           allowed=true  no rule matched
	// User-agent: polite line 4 crawl-delay 2s
	// [https://example.org/sitemap.xml]
}

func ExampleFromResponse() {
	r := robots.FromResponse(503, nil)
	fmt.Println(r.Test("polite", "/page").Reason)
	r = robots.FromResponse(404, nil)
	fmt.Println(r.Test("polite", "/page").Reason)
	// Output:
	// robots.txt unreachable (503): everything disallowed for now
	// no robots.txt (404): everything allowed
}
