package crawl

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/polite-crawler/polite/crawl/clock"
	"github.com/polite-crawler/polite/crawl/fetch"
	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/output"
	"github.com/polite-crawler/polite/crawl/urls"
	"github.com/polite-crawler/polite/crawl/warc"
	"github.com/polite-crawler/polite/pace"
	"github.com/polite-crawler/polite/robots"
)

// robotsResult is a robots.txt fetch, after redirects.
type robotsResult struct {
	status  int // final status; 0 network error; 3xx when redirects ran out
	body    []byte
	cc      string // Cache-Control
	hops    int
	reason  string // classified network failure
	warcErr error  // a failure to write the fetches' WARC records
}

// fetchRobots fetches the robots.txt at u as RFC 9309 says: up to
// robots.MaxRedirects redirects are followed, each one paced like any
// request to its host (the first request's pacing is the caller's); a body
// is cut at robots.MaxBytes. first is the answer to the first request.
func fetchRobots(ctx context.Context, f *fetch.Client, w *warc.Writer, p *pace.Pacer, clk clock.Clock, u *url.URL) (first fetch.Response, rr *robotsResult) {
	rr = &robotsResult{}
	cur := u
	for {
		resp := f.GetRobots(ctx, cur)
		if _, _, err := output.Archive(w, cur, resp, frontier.Entry{}); err != nil {
			rr.warcErr = err
		}
		if rr.hops == 0 {
			first = resp
		}
		if resp.Err != nil && resp.Reason == "private-address" && rr.hops > 0 {
			// A redirect polite may not follow (to a loopback or private
			// address): as when redirects run out, the status stays 3xx
			// and robots.txt counts as unavailable (RFC 9309 2.3.1.2).
			return first, rr
		}
		rr.status, rr.body, rr.reason = resp.Status, resp.Body, resp.Reason
		if resp.Err != nil {
			rr.status = 0
			return first, rr
		}
		rr.cc = resp.Header.Get("Cache-Control")
		if resp.Status < 300 || resp.Status > 399 {
			return first, rr
		}
		next, err := urls.Resolve(cur, resp.Header.Get("Location"))
		if err != nil || rr.hops >= robots.MaxRedirects {
			return first, rr // status stays 3xx: redirects ran out, allow all
		}
		rr.hops++
		hk := urls.Host(next)
		for {
			wait := p.Ready(hk, clk.Now()).Sub(clk.Now())
			if wait <= 0 || !clock.Sleep(ctx, clk, wait) {
				break
			}
		}
		if ctx.Err() != nil {
			return first, &robotsResult{reason: "canceled"}
		}
		p.Begin(hk, clk.Now())
		cur = next
	}
}

// interpretRobots decides what a robots.txt fetch means for a host. It
// returns the rules to use and how they were got; rules are nil when the
// host is unreachable and no cached copy younger than robots.MaxStale can
// stand in (the host then waits). fresh is the copy to cache, nil when
// nothing new should be stored.
func interpretRobots(key string, rr *robotsResult, cached *frontier.RobotsCopy, ttl time.Duration, now time.Time) (rb *robots.Robots, how string, fresh *frontier.RobotsCopy) {
	rb = robots.FromResponse(rr.status, rr.body)
	if rb.Access != robots.Unreachable {
		fresh = &frontier.RobotsCopy{Host: key, Status: rr.status, Body: rr.body, FetchedAt: now,
			Expires: now.Add(robots.TTL(rr.cc, ttl))}
		return rb, describeStatus(rr.status, ""), fresh
	}
	if cached != nil && now.Sub(cached.FetchedAt) < robots.MaxStale {
		if old := robots.FromResponse(cached.Status, cached.Body); old.Access != robots.Unreachable {
			return old, fmt.Sprintf("unreachable (%s); using the copy of %s",
				describeStatus(rr.status, rr.reason), cached.FetchedAt.UTC().Format(time.RFC3339)), nil
		}
	}
	return nil, "unreachable (" + describeStatus(rr.status, rr.reason) + ")", nil
}

func describeStatus(status int, reason string) string {
	if status == 0 {
		if reason == "" {
			reason = "network error"
		}
		return reason
	}
	return fmt.Sprintf("%d", status)
}

// cachedRobots looks up the cached robots.txt copy of key: the rules when
// the copy is fresh at now, else nil rules and the stale copy (nil when
// there is none), which may stand in if the host turns out unreachable.
// db may be nil: nothing is cached then.
func cachedRobots(db RobotsCache, key string, now time.Time) (*robots.Robots, *frontier.RobotsCopy, error) {
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

// settleRobots interprets a robots.txt fetch of key (interpretRobots) and
// caches the fresh copy it makes, if any, in db (which may be nil). The
// error is the cache's: the rules stand whether or not it was written.
func settleRobots(db RobotsCache, key string, rr *robotsResult, cached *frontier.RobotsCopy, ttl time.Duration, now time.Time) (rb *robots.Robots, how string, fresh *frontier.RobotsCopy, err error) {
	rb, how, fresh = interpretRobots(key, rr, cached, ttl, now)
	if fresh != nil && db != nil {
		err = db.PutRobots(*fresh)
	}
	return rb, how, fresh, err
}
