package crawl

// RobotsFor and RobotsDecision answer "may polite fetch this URL?" outside a
// crawl, for polite robots check, through what a crawl uses: robotscache
// and the test a queued URL passes.

import (
	"context"

	"github.com/polite-crawler/polite/crawl/robotscache"
	"github.com/polite-crawler/polite/crawl/urls"
	"github.com/polite-crawler/polite/robots"
)

// RobotsFor returns the robots.txt rules of target's host the way a crawl
// with cfg gets them (see robotscache.For): cached, or fetched with cfg's
// User-Agent, timeouts and body limit, and cached for cfg.RobotsTTL; with
// cfg.Usage declaring a purpose, the origin's tdmrep.json with it. A bad
// target is an error wrapping ErrUsage.
func RobotsFor(ctx context.Context, db robotscache.Cache, cfg Config, target string) (*robots.Robots, robotscache.Source, error) {
	u, err := urls.Parse(target)
	if err != nil {
		return nil, robotscache.Source{}, usageErr("%v", err)
	}
	return robotscache.For(ctx, db, robotscache.Options{Fetch: cfg.fetchOptions(nil), Pace: cfg.Pace, Rand: cfg.Rand,
		FloorHosts: cfg.FloorHosts, TTL: cfg.RobotsTTL, Clock: cfg.Clock, Usage: cfg.Usage}, u)
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
