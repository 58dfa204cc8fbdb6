package discover

import (
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/urls"
)

var now = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// An answer's Link relations are taken for every content type and kept
// in scope; its HTML links only when the crawl goes deeper; a JSON body
// is not read for links.
func TestTake(t *testing.T) {
	u := urls.Must("https://api.example.org/items")
	hdr := func(ct string) http.Header {
		return http.Header{"Content-Type": {ct}, "Link": {`</items?page=2>; rel="next", <https://elsewhere.example/x>; rel="next", </items?page=9>; rel="last"`}}
	}
	body := []byte(`<a href="/html-link">x</a>`)
	tests := []struct {
		name     string
		f        Follow
		ct       string
		page     bool
		rel, htm int
	}{
		{"json", Follow{}, "application/json", true, 1, 0},
		{"html deeper", Follow{}, "text/html", true, 1, 1},
		{"html at the last depth", Follow{}, "text/html", false, 1, 0},
		{"next and last", Follow{Rels: []string{"next", "last"}}, "application/json", false, 2, 0},
		{"none", Follow{Rels: []string{}}, "application/json", false, 0, 0},
	}
	for _, tt := range tests {
		ls := Take(tt.f, urls.ScopeHost, u, hdr(tt.ct), body, tt.page)
		if len(ls.Rel) != tt.rel || len(ls.Page) != tt.htm {
			t.Errorf("%s: %d relations, %d page links; want %d, %d", tt.name, len(ls.Rel), len(ls.Page), tt.rel, tt.htm)
		}
	}
}

// A Link relation's target keeps its page's depth, a page link is one
// deeper; a chain of relations stops at MaxNext in a run.
func TestFoundDepthsAndMaxNext(t *testing.T) {
	d := &Discovery{Job: "j", Follow: Follow{MaxNext: 3}, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	page := func(n int) *url.URL { return urls.Must("https://api.example.org/items?page=" + string(rune('0'+n))) }
	e := frontier.Entry{URL: "https://api.example.org/items?page=1", Depth: 2}
	es := d.Found(e, Links{Page: []*url.URL{urls.Must("https://api.example.org/doc")}, Rel: []*url.URL{page(2)}}, now)
	if len(es) != 2 || es[0].Depth != 3 || es[1].Depth != 2 || es[1].URL != page(2).String() || es[1].Parent != e.URL {
		t.Fatalf("Found = %+v; want the page link at depth 3, the next page at depth 2", es)
	}
	var chain []string
	for n := 2; n <= 6; n++ {
		e = frontier.Entry{URL: page(n).String(), Depth: 2}
		es := d.Found(e, Links{Rel: []*url.URL{page(n + 1)}}, now)
		if len(es) == 0 {
			break // the crawl would not fetch what is not queued
		}
		chain = append(chain, es[0].URL)
	}
	// page 2 is 1 hop from page 1, page 3 is 2, page 4 is 3: page 5 is past MaxNext.
	if len(chain) != 2 {
		t.Errorf("chain followed %q; want pages 3 and 4 only (--max-next 3)", chain)
	}
}

// A requisite goes one hop: an HTML page's requisites are taken, an HTML
// requisite's are not (its own links and images stay out), a
// stylesheet's url()s and @imports are, whatever fetched it; off takes
// none, same-host keeps to the page's host.
func TestRequisitesOneHop(t *testing.T) {
	u := urls.Must("https://site.example/p")
	html := http.Header{"Content-Type": {"text/html"}}
	css := http.Header{"Content-Type": {"text/css"}}
	page := []byte(`<img src="/a.png"><img src="https://cdn.example/b.png"><a href="/next">n</a>`)
	sheet := []byte(`@import "https://cdn.example/more.css"; body { background: url(/bg.png) }`)
	tests := []struct {
		name   string
		mode   urls.Requisites
		kind   frontier.Kind
		h      http.Header
		body   []byte
		wanted int
	}{
		{"a page's, any host", urls.RequisitesAnyHost, frontier.Page, html, page, 2},
		{"a page's, same host", urls.RequisitesSameHost, frontier.Page, html, page, 1},
		{"a page's, off", urls.RequisitesOff, frontier.Page, html, page, 0},
		{"a page's, unset (off)", "", frontier.Page, html, page, 0},
		{"a stylesheet's, off", urls.RequisitesOff, frontier.Requisite, css, sheet, 0},
		{"an HTML requisite's: none", urls.RequisitesAnyHost, frontier.Requisite, html, page, 0},
		{"a stylesheet requisite's", urls.RequisitesAnyHost, frontier.Requisite, css, sheet, 2},
	}
	for _, tt := range tests {
		if got := Requisites(tt.mode, tt.kind, u, tt.h, tt.body); len(got) != tt.wanted {
			t.Errorf("%s: %v, want %d", tt.name, got, tt.wanted)
		}
	}
}

// A requisite's redirects may leave --scope, a page's may not; a
// requisite's chain stops after MaxRequisiteHops, a page's runs to
// MaxHops.
func TestRequisiteRedirects(t *testing.T) {
	d := &Discovery{Job: "j", Scope: urls.ScopeHost, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	from := urls.Must("https://site.example/a.png")
	req := frontier.Entry{URL: from.String(), Kind: frontier.Requisite, Depth: 1, Parent: "https://site.example/"}
	if e, why := d.Redirect(req, from, "https://cdn.example/a.png", now); e == nil || why != "" || e.Kind != frontier.Requisite || e.Hops != 1 {
		t.Errorf("a requisite's redirect off scope: %+v, %q; want a requisite entry one hop on", e, why)
	}
	page := req
	page.Kind = frontier.Page
	if e, why := d.Redirect(page, from, "https://cdn.example/other", now); e != nil || why != "" {
		t.Errorf("a page's redirect off scope: %+v, %q; want none", e, why)
	}
	for _, tt := range []struct {
		kind frontier.Kind
		hops int
		ok   bool
	}{
		{frontier.Requisite, MaxRequisiteHops - 1, true},
		{frontier.Requisite, MaxRequisiteHops, false},
		{frontier.Page, MaxRequisiteHops, true},
		{frontier.Page, MaxHops, false},
	} {
		e := req
		e.Kind, e.Hops, e.URL = tt.kind, tt.hops, "https://site.example/hop"+string(rune('a'+tt.hops))
		got, why := d.Redirect(e, urls.Must(e.URL), "/next"+string(rune('a'+tt.hops)), now)
		if (got != nil) != tt.ok || !tt.ok && why != frontier.ReasonTooManyRedirects {
			t.Errorf("%s at hop %d: %+v, %q; want followed: %v", tt.kind, tt.hops, got, why, tt.ok)
		}
	}
}
