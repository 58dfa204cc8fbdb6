// Package robotscache gets a host's robots.txt the way RFC 9309 says: one
// request at a time through its redirects, the answer interpreted (a cached
// copy standing in while the host is unreachable), and the fresh copy
// cached. The crawl and polite robots check share it.
package robotscache

import (
	"fmt"
	"net/url"
	"time"

	"github.com/polite-crawler/polite/crawl/fetch"
	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/urls"
	"github.com/polite-crawler/polite/crawl/usage"
	"github.com/polite-crawler/polite/pace"
	"github.com/polite-crawler/polite/robots"
)

// Cache is what this package needs of the database: the robots.txt copies
// and, for For, the host's pace state (so that redirects are paced as a
// crawl paces them).
type Cache interface {
	Load(host string) (pace.State, bool, error)
	Robots(host string) (frontier.RobotsCopy, bool, error)
	PutRobots(...frontier.RobotsCopy) error // in one transaction
}

// Result is a robots.txt fetch, after redirects.
type Result struct {
	Status       int // final status; 0 network error; 3xx when redirects ran out
	Body         []byte
	CacheControl string
	Hops         int             // redirects followed
	Reason       frontier.Reason // classified network failure

	// TDMRep is the answer to the origin's tdmrep.json when the chain
	// asked for it (WithUsage), nil otherwise; Interpret keeps it in the
	// fresh copy.
	TDMRep *fetch.Response
}

// Chain follows one robots.txt fetch through its redirects: up to
// robots.MaxRedirects are followed, and the caller paces each request
// like any other to its host. Its zero value is not usable: get one from
// NewChain. A Chain is used by one goroutine.
type Chain struct {
	Result
	First fetch.Response // the answer to the first request
	// Refuse, when set, names the redirect targets polite does not follow
	// (the operator's exclusion list): as when redirects run out, the
	// status stays 3xx and robots.txt counts as unavailable.
	Refuse func(*url.URL) bool
	cur    *url.URL
	asked  int

	usage  *usage.Policy // reads the origin's tdmrep.json after robots.txt (WithUsage)
	tdm    *url.URL      // the tdmrep.json requested, once robots.txt has ended
	origin *url.URL      // the first robots.txt URL: tdmrep.json is its origin's
}

// NewChain starts the fetch of the robots.txt at u.
func NewChain(u *url.URL) *Chain { return &Chain{cur: u, origin: u} }

// URL is the URL to request next.
func (c *Chain) URL() *url.URL { return c.cur }

// Add takes the answer to the request for URL and returns the next URL to
// request, or nil when the fetch has ended and Result holds it.
func (c *Chain) Add(resp fetch.Response) *url.URL {
	if c.tdm != nil {
		c.TDMRep = &resp
		c.usage.TakeTDMRep(c.tdm.Host, resp)
		return nil
	}
	if c.asked++; c.asked == 1 {
		c.First = resp
	}
	if resp.Err != nil && resp.Reason == frontier.ReasonPrivateAddress && c.Hops > 0 {
		// A redirect polite may not follow (to a loopback or private
		// address): as when redirects run out, the status stays 3xx
		// and robots.txt counts as unavailable (RFC 9309 2.3.1.2).
		return nil
	}
	c.Status, c.Body, c.Reason = resp.Status, resp.Body, resp.Reason
	if resp.Err != nil {
		c.Status = 0
		return nil
	}
	c.CacheControl = resp.Header.Get("Cache-Control")
	if resp.Status < 300 || resp.Status > 399 {
		return c.thenTDMRep()
	}
	next, err := urls.Resolve(c.cur, resp.Header.Get("Location"))
	if err != nil || c.Hops >= robots.MaxRedirects || (c.Refuse != nil && c.Refuse(next)) {
		return c.thenTDMRep() // status stays 3xx: redirects ran out, allow all
	}
	c.Hops++
	c.cur = next
	return next
}

// Interpret decides what a robots.txt fetch means for a host. It returns
// the rules to use and how they were got; rules are nil when the host is
// unreachable and no cached copy younger than robots.MaxStale can stand
// in (the host then waits). fresh is the copy to cache, nil when nothing
// new should be stored.
func Interpret(key string, rr *Result, cached *frontier.RobotsCopy, ttl time.Duration, now time.Time) (rb *robots.Robots, how string, fresh *frontier.RobotsCopy) {
	rb = robots.FromResponse(rr.Status, rr.Body)
	if rb.Access != robots.Unreachable {
		fresh = &frontier.RobotsCopy{Host: key, Status: rr.Status, Body: rr.Body, FetchedAt: now,
			Expires: now.Add(robots.TTL(rr.CacheControl, ttl)), TDMRep: keptTDMRep(rr.TDMRep, cached, ttl, now)}
		return rb, describeStatus(rr.Status, ""), fresh
	}
	if cached != nil && now.Sub(cached.FetchedAt) < robots.MaxStale {
		if old := robots.FromResponse(cached.Status, cached.Body); old.Access != robots.Unreachable {
			return old, fmt.Sprintf("unreachable (%s); using the copy of %s",
				describeStatus(rr.Status, rr.Reason), cached.FetchedAt.UTC().Format(time.RFC3339)), nil
		}
	}
	return nil, "unreachable (" + describeStatus(rr.Status, rr.Reason) + ")", nil
}

// describeStatus names a robots.txt answer: its status, or for none the
// classified failure.
func describeStatus(status int, reason frontier.Reason) string {
	if status == 0 {
		if reason == "" {
			return "network error"
		}
		return reason.String()
	}
	return fmt.Sprintf("%d", status)
}

// Cached looks up the cached robots.txt copy of key: the rules when the
// copy is fresh at now, else nil rules and the stale copy (nil when there
// is none), which may stand in if the host turns out unreachable. db may
// be nil: nothing is cached then.
func Cached(db Cache, key string, now time.Time) (*robots.Robots, *frontier.RobotsCopy, error) {
	if db == nil {
		return nil, nil, nil
	}
	cp, ok, err := db.Robots(key)
	if err != nil || !ok {
		return nil, nil, err
	}
	if now.Before(cp.Expires) {
		return robots.FromResponse(cp.Status, cp.Body), &cp, nil
	}
	return nil, &cp, nil
}

// Settle interprets a robots.txt fetch of key (Interpret) and caches the
// fresh copy it makes, if any, in db (which may be nil). The error is the
// cache's: the rules stand whether or not it was written.
func Settle(db Cache, key string, rr *Result, cached *frontier.RobotsCopy, ttl time.Duration, now time.Time) (rb *robots.Robots, how string, fresh *frontier.RobotsCopy, err error) {
	rb, how, fresh = Interpret(key, rr, cached, ttl, now)
	if fresh != nil && db != nil {
		err = db.PutRobots(*fresh)
	}
	return rb, how, fresh, err
}
