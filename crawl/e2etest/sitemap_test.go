package e2etest

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/clock"
	"github.com/polite-crawler/polite/crawl/crawltest"
	"github.com/polite-crawler/polite/crawl/report"
	"github.com/polite-crawler/polite/crawl/sitemap"
)

// Hostile sitemaps are cut at the protocol's limits or refused, reported
// with their URL and why, and the run ends as any other: in bounded
// bytes and memory, exit 0 (a sitemap's errors are reported, not
// failures).
// Only URLs the protocol allows are queued; none leads to another host,
// a private address or an entity's target.
func TestSitemapsHostileAreBoundedAndReported(t *testing.T) {
	if testing.Short() {
		t.Skip("streams about 200 MB over loopback")
	}
	if raceEnabled {
		// Parsing 50 MB of XML under the race detector takes minutes;
		// make test runs this test without -race.
		t.Skip("run without -race (make test does): the race detector slows the 50 MB parse to minutes")
	}
	// Two sites crawled at once, as a run reads one sitemap at a time:
	// the sitemaps cut by their size, and the others. The heap's bound
	// holds for both together.
	var heap heapPeak
	t.Run("sites", func(t *testing.T) {
		t.Run("cut by size", func(t *testing.T) {
			t.Parallel()
			rep, srv, _ := hostileCrawl(t, &heap, crawltest.SitemapHuge|crawltest.SitemapEndless|crawltest.SitemapBomb)
			checkHostile(t, rep, []hostileCase{
				{"over 50 MB", "/sitemap-huge.xml", "too large", 1},
				{"endless", "/sitemap-endless.xml", "too large", 1},
				{"gzip bomb", "/sitemap-bomb.xml.gz", "too large", 1},
			})
			var text bytes.Buffer
			_ = rep.WriteText(&text)
			if !strings.Contains(text.String(), "sitemap error: "+srv.URL+"/sitemap-huge.xml: sitemap too large") {
				t.Errorf("summary:\n%s\nwant the huge sitemap's error with its URL", text.String())
			}
		})
		t.Run("cut by content", func(t *testing.T) {
			t.Parallel()
			bySize := crawltest.SitemapHuge | crawltest.SitemapEndless | crawltest.SitemapBomb
			rep, _, o := hostileCrawl(t, &heap, crawltest.AllHostileSitemaps&^bySize)
			checkHostile(t, rep, []hostileCase{
				{"60,000 URLs", "/sitemap-60k.xml", "too many URLs", 50_000},
				{"broken XML", "/sitemap-broken.xml", "malformed", 3},
				{"billion laughs", "/sitemap-laughs.xml", "refused", 0},
				{"external entities", "/sitemap-xxe.xml", "refused", 0},
			})
			checkContained(t, rep, o)
		})
	})
	heap.sample()
	// The bound is in bytes, not seconds (each hostile sitemap above ends
	// "too large" or "too many URLs").
	served, peak := heap.figures()
	t.Logf("%d MiB served, heap in use at most %d MiB", served>>20, peak>>20)
	if p := peak; p > 256<<20 {
		t.Errorf("heap in use peaked at %d MiB, want the bodies streamed (under 256 MiB)", p>>20)
	}
}

// hostileCrawl crawls, with --sitemaps, an origin that serves the
// hostile sitemaps chosen and a robots.txt that disallows their pages,
// sampling heap as it serves; it checks the run ended as any other
// (exit 0) and asked for nothing robots.txt disallows.
func hostileCrawl(t *testing.T, heap *heapPeak, hostile crawltest.HostileSitemaps) (*report.Report, *httptest.Server, *crawltest.Origin) {
	t.Helper()
	sm := &crawltest.SitemapConfig{Pages: 3, Hostile: hostile}
	robots := "User-agent: *\nDisallow: /many/\nDisallow: /huge/\nDisallow: /bomb/\n"
	o := crawltest.New(crawltest.Config{Sitemap: sm, Robots: robots})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		heap.sample() // what the answers so far left
		o.ServeHTTP(&sampling{ResponseWriter: w, heap: heap}, r)
	}))
	t.Cleanup(srv.Close)
	db := mustOpen(t)

	// A --sitemaps crawl of the root, paced on a fake clock (from the
	// wall's now, as the HTTP client notes when a request left on the
	// wall's clock). Its request deadline, on the wall's clock, is no
	// bound of this test's: long enough for a loaded machine to stream
	// and parse 50 MB.
	cfg := fastConfig(t, srv.URL+"/")
	cfg.Sitemaps, cfg.Timeout = true, 10*time.Minute
	crawltest.OnClock(t, &cfg, clock.NewFake(time.Now()))
	rep, err := crawl.Run(context.Background(), db, cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if rep.ExitCode != crawl.ExitOK {
		t.Errorf("exit %d, want %d", rep.ExitCode, crawl.ExitOK)
	}
	if st := o.Stats(); st.Disallowed != 0 {
		t.Errorf("%d requests robots.txt disallows, want 0", st.Disallowed)
	}
	return rep, srv, o
}

// hostileCase is a hostile sitemap: the error its report gives, and
// the URLs it queued at least.
type hostileCase struct {
	name, path, err string
	urls            int
}

// checkHostile checks each hostile sitemap's report: its error, and
// how many URLs it queued, never over the protocol's limit.
func checkHostile(t *testing.T, rep *report.Report, cases []hostileCase) {
	t.Helper()
	for _, tc := range cases {
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
}

// checkContained checks that no sitemap led the crawl to another host, a
// private address, a folder outside its own or an entity's target, and
// that the pages the broken and the folder's sitemaps list were fetched.
func checkContained(t *testing.T, rep *report.Report, o *crawltest.Origin) {
	t.Helper()
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
}

// heapPeak is the most heap in use seen while an origin serves: sampled
// at each request's arrival and after every sampleEvery bytes it writes,
// so that a crawler that kept what it reads would be seen growing with
// what was served, however fast or slow the machine.
type heapPeak struct {
	mu     sync.Mutex
	served int64  // bytes written
	next   int64  // served at which to sample next
	peak   uint64 // HeapInuse, at most
}

const sampleEvery = 1 << 20

func (h *heapPeak) sample() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	h.mu.Lock()
	h.peak = max(h.peak, ms.HeapInuse)
	h.mu.Unlock()
}

// wrote counts n bytes served, sampling when they pass the next mark.
func (h *heapPeak) wrote(n int) {
	h.mu.Lock()
	h.served += int64(n)
	due := h.served >= h.next
	if due {
		h.next = h.served + sampleEvery
	}
	h.mu.Unlock()
	if due {
		h.sample()
	}
}

func (h *heapPeak) figures() (served int64, peak uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.served, h.peak
}

// sampling is a ResponseWriter that counts what it writes into heap.
type sampling struct {
	http.ResponseWriter
	heap *heapPeak
}

func (s *sampling) Write(p []byte) (int, error) {
	n, err := s.ResponseWriter.Write(p)
	s.heap.wrote(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the real writer.
func (s *sampling) Unwrap() http.ResponseWriter { return s.ResponseWriter }
