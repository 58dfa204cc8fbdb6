package crawl

import (
	"fmt"
	"time"

	"github.com/polite-crawler/polite/crawl/fate"
	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/report"
	"github.com/polite-crawler/polite/crawl/sitemap"
	"github.com/polite-crawler/polite/crawl/urls"
)

// maxSitemapProblems is how many problems a sitemap's report keeps.
const maxSitemapProblems = 5

// fetched takes a sitemap's answer into the run: its statistics (what it
// listed was queued batch by batch, by list, as it was read). It runs
// after apply.
func (m *sitemapRun) fetched(e frontier.Entry, r result, d fate.Decision) {
	st := m.statsOf(e)
	st.Status = r.resp.Answered()
	switch {
	case d.Kind == fate.NotModified:
		return
	case d.Kind == fate.Redirect && m.links.Target(e.URL) != "": // moved: its target is read in its place
		m.stats(m.links.Target(e.URL), e.URL)
	case d.Kind == fate.Done && r.sitemap != nil:
		st.Took(r.sitemap, maxSitemapProblems)
	case d.Kind == fate.Done:
		st.Error = "no body"
	case d.Reason != "":
		st.Error = "not read: " + d.Reason.String()
	case r.resp.Reason != "":
		st.Error = "not read: " + r.resp.Reason.String()
	default:
		st.Error = "not read: " + frontier.HTTPReason(r.resp.Status).String()
	}
}

// statsOf returns the statistics of sitemap e, made on first use, saying
// where it came from.
func (m *sitemapRun) statsOf(e frontier.Entry) *report.SitemapStats {
	from := "robots.txt"
	if e.Kind == frontier.SitemapChild {
		from = e.Parent
	} else if e.Depth == 0 && e.Parent == "" {
		from = "seed"
	}
	st := m.stats(e.URL, from)
	if st.From == "" {
		st.From = from
	}
	return st
}

// list queues a batch of what sitemap e lists, as it is read: an index's
// sitemaps (one level), a urlset's or text sitemap's pages, each as the
// protocol and --scope allow (discover.Listing). m may be nil (no
// --sitemaps): nothing is queued.
func (m *sitemapRun) list(e frontier.Entry, b *sitemap.Batch, now time.Time) {
	if m == nil {
		return
	}
	st := m.statsOf(e)
	if b.Kind == sitemap.Index && e.Kind == frontier.SitemapChild {
		st.Error = "an index listed by an index: not read (the protocol allows one level)"
		st.Refused += len(b.Entries)
		return
	}
	es := m.listing.List(e, *b, now, func(loc string, err error) {
		st.Refused++
		if len(st.Problems) < maxSitemapProblems {
			st.Problems = append(st.Problems, fmt.Sprintf("refused %s: %v", urls.Clip(urls.Redact(loc), 200), err))
		}
	})
	st.URLs += len(es)
	for _, c := range es {
		if c.Kind == frontier.SitemapChild {
			m.stats(c.URL, e.URL)
		}
	}
	if m.queued == nil {
		m.queued = es // the batch's own slice: not copied
	} else {
		m.queued = append(m.queued, es...)
	}
}

// report sums the run's sitemaps; nil when none was met.
func (m *sitemapRun) report() *report.Sitemaps {
	if m == nil {
		return nil
	}
	return report.SumSitemaps(m.order)
}

// excluded notes a sitemap that robots.txt or the operator's exclusion
// list does not let polite read (e.Reason says which). m may be nil (no
// --sitemaps).
func (m *sitemapRun) excluded(e frontier.Entry) {
	if m != nil && e.Kind.IsSitemap() && e.Reason == frontier.ReasonRobots {
		m.stats(e.URL, "").Error = "not read: excluded by robots.txt"
	} else if m != nil && e.Kind.IsSitemap() {
		m.stats(e.URL, "").Error = "not read: " + e.Reason.String()
	}
}
