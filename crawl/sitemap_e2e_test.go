package crawl_test

import (
	"bytes"
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/crawltest"
)

var (
	sitemapCrawl = crawltest.SitemapCrawl
	sitemapStats = crawltest.SitemapStats
)

// robots.txt names an index, which lists a .xml.gz, a .xml and a .txt
// sitemap of pages no page links to: a crawl of the root with --sitemaps
// fetches every one. A second pass asks for none of the pages whose
// lastmod is not after their fetch (no request at all), and re-reads
// every sitemap conditionally (304); the pages only the .txt sitemap
// lists carry no lastmod, so they get a conditional GET (304) as
// without sitemaps. A third pass, after two pages' lastmod moved past
// their fetch, asks for those two only.
func TestSitemapsFindUnlinkedPagesAndSkipUnchanged(t *testing.T) {
	t.Parallel()
	const pages = 12
	var moved atomic.Int64 // unix seconds; pages 0 and 1 changed then, 0: not changed
	sm := &crawltest.SitemapConfig{Pages: pages, LastMod: func(n int) time.Time {
		if m := moved.Load(); m != 0 && n < 2 {
			return time.Unix(m, 0)
		}
		return crawltest.LastModified
	}}
	o, srv := serve(t, crawltest.Config{Sitemap: sm})
	db := mustOpen(t)
	out := t.TempDir()
	hidden := sm.HiddenPages()

	rep := sitemapCrawl(t, db, srv.URL, out, time.Time{})
	st := o.Stats()
	for p := range hidden {
		if st.ByPath[p] != 1 {
			t.Errorf("pass 1: %s requested %d times, want 1", p, st.ByPath[p])
		}
	}
	for _, p := range []string{"/sitemap.xml", "/sitemap-pages.xml.gz", "/sitemap-pages.xml", "/sitemap-pages.txt"} {
		if st.ByPath[p] != 1 {
			t.Errorf("pass 1: %s requested %d times, want 1", p, st.ByPath[p])
		}
	}
	if s := rep.Sitemaps; s == nil || s.Read != 4 || s.URLs != pages || s.Errors != 0 || s.Unchanged != 0 {
		t.Fatalf("pass 1: sitemaps = %+v, want 4 read, %d URLs, no error, none unchanged", s, pages)
	}
	if rep.ExitCode != crawl.ExitOK {
		t.Errorf("pass 1: exit %d, want %d", rep.ExitCode, crawl.ExitOK)
	}

	o.Reset()
	rep = sitemapCrawl(t, db, srv.URL, out, rep.End.Add(time.Second))
	st = o.Stats()
	textPages := 0
	for p, from := range hidden {
		switch {
		case from == "/sitemap-pages.txt":
			textPages++
			if st.ByPath[p] != 1 {
				t.Errorf("pass 2: %s (no lastmod) requested %d times, want 1 conditional GET", p, st.ByPath[p])
			}
		case st.ByPath[p] != 0:
			t.Errorf("pass 2: %s (lastmod unchanged) requested %d times, want 0", p, st.ByPath[p])
		}
	}
	if st.Conditional != st.Requests || st.NotModified != st.Requests {
		t.Errorf("pass 2: %d requests, %d conditional, %d answered 304; want all conditional and 304", st.Requests, st.Conditional, st.NotModified)
	}
	wantSkipped := pages - textPages
	if s := rep.Sitemaps; s == nil || s.NotModified != 4 || s.Read != 0 || s.Unchanged != wantSkipped {
		t.Fatalf("pass 2: sitemaps = %+v, want 4 not modified, %d unchanged", s, wantSkipped)
	}
	gz, xml := sitemapStats(rep, "/sitemap-pages.xml.gz"), sitemapStats(rep, "/sitemap-pages.xml")
	if gz == nil || xml == nil || gz.Unchanged != pages/3 || xml.Unchanged != pages/3 {
		t.Errorf("pass 2: unchanged per sitemap = %+v, %+v; want %d each", gz, xml, pages/3)
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if want := "sitemaps: 0 read, 4 not modified, 0 URLs found, 8 skipped by lastmod"; !strings.Contains(text.String(), want) {
		t.Errorf("pass 2 summary:\n%s\nwant a line with %q", text.String(), want)
	}

	moved.Store(rep.End.Add(time.Minute).Unix()) // after pass 1's fetches, before pass 3
	o.Reset()
	rep = sitemapCrawl(t, db, srv.URL, out, rep.End.Add(time.Hour))
	st = o.Stats()
	for p, from := range hidden {
		want := 0
		if p == "/hidden/0" || p == "/hidden/1" || from == "/sitemap-pages.txt" {
			want = 1
		}
		if st.ByPath[p] != want {
			t.Errorf("pass 3: %s requested %d times, want %d", p, st.ByPath[p], want)
		}
	}
	if st.ByStatus[200] < 2 || rep.Sitemaps.Unchanged != wantSkipped-2 {
		t.Errorf("pass 3: %d answers 200, %d unchanged; want the two moved pages fetched, %d unchanged", st.ByStatus[200], rep.Sitemaps.Unchanged, wantSkipped-2)
	}
}

// A seed named like a sitemap is read as one, and its pages fetched (with
// those of the index robots.txt names); a sitemap robots.txt disallows is not requested, and is reported; every
// sitemap request keeps the host's pace, as any request does.
func TestSitemapsSeedRobotsAndPace(t *testing.T) {
	var cfg crawl.Config
	clk := onFakeClock(t, &cfg)
	sm := &crawltest.SitemapConfig{Pages: 6}
	o, srv := serve(t, crawltest.Config{Sitemap: sm, Clock: clk, Robots: "User-agent: *\nDisallow: /sitemap-pages.txt\n"})
	cfg = fastConfig(t, srv.URL+"/sitemap-pages.xml")
	cfg.Sitemaps = true
	cfg.Pace.Floor, cfg.Pace.Start = 250*time.Millisecond, 250*time.Millisecond
	cfg.Clock = clk
	rep, err := crawl.Run(context.Background(), mustOpen(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	st := o.Stats()
	for p, from := range sm.HiddenPages() {
		want := 1 // from the seed, or from the index robots.txt names
		if from == "/sitemap-pages.txt" {
			want = 0 // only the disallowed sitemap lists it
		}
		if st.ByPath[p] != want {
			t.Errorf("%s (listed by %s) requested %d times, want %d", p, from, st.ByPath[p], want)
		}
	}
	if st.ByPath["/sitemap-pages.xml"] != 1 || st.ByPath["/sitemap-pages.txt"] != 0 || st.Disallowed != 0 {
		t.Errorf("requests: seed sitemap %d, disallowed sitemap %d, disallowed in all %d; want 1, 0, 0",
			st.ByPath["/sitemap-pages.xml"], st.ByPath["/sitemap-pages.txt"], st.Disallowed)
	}
	if s := sitemapStats(rep, "/sitemap-pages.xml"); s == nil || s.From != "seed" || s.Kind != "urlset" {
		t.Errorf("seed sitemap = %+v, want read from the seed as a urlset", s)
	}
	if s := sitemapStats(rep, "/sitemap-pages.txt"); s == nil || !strings.Contains(s.Error, "robots.txt") {
		t.Errorf("disallowed sitemap = %+v, want an error naming robots.txt", s)
	}
	var last time.Time
	for i, at := range st.Times {
		if !last.IsZero() && at.Sub(last) < cfg.Pace.Floor {
			t.Errorf("request %d came %s after the one before, under the floor %s", i, at.Sub(last), cfg.Pace.Floor)
		}
		last = at
	}
}

// TestSitemapLastModOverridesTheRevisit: with --revisit adaptive, a page
// whose sitemap lastmod moves after its last fetch is asked for though
// its revisit is not due; the others, not due, are not asked for, and
// the sitemaps themselves are read every pass.
func TestSitemapLastModOverridesTheRevisit(t *testing.T) {
	t.Parallel()
	var moved atomic.Int64
	sm := &crawltest.SitemapConfig{Pages: 6, LastMod: func(n int) time.Time {
		if m := moved.Load(); m != 0 && n == 0 {
			return time.Unix(m, 0)
		}
		return crawltest.LastModified
	}}
	o, srv := serve(t, crawltest.Config{Sitemap: sm})
	db := mustOpen(t)
	out := t.TempDir()
	t0 := time.Now()
	sitemapCrawl(t, db, srv.URL, out, t0)
	rep := sitemapCrawl(t, db, srv.URL, out, t0.Add(24*time.Hour)) // the first interval: a day
	moved.Store(rep.End.Add(time.Minute).Unix())
	o.Reset()
	rep = sitemapCrawl(t, db, srv.URL, out, t0.Add(26*time.Hour)) // nothing due by its interval
	st := o.Stats()
	for p := range sm.HiddenPages() {
		want := 0
		if p == "/hidden/0" {
			want = 1
		}
		if st.ByPath[p] != want {
			t.Errorf("%s requested %d times, want %d", p, st.ByPath[p], want)
		}
	}
	if st.ByPath["/sitemap.xml"] != 1 {
		t.Errorf("/sitemap.xml requested %d times, want read every pass", st.ByPath["/sitemap.xml"])
	}
	if c := rep.Changes; c == nil || c.NotDue == 0 {
		t.Errorf("changes %+v, want the pages not due counted", c)
	}
}
