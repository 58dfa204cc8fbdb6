// Package robots decides what a site's robots.txt lets polite fetch, as
// RFC 9309 says, and what a robots.txt fetch's status means.
//
// It never makes a request: crawl/ fetches robots.txt through the same
// pacer as any URL and hands the status and body to FromResponse. Matching
// uses github.com/temoto/robotstxt where it agrees with the RFC; where it
// does not, this package corrects it (see corrections.go and its tests).
package robots

import "time"

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
// safe for concurrent use once built.
type Robots struct {
	Access Access
}

// Parse reads a robots.txt body. It never fails: lines that do not parse are
// skipped and the rest are used (RFC 9309 2.2). Only the first MaxBytes count.
func Parse(body []byte) *Robots { panic("TODO") }

// FromResponse interprets a robots.txt fetch: status is the final HTTP status
// (0 for a network error or timeout, or a 3xx when redirects ran out).
func FromResponse(status int, body []byte) *Robots { panic("TODO") }

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
func (r *Robots) Test(agent, target string) Decision { panic("TODO") }

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
	Name        string        // its user-agent line(s); "" when no group applies
	Line        int
	CrawlDelay  time.Duration // 0 when absent
	RequestRate Rate          // zero when absent
}

// Group returns the group that applies to agent.
func (r *Robots) Group(agent string) Group { panic("TODO") }

// Sitemaps returns the Sitemap lines of the file, in order.
func (r *Robots) Sitemaps() []string { panic("TODO") }

// ProductToken reduces a User-Agent string to the product token robots.txt
// groups are matched against: "polite/0.1 (+https://x)" -> "polite".
func ProductToken(userAgent string) string { panic("TODO") }

// ParseRequestRate reads a Request-rate value: "1/5", "10/1m", "1/2h".
func ParseRequestRate(v string) (Rate, error) { panic("TODO") }

// TTL returns how long a copy fetched with this Cache-Control header stays
// good: max-age when it is shorter than def, else def.
func TTL(cacheControl string, def time.Duration) time.Duration { panic("TODO") }
