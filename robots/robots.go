// Package robots decides what a site's robots.txt lets polite fetch, as
// RFC 9309 says, and what a robots.txt fetch's status means.
//
// It never makes a request: crawl/ fetches robots.txt through the same
// pacer as any URL and hands the status and body to FromResponse. Matching
// uses github.com/temoto/robotstxt where it agrees with the RFC; where it
// does not, this package corrects it: corrections.go reads lines and builds
// groups, match.go matches patterns, and rfc_test.go pins each correction
// next to what temoto alone answers.
package robots

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// MaxBytes is how much of a robots.txt body is parsed (RFC 9309 2.5 asks
// for at least 500 KiB); the rest is ignored.
const MaxBytes = 500 << 10

// MaxRedirects is how many redirects a robots.txt fetch follows (RFC 9309 2.3.1.2).
const MaxRedirects = 5

// DefaultTTL is how long a fetched copy stays good.
const DefaultTTL = 24 * time.Hour

// MaxStale is how long a cached copy may stand in while the host is unreachable.
const MaxStale = 30 * 24 * time.Hour

// Access says what kind of answer a robots.txt fetch gave.
type Access int

const (
	Parsed      Access = iota // 2xx: rules from the file
	AllowAll                  // 4xx, or more than MaxRedirects redirects: no restrictions
	Unreachable               // 5xx, 429 or a network error: disallow everything for now
)

// Robots is a parsed robots.txt. The zero value allows everything. It is
// safe for concurrent use once built. Most callers want Test; Group gives
// the Crawl-delay and Request-rate that apply to an agent.
type Robots struct {
	Access Access
	// Status is the HTTP status the copy came from (FromResponse); 0 when
	// built by Parse, or for a network error.
	Status int

	groups   []*group
	byToken  map[string][]*group // lower-cased product token or "*" -> groups naming it, in file order
	sitemaps []string
}

// Parse reads a robots.txt body. It never fails: lines that do not parse are
// skipped and the rest are used (RFC 9309 2.2). Only the first MaxBytes count.
func Parse(body []byte) *Robots {
	p := build(lines(body))
	r := &Robots{Access: Parsed, groups: p.groups, sitemaps: p.sitemaps, byToken: map[string][]*group{}}
	for _, g := range p.groups {
		seen := map[string]bool{}
		for _, a := range g.agents {
			if a.token == "" || seen[a.token] {
				continue
			}
			seen[a.token] = true
			r.byToken[a.token] = append(r.byToken[a.token], g)
		}
	}
	return r
}

// FromResponse interprets a robots.txt fetch: status is the final HTTP status
// (0 for a network error or timeout, or a 3xx when redirects ran out).
//
// 2xx is parsed. 3xx (more than MaxRedirects redirects, RFC 9309 2.3.1.2)
// and 4xx other than 429 allow everything (2.3.1.3). 429, 5xx, 0 and any
// other status disallow everything for now (2.3.1.4).
func FromResponse(status int, body []byte) *Robots {
	switch {
	case status >= 200 && status <= 299:
		r := Parse(body)
		r.Status = status
		return r
	case status >= 300 && status <= 399, status >= 400 && status <= 499 && status != 429:
		return &Robots{Access: AllowAll, Status: status}
	}
	return &Robots{Access: Unreachable, Status: status}
}

// Decision explains one allow/disallow answer.
type Decision struct {
	Allowed   bool
	Group     string // the user-agent line(s) of the group that applied; "" when none
	GroupLine int    // line of the group's first user-agent line; 0 when none
	Rule      string // the deciding rule as written, e.g. "Disallow: /private"; "" when none
	RuleLine  int    // its line number; 0 when none
	Reason    string // short human reason, e.g. "no group matched", "unreachable (5xx)", "robots.txt is always allowed"
}

// Test decides whether agent (a product token, see ProductToken) may fetch
// target, the URL's path and query as sent on the wire ("/a%20b?x=1").
//
// A full User-Agent string is reduced with ProductToken first, and an
// absolute http or https URL is reduced to its path and query. Group holds
// every user-agent line of the group that applied, as written and joined by
// "; "; when several groups name agent they are merged (RFC 9309 2.2.1) and
// Group holds the lines of each, GroupLine the first of them.
func (r *Robots) Test(agent, target string) Decision {
	path := normaliseTarget(target)
	if p, _, _ := strings.Cut(path, "?"); p == "/robots.txt" {
		return Decision{Allowed: true, Reason: "robots.txt is always allowed"}
	}
	if r == nil {
		r = &Robots{}
	}
	switch r.Access {
	case Unreachable:
		return Decision{Reason: fmt.Sprintf("robots.txt unreachable (%s): everything disallowed for now", statusText(r.Status))}
	case AllowAll:
		if r.Status >= 300 && r.Status <= 399 {
			return Decision{Allowed: true, Reason: fmt.Sprintf("robots.txt redirected more than %d times (%d): everything allowed", MaxRedirects, r.Status)}
		}
		return Decision{Allowed: true, Reason: fmt.Sprintf("no robots.txt (%s): everything allowed", statusText(r.Status))}
	}
	ms := r.matching(agent)
	if len(ms) == 0 {
		return Decision{Allowed: true, Reason: "no group matched"}
	}
	d := Decision{Group: groupName(ms), GroupLine: ms[0].agents[0].num}
	var rules []*rule
	for _, g := range ms {
		rules = append(rules, g.rules...)
	}
	best, tie := decide(rules, path)
	switch {
	case best == nil:
		d.Allowed = true
		d.Reason = "no rule matched"
		if len(rules) == 0 {
			d.Reason = "group has no rules"
		}
	case tie:
		d.Allowed, d.Rule, d.RuleLine = true, best.text, best.num
		d.Reason = "allow wins a tie with an equally long disallow"
	default:
		d.Allowed, d.Rule, d.RuleLine = best.allow, best.text, best.num
		d.Reason = "longest matching rule"
	}
	return d
}

// matching returns the groups that apply to agent: those naming its
// product token (case-insensitively), else those for "*".
func (r *Robots) matching(agent string) []*group {
	if tok := strings.ToLower(ProductToken(agent)); tok != "" {
		if ms := r.byToken[tok]; len(ms) > 0 {
			return ms
		}
	}
	return r.byToken["*"]
}

// groupName joins the user-agent lines of groups, as written, with "; ".
func groupName(gs []*group) string {
	var names []string
	for _, g := range gs {
		for _, a := range g.agents {
			names = append(names, a.text)
		}
	}
	return strings.Join(names, "; ")
}

// statusText names a status for a Reason: "503", or "network error" for 0.
func statusText(status int) string {
	if status == 0 {
		return "network error"
	}
	return strconv.Itoa(status)
}

// Rate is a robots.txt Request-rate: Requests per Per.
type Rate struct {
	Requests int
	Per      time.Duration
}

// Interval is the gap between requests a Rate asks for.
func (r Rate) Interval() time.Duration {
	if r.Requests <= 0 {
		return 0
	}
	return r.Per / time.Duration(r.Requests)
}

// Group is what the group that applies to an agent says besides its rules.
type Group struct {
	Name        string // its user-agent line(s); "" when no group applies
	Line        int
	CrawlDelay  time.Duration // 0 when absent
	RequestRate Rate          // zero when absent
}

// Group returns the group that applies to agent. When several groups name
// agent they are merged (RFC 9309 2.2.1) and the slowest Crawl-delay and
// Request-rate among them count. A robots.txt that was not parsed has no
// group.
func (r *Robots) Group(agent string) Group {
	if r == nil || r.Access != Parsed {
		return Group{}
	}
	ms := r.matching(agent)
	if len(ms) == 0 {
		return Group{}
	}
	g := Group{Name: groupName(ms), Line: ms[0].agents[0].num}
	for _, m := range ms {
		g.CrawlDelay = max(g.CrawlDelay, m.crawlDelay)
		g.RequestRate = slower(g.RequestRate, m.requestRate)
	}
	return g
}

// Sitemaps returns the Sitemap lines of the file, in order.
func (r *Robots) Sitemaps() []string {
	if r == nil {
		return nil
	}
	return slices.Clone(r.sitemaps)
}
