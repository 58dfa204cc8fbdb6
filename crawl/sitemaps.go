package crawl

import (
	"cmp"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/polite-crawler/polite/crawl/discover"
	"github.com/polite-crawler/polite/crawl/fetch"
	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/report"
	"github.com/polite-crawler/polite/crawl/sitemap"
	"github.com/polite-crawler/polite/crawl/urls"
)

// With --sitemaps a crawl reads the Sitemap lines of each seed host's
// robots.txt and the seeds that are sitemaps. A sitemap is a frontier
// entry of its own kind: it passes robots.txt, the host's pacing and the
// budgets like any URL, and is re-read conditionally. Its body is read as
// a stream by crawl/sitemap within the protocol's limits; the URLs it
// lists that the protocol and --scope allow become entries, and a later
// pass does not request a page whose lastmod is not after its last fetch.

// sitemapRun is what a run learns of sitemaps, and what it does with
// them: it queues the sitemaps robots.txt names and the URLs a sitemap
// lists (through the ledger), and finds the pages their lastmod lets the
// run skip. Only the loop goroutine touches it.
type sitemapRun struct {
	job   string
	scope urls.Scope
	log   *slog.Logger
	links *discover.Discovery // the run's redirects: a sitemap's target is read in its place

	seeds     fetch.Origins   // the seeds' origins
	seedHosts map[string]bool // hosts whose robots.txt Sitemap lines are read, from seeds
	robotsFor map[string]bool // hosts whose Sitemap lines were taken this run
	byURL     map[string]*report.SitemapStats
	order     []*report.SitemapStats
	listing   discover.Listing // its Lines: host -> the Sitemap lines of its robots.txt, once known
	queued    []frontier.Entry // entries to queue, until take
}

// newSitemapRun starts a run's sitemaps; seeds are the seeds' origins,
// which the seed loader fills before the first request.
func newSitemapRun(cfg *Config, seeds fetch.Origins, links *discover.Discovery) *sitemapRun {
	return &sitemapRun{job: cfg.Job, scope: cfg.Scope, log: cfg.Logger, links: links,
		seeds: seeds, robotsFor: map[string]bool{}, byURL: map[string]*report.SitemapStats{},
		listing: discover.Listing{Job: cfg.Job, Scope: cfg.Scope, Lines: map[string][]string{}}}
}

// take returns the entries the sitemaps read so far want queued, and
// forgets them.
func (m *sitemapRun) take() []frontier.Entry {
	if m == nil {
		return nil
	}
	q := m.queued
	m.queued = nil
	return q
}

// isSeedHost reports whether key is a seed's host, once the seeds are in.
func (m *sitemapRun) isSeedHost(key string) bool {
	if m.seedHosts == nil {
		m.seedHosts = map[string]bool{}
		for o := range m.seeds { // in normal form: a default port is not spelled, as in a host's key
			if u, err := urls.Parse(o.Scheme + "://" + net.JoinHostPort(o.Host, o.Port) + "/"); err == nil {
				m.seedHosts[urls.Host(u)] = true
			}
		}
	}
	return m.seedHosts[key]
}

// stats returns the statistics of sitemap u, made on first use.
func (m *sitemapRun) stats(u, from string) *report.SitemapStats {
	if s := m.byURL[u]; s != nil {
		return s
	}
	s := &report.SitemapStats{URL: u, From: from}
	m.byURL[u] = s
	m.order = append(m.order, s)
	return s
}

// seedEntry makes a seed that is a sitemap an entry of that kind.
func (m *sitemapRun) seedEntry(e *frontier.Entry, u *url.URL) {
	if sitemap.Named(u) {
		e.Kind, e.Priority = frontier.Sitemap, discover.SitemapPriority
		m.stats(e.URL, "seed")
	}
}

// robotsSitemaps learns the Sitemap lines of h's robots.txt, and queues
// those of a seed host, once a run, within --scope. m may be nil (no
// --sitemaps).
func (m *sitemapRun) robotsSitemaps(h *hostRun, now time.Time) {
	if m == nil || h.rb == nil {
		return
	}
	m.listing.Lines[h.key] = h.rb.Sitemaps()
	if !m.isSeedHost(h.key) || m.robotsFor[h.key] {
		return
	}
	m.robotsFor[h.key] = true
	from := &url.URL{Scheme: robotsScheme(h), Host: h.key, Path: "/robots.txt"}
	for _, line := range h.rb.Sitemaps() {
		u, err := urls.Parse(line)
		if err != nil || !urls.InScope(m.scope, from, u) {
			m.log.Info("robots.txt sitemap not read", "host", h.key, "sitemap", urls.Clip(urls.Redact(line), 200), "scope", m.scope)
			continue
		}
		m.stats(u.String(), "robots.txt")
		m.queued = append(m.queued, frontier.Entry{Job: m.job, URL: u.String(), Host: urls.Host(u), State: frontier.Queued,
			Kind: frontier.Sitemap, Priority: discover.SitemapPriority, Parent: from.String(), NextAt: now})
	}
}

// unchanged reports whether a page need not be requested: a sitemap's
// lastmod for it is not after its last successful fetch, and its body is
// on disk (onDisk). It then counts the page for its sitemap; the caller
// records it as not modified. m may be nil (no --sitemaps).
func (m *sitemapRun) unchanged(e frontier.Entry, onDisk func(file string) bool) bool {
	if m == nil || e.Kind != frontier.Page || e.LastMod.IsZero() || e.File == "" {
		return false
	}
	var last time.Time
	if s := e.LastStatus; s/100 == 2 || s == http.StatusNotModified {
		last = e.FetchedAt
	}
	if !sitemap.Unchanged(sitemap.Entry{Loc: e.URL, LastMod: e.LastMod, LastModUntil: e.LastMod}, last) {
		return false
	}
	if !onDisk(e.File) {
		return false
	}
	m.stats(cmp.Or(e.ListedBy, e.Parent), "").Unchanged++ // Parent: a lastmod stored before ListedBy was
	return true
}
