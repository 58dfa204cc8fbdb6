// Package discover turns what answers point to (a page's links, a
// redirect's Location) into new frontier entries, under a crawl's rules:
// its job, its --scope, the redirect chains of its run.
package discover

import (
	"cmp"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/urls"
)

// DefaultMaxNext is --max-next's default.
const DefaultMaxNext = 10_000

// Follow says which of an answer's Link header relations a crawl follows
// (--follow; nil: urls.DefaultRels) and how long a chain of them may be
// in one run (--max-next; 0: DefaultMaxNext).
type Follow struct {
	Rels    []string
	MaxNext int
}

// Links are what one answer points to: its page's links, one level
// deeper, the targets of its Link header relations followed, at the
// page's own depth (a paginated API needs no --depth), and its page
// requisites, at its depth too (they do not count toward --depth).
type Links struct {
	Page []*url.URL
	Rel  []*url.URL
	Req  []*url.URL
}

// Take returns what the 2xx answer for u (its header hdr, its body)
// points to within scope: its Link relations always, its HTML links when
// page (the crawl goes deeper); a JSON or other body is not read for
// links. It runs in a worker's goroutine: it touches no state.
func Take(f Follow, scope urls.Scope, u *url.URL, hdr http.Header, body []byte, page bool) Links {
	var ls Links
	rels := f.Rels
	if rels == nil {
		rels = urls.DefaultRels
	}
	for _, l := range urls.LinkRels(hdr.Values("Link"), u, rels) {
		if urls.InScope(scope, u, l) {
			ls.Rel = append(ls.Rel, l)
		}
	}
	if page && urls.IsHTML(hdr.Get("Content-Type")) {
		for _, l := range urls.Links(body, u, hdr.Values("X-Robots-Tag")) {
			if urls.InScope(scope, u, l) {
				ls.Page = append(ls.Page, l)
			}
		}
	}
	return ls
}

// MaxHops bounds a redirect chain; MaxRequisiteHops a requisite's.
const (
	MaxHops          = 10
	MaxRequisiteHops = 5
)

// Discovery turns what answers point to into new frontier entries of Job,
// and remembers this run's redirect chains. It is not safe for concurrent
// use: a crawl's loop owns it.
type Discovery struct {
	Job        string
	Scope      urls.Scope
	Requisites urls.Requisites
	Follow     Follow
	Log        *slog.Logger

	redirectFrom map[string]string // redirect target -> the URL that redirected to it, this run
	redirectTo   map[string]string // URL -> the redirect target queued for it, this run
	seedChain    map[string]bool   // targets a seed's own redirects led to, this run
	chain        map[string]int    // a Link relation's target -> its place in its chain, this run
	requisites   int               // requisites fetched this run (done or not modified)
	reqHosts     map[string]bool   // their hosts
}

// Kept counts e, fetched and kept (done or not modified), when it is a
// requisite.
func (d *Discovery) Kept(e frontier.Entry) {
	if e.Kind != frontier.Requisite {
		return
	}
	if d.reqHosts == nil {
		d.reqHosts = map[string]bool{}
	}
	d.requisites++
	d.reqHosts[e.Host] = true
}

// Tally is how many requisites this run kept, and from how many hosts.
func (d *Discovery) Tally() (n, hosts int) { return d.requisites, len(d.reqHosts) }

// Found returns what a page points to as entries: its links one level
// deeper than e, its Link relations at e's depth, as long as their chain
// (next of next...) is within Follow.MaxNext this run, and its requisites
// as entries of kind frontier.Requisite at e's depth. A chain that loops
// ends because a URL is fetched once.
func (d *Discovery) Found(e frontier.Entry, links Links, now time.Time) []frontier.Entry {
	var es []frontier.Entry
	entry := func(l *url.URL, depth int) frontier.Entry {
		return frontier.Entry{
			Job: d.Job, URL: l.String(), Host: urls.Host(l), State: frontier.Queued,
			Priority: e.Priority, Depth: depth, Parent: e.URL, NextAt: now,
		}
	}
	for _, l := range links.Page {
		es = append(es, entry(l, e.Depth+1))
	}
	maxNext := cmp.Or(d.Follow.MaxNext, DefaultMaxNext)
	for _, l := range links.Rel {
		n := d.chain[e.URL] + 1
		if n > maxNext {
			d.Log.Info("Link relation not followed: --max-next reached", "url", e.URL, "target", l.String(), "max_next", maxNext)
			continue
		}
		if d.chain == nil {
			d.chain = map[string]int{}
		}
		if _, seen := d.chain[l.String()]; !seen {
			d.chain[l.String()] = n
		}
		es = append(es, entry(l, e.Depth))
	}
	for _, l := range links.Req {
		es = append(es, frontier.Entry{
			Job: d.Job, URL: l.String(), Host: urls.Host(l), State: frontier.Queued, Kind: frontier.Requisite,
			Priority: e.Priority, Depth: e.Depth, Parent: e.URL, NextAt: now,
		})
	}
	return es
}

// Requisites returns what a fetched 2xx body of kind needs to display,
// as mode allows: an HTML page's requisites, and a stylesheet's url()s
// and @imports. A requisite's own links are not followed (one hop), a
// stylesheet's requisites are. It runs in a worker's goroutine: it touches
// no state.
func Requisites(mode urls.Requisites, kind frontier.Kind, u *url.URL, h http.Header, body []byte) []*url.URL {
	if !mode.On() { // no body parsed for what would not be fetched: 5% of a plain crawl's CPU
		return nil
	}
	ct := h.Get("Content-Type")
	var found, reqs []*url.URL
	switch {
	case urls.IsCSS(ct):
		found = urls.CSSRequisites(body, u)
	case urls.IsHTML(ct) && kind == frontier.Page:
		found = urls.PageRequisites(body, u)
	}
	for _, l := range found {
		if mode.Allows(u, l) {
			reqs = append(reqs, l)
		}
	}
	return reqs
}

// Redirect returns the entry for a 3xx target, to pass robots.txt and
// pacing of its own host, at the same depth as e (fetched from from), of
// e's kind (a sitemap's target is read as a sitemap). It returns why the
// redirect was refused instead ("" with no entry when there is no
// Location or it leaves --scope): a scheme other than http(s), an
// unusable Location, a chain longer than MaxHops, or a loop back into
// its own chain.
//
// Only a seed's own redirects may leave --scope. Every other URL (a
// page's link, a sitemap robots.txt names or an index lists, a URL a
// sitemap lists, and the redirects of each) is held to it at every hop:
// a sitemap's URLs enter at depth 0 as seeds do, but are not seeds.
func (d *Discovery) Redirect(e frontier.Entry, from *url.URL, loc string, now time.Time) (*frontier.Entry, frontier.Reason) {
	if loc == "" {
		return nil, ""
	}
	refuse := func(reason frontier.Reason, args ...any) (*frontier.Entry, frontier.Reason) {
		d.Log.Info("redirect refused", append([]any{"url", e.URL, "location", urls.Clip(urls.Redact(loc), 200), "reason", reason}, args...)...)
		return nil, reason
	}
	ref, err := url.Parse(strings.TrimSpace(loc))
	if err != nil {
		return refuse(frontier.ReasonBadRedirect, "err", urls.Redact(err.Error()))
	}
	if s := strings.ToLower(from.ResolveReference(ref).Scheme); s != "http" && s != "https" {
		return refuse(frontier.ReasonRedirectScheme, "scheme", s)
	}
	u, err := urls.Resolve(from, loc)
	if err != nil {
		return refuse(frontier.ReasonBadRedirect, "err", err)
	}
	target := u.String()
	if d.inChain(e, target) {
		return refuse(frontier.ReasonRedirectLoop)
	}
	if e.Hops+1 > MaxHops || e.Kind == frontier.Requisite && e.Hops+1 > MaxRequisiteHops {
		return refuse(frontier.ReasonTooManyRedirects, "hops", e.Hops+1)
	}
	seed := d.seedsOwn(e)
	if !seed && e.Kind != frontier.Requisite && !urls.InScope(d.Scope, from, u) {
		// A requisite may leave --scope (one hop, see Requisites); any
		// other URL but a seed's own redirects may not.
		d.Log.Info("redirect out of scope not followed", "url", e.URL, "location", target, "scope", d.Scope)
		return nil, ""
	}
	if d.redirectFrom == nil {
		d.redirectFrom, d.redirectTo, d.seedChain = map[string]string{}, map[string]string{}, map[string]bool{}
	}
	if _, seen := d.redirectFrom[target]; !seen {
		d.redirectFrom[target] = e.URL
	}
	d.redirectTo[e.URL] = target
	if seed {
		d.seedChain[target] = true
	}
	return &frontier.Entry{
		Job: d.Job, URL: target, Host: urls.Host(u), State: frontier.Queued, Kind: e.Kind,
		Priority: e.Priority, Depth: e.Depth, Hops: e.Hops + 1, Parent: e.URL, NextAt: now,
	}, ""
}

// seedsOwn reports whether e's redirects are a seed's own, free to leave
// --scope: e is a seed (depth 0, no parent, no hop) or a target a seed's
// redirects led to this run. A chain a run left half followed is held to
// --scope from its next hop on, in the next run.
func (d *Discovery) seedsOwn(e frontier.Entry) bool {
	if e.Depth > 0 {
		return false
	}
	if e.Hops == 0 {
		return e.Parent == ""
	}
	return d.seedChain[e.URL]
}

// Target returns the target queued for u's redirect this run; "" when
// u did not redirect, or its redirect was refused or left --scope.
func (d *Discovery) Target(u string) string { return d.redirectTo[u] }

// inChain reports whether target is e itself or one of the URLs whose
// redirects led to e: the entry's parent (kept in the frontier), then the
// parents this run saw.
func (d *Discovery) inChain(e frontier.Entry, target string) bool {
	if target == e.URL {
		return true
	}
	cur := ""
	if e.Hops > 0 {
		cur = e.Parent
	}
	for i := 0; cur != "" && i <= MaxHops; i++ {
		if cur == target {
			return true
		}
		cur = d.redirectFrom[cur]
	}
	return false
}
