package crawl

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/polite-crawler/polite/crawl/clock"
	"github.com/polite-crawler/polite/crawl/discover"
	"github.com/polite-crawler/polite/crawl/fetch"
	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/output"
	"github.com/polite-crawler/polite/crawl/sitemap"
	"github.com/polite-crawler/polite/crawl/urls"
	"github.com/polite-crawler/polite/crawl/warc"
)

// result is what a worker hands back to the loop.
type result struct {
	host   string
	entry  frontier.Entry
	url    *url.URL
	start  time.Time
	delay  time.Duration // the host's delay when the request started
	resp   fetch.Response
	file   string // body written under this name, "" if none
	sha    string
	links  discover.Links
	slow   bool // body matched --slow-down-pattern
	werr   error
	robots bool // a step of a robots.txt fetch

	capture warc.Capture    // the WARC record written for it (--warc)
	newest  bool            // capture is the URL's latest to refer to
	sitemap *sitemap.Result // what reading a sitemap entry's body found
	listed  *sitemap.Batch  // not nil: a batch of what the sitemap lists, read so far; the request goes on
	taken   chan struct{}   // closed once listed is in the frontier: the worker reads on
}

// startFetch starts a request for e in its own goroutine.
func (sc *scheduler) startFetch(ctx context.Context, h *hostRun, e frontier.Entry, now time.Time) {
	u, _ := urls.Parse(e.URL)
	e.Attempts++
	sc.work.add(1)
	sc.budget.requests++
	h.begin(now)
	r := result{host: h.key, entry: e, url: u, start: now, delay: sc.pacer.Delay(h.pace(), now)}
	sc.pacer.Begin(h.pace(), now)
	if e.Kind.IsSitemap() {
		// Its URLs are in the frontier already: a 304 needs no body.
		sc.work.sitemap(ctx, r, fetch.Conditional(e.ETag, e.LastModified))
		return
	}
	hdr := http.Header{}
	if e.File != "" && sc.out.Has(e.File) {
		hdr = fetch.Conditional(e.ETag, e.LastModified)
	}
	sc.work.page(ctx, r, hdr, e.Depth < sc.cfg.Depth)
}

// workers run the requests the scheduler starts, each in its own
// goroutine: the fetch, the body written, the WARC records kept. Each
// hands its result back on results, which only the loop reads; only the
// loop calls workers' methods.
type workers struct {
	fetch   Fetcher
	out     *output.Dir
	warc    *warc.Writer // --warc: the run's WARC files; nil for none
	cfg     *Config
	clock   clock.Clock
	results chan result
	n       int // requests in flight
}

// add counts d more requests in flight, and tells the clock if it wants
// to know.
func (w *workers) add(d int) {
	w.n += d
	if iw, ok := w.clock.(clock.InflightWatcher); ok {
		iw.InFlight(w.n)
	}
}

// page fetches r's page with the headers hdr; a 2xx body is written and,
// when follow, its links taken.
func (w *workers) page(ctx context.Context, r result, hdr http.Header, follow bool) {
	go func() {
		r.resp = w.fetch.Get(ctx, r.url, hdr)
		if w.cfg.Usage.Keep(r.host, r.url, &r.resp) && r.resp.Err == nil && r.resp.Status/100 == 2 {
			keepBody(w.cfg, w.out, &r, follow)
		}
		w.out.Refused(&r.entry, r.resp.Reason) // refused now: a body an earlier run kept goes
		var err error
		if r.capture, r.newest, err = output.Archive(w.warc, r.url, r.resp, r.entry, r.start); err != nil && r.werr == nil {
			r.werr = fmt.Errorf("WARC: %w", err)
		}
		w.results <- r
	}()
}

// sitemap fetches r's sitemap, conditionally on hdr, and reads it,
// handing back what it lists a batch at a time: it reads on once the loop
// has written the batch into the frontier, so that a run holds one batch
// of a sitemap at a time. (Each worker has at most two results in the
// channel, which has room for them.)
func (w *workers) sitemap(ctx context.Context, r result, hdr http.Header) {
	go func() {
		r.resp, r.sitemap = w.fetch.GetSitemap(ctx, r.url, hdr, &sitemap.Options{Each: func(b sitemap.Batch) {
			taken := make(chan struct{})
			select {
			case w.results <- result{host: r.host, entry: r.entry, listed: &b, taken: taken}:
			case <-ctx.Done(): // cut: the sitemap is read again
				return
			}
			select {
			case <-taken:
			case <-ctx.Done():
			}
		}})
		if _, _, err := output.Archive(w.warc, r.url, r.resp, frontier.Entry{}, r.start); err != nil {
			r.werr = fmt.Errorf("WARC: %w", err)
		}
		w.results <- r
	}()
}

// robots requests r's URL, a step of a robots.txt fetch.
func (w *workers) robots(ctx context.Context, r result) {
	go func() {
		r.resp = w.fetch.GetRobots(ctx, r.url)
		if _, _, err := output.Archive(w.warc, r.url, r.resp, frontier.Entry{}, r.start); err != nil {
			r.werr = err
		}
		w.results <- r
	}()
}

// closeWarc finishes the run's last WARC file and its index; a second
// call does nothing.
func (w *workers) closeWarc() error {
	if w.warc == nil {
		return nil
	}
	if err := w.warc.Close(); err != nil {
		return fmt.Errorf("close WARC files: %w", err)
	}
	return nil
}

// keepBody writes a 2xx body to out, hashes it and, when the crawl goes
// deeper, takes its links. It runs in the worker goroutine.
func keepBody(cfg *Config, out *output.Dir, r *result, follow bool) {
	body := r.resp.Body
	sum := sha256.Sum256(body)
	r.sha = hex.EncodeToString(sum[:])
	r.file = output.BodyPath(r.url, r.resp.Header.Get("Content-Type"))
	if err := out.Write(r.file, body); err != nil {
		r.werr, r.file = err, ""
		return
	}
	if old := r.entry.File; old != "" && old != r.file {
		// The body had another name (an older naming, another
		// Content-Type): the folder keeps one copy, under the new name.
		out.Remove(old)
	}
	if cfg.SlowDown != nil && cfg.SlowDown.Match(body) {
		r.slow = true
	}
	if r.entry.Kind == frontier.Page { // a requisite's own links are not followed
		r.links = discover.Take(cfg.Follow, cfg.Scope, r.url, r.resp.Header, body, follow)
	}
	r.links.Req = discover.Requisites(cfg.Requisites, r.entry.Kind, r.url, r.resp.Header, body)
}

// robotsScheme is the scheme of the host's first buffered URL: robots.txt
// is fetched over the scheme the crawl will use.
func robotsScheme(h *hostRun) string {
	if len(h.buf) > 0 && strings.HasPrefix(h.buf[0].URL, "https:") {
		return "https"
	}
	return "http"
}
