package e2etest

import (
	"bytes"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/crawltest"
	"github.com/polite-crawler/polite/crawl/sitemap"
)

// Hostile sitemaps are cut at the protocol's limits or refused, reported
// with their URL and why, and the run ends as any other: in bounded time
// and memory, exit 0 (a sitemap's errors are reported, not failures).
// Only URLs the protocol allows are queued; none leads to another host,
// a private address or an entity's target.
func TestSitemapsHostileAreBoundedAndReported(t *testing.T) {
	if testing.Short() {
		t.Skip("streams about 200 MB over loopback")
	}
	if raceEnabled {
		// Parsing 50 MB of XML under the race detector outlasts any sane
		// request deadline; make test runs this test without -race.
		t.Skip("run without -race (make test does): the race detector slows the 50 MB parse past the request deadline")
	}
	sm := &crawltest.SitemapConfig{Pages: 3, Hostile: crawltest.AllHostileSitemaps}
	robots := "User-agent: *\nDisallow: /many/\nDisallow: /huge/\nDisallow: /bomb/\n"
	o, srv := serve(t, crawltest.Config{Sitemap: sm, Robots: robots})
	db := mustOpen(t)

	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	})
	wall := time.Now()
	rep := sitemapCrawl(t, db, srv.URL, t.TempDir(), time.Time{})
	took := time.Since(wall)
	close(stop)
	wg.Wait()
	// The bound is in bytes, not seconds (each hostile sitemap below ends
	// "too large" or "too many URLs"); the time is for whoever reads -v.
	t.Logf("the run took %s", took.Round(time.Millisecond))
	if p := peak.Load(); p > 256<<20 {
		t.Errorf("heap in use peaked at %d MiB, want the bodies streamed (under 256 MiB)", p>>20)
	}
	if rep.ExitCode != crawl.ExitOK {
		t.Errorf("exit %d, want %d", rep.ExitCode, crawl.ExitOK)
	}
	for _, tc := range []struct {
		name, path, err string
		urls            int // queued at least
	}{
		{"over 50 MB", "/sitemap-huge.xml", "too large", 1},
		{"endless", "/sitemap-endless.xml", "too large", 1},
		{"gzip bomb", "/sitemap-bomb.xml.gz", "too large", 1},
		{"60,000 URLs", "/sitemap-60k.xml", "too many URLs", 50_000},
		{"broken XML", "/sitemap-broken.xml", "malformed", 3},
		{"billion laughs", "/sitemap-laughs.xml", "refused", 0},
		{"external entities", "/sitemap-xxe.xml", "refused", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := sitemapStats(rep, tc.path)
			if s == nil {
				t.Fatalf("%s not in the report", tc.path)
			}
			if !strings.Contains(s.Error, tc.err) || s.URLs < tc.urls {
				t.Errorf("%s: error %q, %d URLs; want an error %q..., at least %d URLs", tc.path, s.Error, s.URLs, tc.err, tc.urls)
			}
			if s.URLs > sitemap.MaxURLs {
				t.Errorf("%s: %d URLs queued, over the protocol's %d", tc.path, s.URLs, sitemap.MaxURLs)
			}
		})
	}
	foreign := sitemapStats(rep, "/sitemap-foreign.xml")
	if foreign == nil || foreign.URLs != 0 || foreign.Refused != 8 {
		t.Errorf("foreign sitemap = %+v, want its 8 URLs of other hosts and private addresses refused", foreign)
	}
	sub := sitemapStats(rep, "/sub/sitemap.xml")
	if sub == nil || sub.URLs != 2 || sub.Refused != 1 {
		t.Errorf("/sub/sitemap.xml = %+v, want /sub/a and /sub/b queued, /hidden/0 (outside its folder) refused", sub)
	}
	st := o.Stats()
	for _, p := range []string{"/sub/a", "/sub/b", "/broken/ok/1", "/broken/ok/3"} {
		if st.ByPath[p] != 1 {
			t.Errorf("%s requested %d times, want 1", p, st.ByPath[p])
		}
	}
	for _, p := range []string{"/xxe-target", "/xxe-target.dtd", "/broken/never"} {
		if st.ByPath[p] != 0 {
			t.Errorf("%s requested %d times, want 0", p, st.ByPath[p])
		}
	}
	if st.Disallowed != 0 {
		t.Errorf("%d requests robots.txt disallows, want 0", st.Disallowed)
	}
	var text bytes.Buffer
	_ = rep.WriteText(&text)
	if !strings.Contains(text.String(), "sitemap error: "+srv.URL+"/sitemap-huge.xml: sitemap too large") {
		t.Errorf("summary:\n%s\nwant the huge sitemap's error with its URL", text.String())
	}
}
