package crawl_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/crawltest"
	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/urls"
)

// requisiteSites is a page on site.example needing an image, a stylesheet
// (with a background and an @import on cdn.example, whose own url() is
// a font there), a script on cdn.example, an image robots.txt keeps out,
// an image the operator excludes, an image behind a redirect and a link.
func requisiteSites(web *fakeWeb) (site, cdn *fakeSite) {
	files := map[string]string{
		"/robots.txt": "User-agent: *\nDisallow: /private/\n",
		"/": `<html><head><link rel="stylesheet" href="/s.css"><script src="http://cdn.example/x.js"></script></head>
			<body><img src="/a.png"><img src="/private/p.png"><img src="/excluded/e.png"><img src="/moved.png">
			<a href="/next.html">next</a></body></html>`,
		"/next.html": `<html><body><img src="/n.png"></body></html>`,
		"/s.css":     `@import url(http://cdn.example/print.css); body { background: url("bg.png") }`,
		"/print.css": `@font-face { src: url(font.woff2) }`,
	}
	serve := func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/moved.png" {
			http.Redirect(w, r, "/b.png", http.StatusFound)
			return
		}
		body, ok := files[r.URL.Path]
		switch {
		case r.URL.Path == "/robots.txt" && r.Host != "site.example":
			http.NotFound(w, r)
			return
		case !ok:
			w.Header().Set("Content-Type", "image/png")
			w.Write([]byte("\x89PNG\r\n\x1a\n"))
			return
		case len(r.URL.Path) > 4 && r.URL.Path[len(r.URL.Path)-4:] == ".css":
			w.Header().Set("Content-Type", "text/css")
		default:
			w.Header().Set("Content-Type", "text/html")
		}
		w.Write([]byte(body))
	}
	return web.add("site.example", http.HandlerFunc(serve)), web.add("cdn.example", http.HandlerFunc(serve))
}

// A page's requisites are fetched as requisite entries at its depth, even
// off --scope and from another host (any-host), their redirects followed,
// a stylesheet's url()s and @imports too; robots.txt and the operator's
// exclusions still keep them out, and the page's links are not followed
// past --depth. same-host keeps to the page's host; off fetches none.
func TestRequisitesFetchedUnderTheCrawlsRules(t *testing.T) {
	t.Parallel()
	all := []string{"/robots.txt", "/", "/s.css", "/a.png", "/moved.png", "/b.png", "/bg.png"}
	tests := []struct {
		mode      urls.Requisites
		site, cdn []string
		summary   string
	}{
		{urls.RequisitesAnyHost, all, []string{"/robots.txt", "/x.js", "/print.css", "/font.woff2"}, "of them 7 requisites from 2 hosts"},
		{urls.RequisitesSameHost, all, nil, "of them 4 requisites from 1 host "},
		{urls.RequisitesOff, []string{"/robots.txt", "/"}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(string(tt.mode), func(t *testing.T) {
			t.Parallel()
			web := newFakeWeb(t)
			site, cdn := requisiteSites(web)
			cfg := fastConfig(t, site.URL+"/")
			cfg.Requisites = tt.mode
			web.use(&cfg)
			db := mustOpen(t)
			mustExclude(t, db, "http://site.example/excluded/")
			rep, err := crawl.Run(context.Background(), db, cfg)
			if err != nil {
				t.Fatal(err)
			}
			var text strings.Builder
			rep.WriteText(&text)
			if got := strings.Contains(text.String(), "requisite"); tt.summary == "" && got || tt.summary != "" && !strings.Contains(text.String(), tt.summary) {
				t.Errorf("summary does not say %q:\n%s", tt.summary, text.String())
			}
			if got := sorted(site.paths()); !slices.Equal(got, sorted(tt.site)) {
				t.Errorf("site.example asked for %q, want %q", got, sorted(tt.site))
			}
			if got := sorted(cdn.paths()); !slices.Equal(got, sorted(tt.cdn)) {
				t.Errorf("cdn.example asked for %q, want %q", got, sorted(tt.cdn))
			}
			es := jobEntries(t, db, cfg.Job)
			if tt.mode == urls.RequisitesAnyHost {
				for _, u := range []string{"http://site.example/a.png", "http://site.example/b.png", "http://cdn.example/font.woff2"} {
					if e := es[u]; e.Kind != frontier.Requisite || e.State != frontier.Done || e.Depth != 0 {
						t.Errorf("%s: kind %q state %s depth %d, want a done requisite at depth 0", u, e.Kind, e.State, e.Depth)
					}
				}
				if e := es["http://site.example/private/p.png"]; e.State != frontier.Excluded {
					t.Errorf("the image robots.txt disallows is %s, want excluded", e.State)
				}
			}
		})
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// Requisites are requests like any other: they count toward
// --max-requests (which binds, requisites left waiting for the next run,
// where the pages alone would have fitted) and are paced on their host, no request to it
// starting sooner than the pace's floor after the one before.
func TestRequisitesCountTowardBudgetsAndArePaced(t *testing.T) {
	t.Parallel()
	web := newFakeWeb(t)
	_, site := web.origin("site.example", crawltest.Config{Pages: 4, Requisites: 3, Robots: "User-agent: *\nAllow: /\n"})
	var seeds []string
	for i := range 4 {
		seeds = append(seeds, fmt.Sprintf("%s/page/%d", site.URL, i))
	}
	cfg := fastConfig(t, seeds...)
	cfg.Requisites, cfg.MaxRequests = urls.RequisitesAnyHost, 8
	web.use(&cfg)
	rep, err := crawl.Run(context.Background(), mustOpen(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	site.mu.Lock()
	hits := slices.Clone(site.hits)
	site.mu.Unlock()
	pages, reqs := 0, 0
	for _, h := range hits {
		switch {
		case strings.HasPrefix(h.path, "/page/"):
			pages++
		case strings.HasPrefix(h.path, "/req/"):
			reqs++
		}
	}
	if len(hits) != 8 || reqs == 0 || !contains(rep.BudgetsBound, "max-requests") || rep.Totals.Waiting != pages*3-reqs+4-pages {
		t.Errorf("%d requests (%d pages, %d requisites), budgets bound %v, %d waiting; want 8, requisites among them, the rest waiting",
			len(hits), pages, reqs, rep.BudgetsBound, rep.Totals.Waiting)
	}
	for i := 1; i < len(hits); i++ {
		if gap := hits[i].at.Sub(hits[i-1].at); gap < cfg.Pace.Floor {
			t.Errorf("%s began %v after %s, under the pace's floor %v", hits[i].path, gap, hits[i-1].path, cfg.Pace.Floor)
		}
	}
}
