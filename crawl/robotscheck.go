package crawl

// RobotsFor and RobotsDecision answer "may polite fetch this URL?" outside a
// crawl, for polite robots check, through the functions a crawl uses:
// the cache in the database, fetchRobots, interpretRobots and the test a
// queued URL passes.

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/polite-crawler/polite/crawl/clock"
	"github.com/polite-crawler/polite/crawl/fetch"
	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/urls"
	"github.com/polite-crawler/polite/pace"
	"github.com/polite-crawler/polite/robots"
)

// RobotsCache is what RobotsFor needs from the database: the host's pace
// state (so that redirects are paced as a crawl paces them) and the
// robots.txt cache. Every Store implements it.
type RobotsCache interface {
	Load(host string) (pace.State, bool, error)
	Robots(host string) (frontier.RobotsCopy, bool, error)
	PutRobots(frontier.RobotsCopy) error
}

var _ RobotsCache = Store(nil)

// RobotsSource says where the rules RobotsFor returned came from.
type RobotsSource struct {
	Host string // host key: the lower-cased host and any non-default port
	URL  string // the robots.txt asked for (or that the cached copy stands for)

	// How is what happened, as the run report words it: "cached", the
	// final status ("200", "404", "301" when redirects ran out), or
	// "unreachable (503)", "unreachable (timeout); using the copy of
	// 2025-01-02T03:04:05Z".
	How string

	Cached      bool // a fresh copy from the database: no request was made
	Unreachable bool // no usable answer and no usable copy: everything disallowed for now
	Stale       bool // unreachable, and an older copy stands in
	Requests    int  // robots.txt requests made, redirects included

	FetchedAt time.Time // when the copy in use was fetched; zero when Unreachable
	Expires   time.Time // when it is fetched again; zero when not cached
}

// RobotsFor returns the robots.txt rules of target's host the way a crawl
// with cfg gets them: a cached copy that has not expired, else a fetch of
// /robots.txt over target's scheme with cfg's User-Agent, timeouts and body
// limit, redirects followed and paced, the answer interpreted by RFC 9309
// and a fresh copy cached for cfg.RobotsTTL (or a shorter Cache-Control
// max-age).
//
// target counts as a seed: its host may be a loopback or private address.
// A host that is unreachable (5xx, 429, a network error or timeout) is not
// an error: an older copy younger than robots.MaxStale stands in if there
// is one, and otherwise the rules disallow everything and the source says
// Unreachable. The error is for a bad target (wrapping ErrUsage), a failing
// database or a cancelled ctx. db may be nil: nothing is cached then.
//
// Nothing is learned about the host's pacing: RobotsFor reads the stored
// pace state but never writes it.
func RobotsFor(ctx context.Context, db RobotsCache, cfg Config, target string) (*robots.Robots, RobotsSource, error) {
	u, err := urls.Parse(target)
	if err != nil {
		return nil, RobotsSource{}, usageErr("%v", err)
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	key := urls.Host(u)
	ru := &url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/robots.txt"}
	src := RobotsSource{Host: key, URL: ru.String()}
	now := cfg.Clock.Now()

	rb, cached, err := cachedRobots(db, key, now)
	if err != nil {
		return nil, src, err
	}
	if rb != nil {
		src.How, src.Cached, src.FetchedAt, src.Expires = "cached", true, cached.FetchedAt, cached.Expires
		return rb, src, nil
	}
	p := pace.New(cfg.Pace, cfg.Rand)
	if db != nil {
		if st, ok, err := db.Load(key); err != nil {
			return nil, src, err
		} else if ok {
			p.Restore(st, now)
		}
	}
	for h, d := range cfg.FloorHosts {
		p.SetFloor(h, d, pace.FloorHost)
	}

	f := fetch.New(cfg.fetchOptions(), cfg.Clock.Now)
	defer f.Close()
	p.Begin(key, now)
	_, rr := fetchRobots(fetch.WithPrivateOK(ctx, true), f, nil, p, cfg.Clock, ru)
	if err := ctx.Err(); err != nil {
		return nil, src, fmt.Errorf("fetch %s: %w", ru, err)
	}
	src.Requests = rr.hops + 1
	now = cfg.Clock.Now()
	rb, how, fresh, err := settleRobots(db, key, rr, cached, cfg.RobotsTTL, now)
	if err != nil {
		return nil, src, err
	}
	src.How = how
	switch {
	case fresh != nil:
		src.FetchedAt, src.Expires = fresh.FetchedAt, fresh.Expires
	case rb != nil:
		src.Stale, src.FetchedAt = true, cached.FetchedAt
	default:
		src.Unreachable = true
		rb = robots.FromResponse(rr.status, rr.body)
	}
	return rb, src, nil
}

// RobotsDecision decides whether agent may fetch target under rb, as a
// crawl decides for a queued URL: target is normalised first, and its path and
// query are tested. A bad target is an error wrapping ErrUsage.
func RobotsDecision(rb *robots.Robots, agent, target string) (robots.Decision, error) {
	u, err := urls.Parse(target)
	if err != nil {
		return robots.Decision{}, usageErr("%v", err)
	}
	return rb.Test(agent, requestTarget(u)), nil
}

// RobotsAgent is the product token a crawl with cfg matches robots.txt
// groups by: cfg.RobotsAgent, else the product token of cfg.UserAgent.
func RobotsAgent(cfg Config) string {
	if cfg.RobotsAgent != "" {
		return cfg.RobotsAgent
	}
	return robots.ProductToken(cfg.UserAgent)
}
