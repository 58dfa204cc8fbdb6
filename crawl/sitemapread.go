package crawl

import (
	"fmt"
	"net/url"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/report"
	"github.com/polite-crawler/polite/crawl/sitemap"
	"github.com/polite-crawler/polite/crawl/urls"
)

// maxSitemapProblems is how many problems a sitemap's report keeps.
const maxSitemapProblems = 5

// fetched takes a sitemap's answer into the run: its statistics
// and, when it was read, the entries it lists. It runs after apply.
func (m *sitemapRun) fetched(e frontier.Entry, r result, d decision, now time.Time) {
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
	st.Status = r.resp.Answered()
	switch {
	case d.fate == fateNotModified:
		return
	case d.fate == fateRedirect && m.links.Target(e.URL) != "": // moved: its target is read in its place
		m.stats(m.links.Target(e.URL), e.URL)
	case d.fate == fateDone && r.sitemap != nil:
		m.read(st, e, r.sitemap, now)
	case d.fate == fateDone:
		st.Error = "no body"
	case d.reason != "":
		st.Error = "not read: " + d.reason.String()
	case r.resp.Reason != "":
		st.Error = "not read: " + r.resp.Reason.String()
	default:
		st.Error = "not read: " + frontier.HTTPReason(r.resp.Status).String()
	}
}

// read queues what a sitemap lists: an index's sitemaps (one
// level), a urlset's or text sitemap's pages, each as the protocol and
// --scope allow.
func (m *sitemapRun) read(st *report.SitemapStats, e frontier.Entry, res *sitemap.Result, now time.Time) {
	st.Took(res, maxSitemapProblems)
	from, _ := urls.Parse(e.URL)
	listed := sitemap.Listed{Sitemap: e.URL}
	if e.Kind == frontier.SitemapChild {
		listed.Index = e.Parent
	}
	switch res.Kind {
	case sitemap.Index:
		if e.Kind == frontier.SitemapChild {
			st.Error = "an index listed by an index: not read (the protocol allows one level)"
			st.Refused += len(res.Sitemaps)
			return
		}
		for _, s := range res.Sitemaps {
			u, ok := m.allows(st, from, s.Loc, func(u string, rs []string) error { return sitemap.CheckChild(u, e.URL, rs) })
			if ok {
				m.stats(u.String(), e.URL)
				m.queued = append(m.queued, frontier.Entry{Job: m.job, URL: u.String(), Host: urls.Host(u), State: frontier.Queued,
					Kind: frontier.SitemapChild, Priority: sitemapPriority, Depth: e.Depth, Parent: e.URL, NextAt: now})
			}
		}
	case sitemap.URLSet, sitemap.Text:
		for _, p := range res.URLs {
			u, ok := m.allows(st, from, p.Loc, func(u string, rs []string) error { return sitemap.CheckURL(u, listed, rs) })
			if ok {
				m.queueListed(e, u, p, now)
			}
		}
	}
}

// allows normalises a listed URL and applies check (the protocol's
// rule, with the Sitemap lines of the URL's host's robots.txt when this
// run knows them) and --scope; it counts the URL as queued or refused.
func (m *sitemapRun) allows(st *report.SitemapStats, from *url.URL, loc string, check func(string, []string) error) (*url.URL, bool) {
	u, err := urls.Parse(loc)
	if err == nil {
		err = check(u.String(), m.lines[urls.Host(u)])
		if err == nil && from != nil && !urls.InScope(m.scope, from, u) {
			err = fmt.Errorf("outside --scope %s", m.scope)
		}
	}
	if err != nil {
		st.Refused++
		if len(st.Problems) < maxSitemapProblems {
			st.Problems = append(st.Problems, fmt.Sprintf("refused %s: %v", urls.Clip(urls.Redact(loc), 200), err))
		}
		return nil, false
	}
	st.URLs++
	return u, true
}

// queueListed queues a page a sitemap lists, with its priority and
// lastmod; a known page takes the lastmod (see hostSet.lastMod).
func (m *sitemapRun) queueListed(e frontier.Entry, u *url.URL, p sitemap.Entry, now time.Time) {
	ne := frontier.Entry{Job: m.job, URL: u.String(), Host: urls.Host(u), State: frontier.Queued,
		Priority: p.SeedPriority(), Depth: e.Depth, Parent: e.URL, NextAt: now, LastMod: p.LastModUntil}
	m.listedBy[ne.URL] = e.URL
	m.queued = append(m.queued, ne)
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
