package robotscache

import (
	"net/url"
	"time"

	"github.com/polite-crawler/polite/crawl/fetch"
	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/usage"
	"github.com/polite-crawler/polite/robots"
)

// An origin's /.well-known/tdmrep.json is read with its robots.txt when a
// crawl declares a purpose, and kept in the same copy: requested once per
// origin and --robots-ttl (or a shorter Cache-Control max-age of its
// own), as robots.txt is.

// WithUsage has the chain, once robots.txt has been read (not when it is
// unreachable), request the origin's /.well-known/tdmrep.json as one more
// step, paced and counted as robots.txt's are, when p asks for it
// (usage.Policy.AskTDMRep: a purpose declared, not read yet this run);
// the answer goes to p and to Result.TDMRep, and the rest of Result stays
// robots.txt's. p may be nil.
func (c *Chain) WithUsage(p *usage.Policy) *Chain {
	c.usage = p
	return c
}

// thenTDMRep returns the tdmrep.json to request after robots.txt, or nil.
func (c *Chain) thenTDMRep() *url.URL {
	if c.Status == 429 || c.Status >= 500 {
		return nil
	}
	origin := c.origin
	if !c.usage.AskTDMRep(origin.Host) {
		return nil
	}
	c.tdm = &url.URL{Scheme: origin.Scheme, Host: origin.Host, Path: usage.TDMRepPath}
	return c.tdm
}

// CachedFor is Cached for a crawl whose usage policy p still needs the
// host's tdmrep.json this run (usage.Policy.NeedsTDMRep). A tdmrep.json
// kept in the copy that has not expired goes to p (usage.Policy.UseTDMRep),
// and is not requested again. Without one, a fresh robots.txt copy is
// returned as a stale one, so that robots.txt and tdmrep.json are fetched
// together; if the host turns out unreachable, the copy stands in as any
// cached copy does.
func CachedFor(db Cache, key string, now time.Time, p *usage.Policy) (*robots.Robots, *frontier.RobotsCopy, error) {
	rb, cp, err := Cached(db, key, now)
	if cp == nil || !p.NeedsTDMRep(key) {
		return rb, cp, err
	}
	if t := cp.TDMRep; !t.FetchedAt.IsZero() && now.Before(t.Expires) {
		p.UseTDMRep(key, t.Status, t.Body)
		return rb, cp, nil
	}
	return nil, cp, nil
}

// Settle is the package's Settle for the chain's fetch. When an older copy
// stands in for an unreachable host, the tdmrep.json kept in it stands in
// too (if it is younger than robots.MaxStale) for the usage policy
// WithUsage gave, which still needs one.
func (c *Chain) Settle(db Cache, key string, cached *frontier.RobotsCopy, ttl time.Duration, now time.Time) (rb *robots.Robots, how string, fresh *frontier.RobotsCopy, err error) {
	rb, how, fresh, err = Settle(db, key, &c.Result, cached, ttl, now)
	if rb != nil && fresh == nil && cached != nil && c.usage.NeedsTDMRep(key) {
		if t := cached.TDMRep; !t.FetchedAt.IsZero() && now.Sub(t.FetchedAt) < robots.MaxStale {
			c.usage.UseTDMRep(key, t.Status, t.Body)
		}
	}
	return rb, how, fresh, err
}

// keptTDMRep is the tdmrep.json a fresh robots.txt copy keeps: the answer
// to this fetch's request, if it was asked for and the origin answered
// (not 429, a 5xx or a network error, after which it is asked again next
// time), else the one the older copy kept.
func keptTDMRep(resp *fetch.Response, cached *frontier.RobotsCopy, ttl time.Duration, now time.Time) frontier.TDMRepCopy {
	if resp != nil && resp.Err == nil && resp.Status != 429 && resp.Status < 500 {
		t := frontier.TDMRepCopy{Status: resp.Status, FetchedAt: now,
			Expires: now.Add(robots.TTL(resp.Header.Get("Cache-Control"), ttl))}
		if resp.Status/100 == 2 {
			t.Body = resp.Body
		}
		return t
	}
	if cached != nil {
		return cached.TDMRep
	}
	return frontier.TDMRepCopy{}
}
