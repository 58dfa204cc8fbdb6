package discover

import (
	"fmt"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/sitemap"
	"github.com/polite-crawler/polite/crawl/urls"
)

// SitemapPriority puts sitemaps before the pages of their host (seed and
// sitemap priorities are within -5..5, or a seed file's small integers),
// so that a pass reads the lastmods before it decides on the pages.
const SitemapPriority = 1 << 20

// Listing turns what the sitemaps of a run list into frontier entries,
// one batch at a time (sitemap.Options.Each), so that a sitemap index of
// 50,000 children of 50,000 URLs each is never held whole.
type Listing struct {
	Job   string
	Scope urls.Scope
	// Lines are the Sitemap lines of each host's robots.txt (by
	// urls.Host), for the hosts whose robots.txt the run has read: they
	// allow the cross-submits of the protocol.
	Lines map[string][]string
}

// List returns the entries for batch b of what sitemap s lists, queued
// at now: an index's sitemaps as sitemap children at s's depth, a
// urlset's or text sitemap's pages with their priority and lastmod (and
// s as the sitemap that gave it), each naming s as its parent. Each listed
// URL is put in normal form, held to the protocol's rule
// (sitemap.CheckChild, sitemap.CheckURL) and to the scope measured from
// s; refuse is told of each one refused, and why. It keeps nothing of b.
func (l *Listing) List(s frontier.Entry, b sitemap.Batch, now time.Time, refuse func(loc string, err error)) []frontier.Entry {
	from, _ := urls.Parse(s.URL)
	listed := sitemap.Listed{Sitemap: s.URL}
	if s.Kind == frontier.SitemapChild {
		listed.Index = s.Parent
	}
	out := make([]frontier.Entry, 0, len(b.Entries))
	for _, p := range b.Entries {
		u, err := urls.Parse(p.Loc)
		if err == nil && b.Kind == sitemap.Index {
			err = sitemap.CheckChild(u.String(), s.URL, l.Lines[urls.Host(u)])
		} else if err == nil {
			err = sitemap.CheckURL(u.String(), listed, l.Lines[urls.Host(u)])
		}
		if err == nil && from != nil && !urls.InScope(l.Scope, from, u) {
			err = fmt.Errorf("outside --scope %s", l.Scope)
		}
		if err != nil {
			refuse(p.Loc, err)
			continue
		}
		e := frontier.Entry{Job: l.Job, URL: u.String(), Host: urls.Host(u), State: frontier.Queued,
			Depth: s.Depth, Parent: s.URL, NextAt: now}
		if b.Kind == sitemap.Index {
			e.Kind, e.Priority = frontier.SitemapChild, SitemapPriority
		} else {
			e.Priority, e.LastMod = p.SeedPriority(), p.LastModUntil
		}
		if !e.LastMod.IsZero() {
			e.ListedBy = s.URL
		}
		out = append(out, e)
	}
	return out
}
