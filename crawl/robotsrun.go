package crawl

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/report"
	"github.com/polite-crawler/polite/crawl/robotscache"
	"github.com/polite-crawler/polite/crawl/urls"
	"github.com/polite-crawler/polite/pace"
	"github.com/polite-crawler/polite/robots"
)

// startRobots fetches the host's robots.txt unless a fresh copy is cached.
// The cache, the fetch and its interpretation are the ones polite robots
// check uses (RobotsFor).
func (sc *scheduler) startRobots(ctx context.Context, h *hostRun, now time.Time) error {
	if h.robotsCopy == nil {
		rb, cp, err := robotscache.CachedFor(sc.robots, h.key, now, sc.cfg.Usage)
		if err != nil {
			return err
		}
		h.robotsCopy = cp
		if rb != nil {
			sc.useRobots(h, rb, "cached")
			return nil
		}
	}
	h.robotsBusy = true
	sc.work.add(1)
	sc.budget.requests++
	h.begin(now)
	sc.pacer.Begin(h.pace(), now)
	u := &url.URL{Scheme: robotsScheme(h), Host: h.key, Path: "/robots.txt"}
	h.robots = robotscache.NewChain(u).WithUsage(sc.cfg.Usage)
	h.robots.Refuse = sc.excl.Refuses
	sc.work.robots(ctx, result{host: h.key, url: u, start: now, delay: sc.pacer.Delay(h.pace(), now), robots: true})
	return nil
}

// robotsHop starts the request for the redirect a robots.txt fetch of h
// follows, once its host's pace allows it (readyAt): a request like any
// other, counted in the budget, though not as an attempt of the host's.
func (sc *scheduler) robotsHop(ctx context.Context, h *hostRun, now time.Time) {
	u := h.robotsNext
	h.robotsNext, h.robotsBusy = nil, true
	sc.work.add(1)
	h.grp.inflight++
	sc.budget.requests++
	h.stats.Requests++
	sc.pacer.Begin(sc.hosts.groups.Key(urls.Host(u)), now)
	sc.work.robots(ctx, result{host: h.key, url: u, start: now, delay: sc.pacer.Delay(h.pace(), now), robots: true})
}

// handleRobots takes a robots.txt fetch into use.
func (sc *scheduler) handleRobots(h *hostRun, r result, now time.Time) {
	h.robotsBusy = false
	if err := r.werr; err != nil && sc.fatal == nil {
		sc.fatal = fmt.Errorf("write WARC record of %s: %w", r.url, err)
		sc.log.Error("stopping: cannot write WARC records", "err", err)
	}
	ch := h.robots
	first := ch.Hops == 0
	next := ch.Add(r.resp)
	if ch.Reason == frontier.ReasonCanceled {
		return
	}
	if first {
		// The pace learns from the host's own answer; a redirect's
		// target may be another host's.
		if _, throttled := sc.hosts.observe(h, r, now); throttled {
			sc.throttled++
		}
	}
	if next != nil {
		h.robotsNext = next
		return
	}
	h.robots = nil
	if ch.Reason.TLS() { // no retry: it would fail the same way
		sc.hosts.refuseTLS(h, r.resp)
		h.stats.Robots = "not read: TLS refused"
		return
	}
	if ch.Reason == frontier.ReasonPrivateAddress && ch.Hops == 0 {
		// polite refused to dial the host: it is no seed's host and it
		// resolves to a loopback, private or link-local address. That is
		// polite's rule, not the host's state: the host gets no more
		// requests, and its URLs end the run excluded (leftover).
		h.stop(leaveRefused, frontier.StopPrivate, frontier.ReasonPrivateAddress.String(), time.Time{})
		h.stats.Robots = "refused: private address"
		sc.log.Info("host refused: private address", "host", h.key)
		return
	}
	rb, how, fresh, err := ch.Settle(sc.robots, h.key, h.robotsCopy, sc.cfg.RobotsTTL, now)
	if err != nil {
		sc.log.Warn("cannot cache robots.txt", "host", h.key, "err", err)
	}
	if fresh != nil {
		h.robotsCopy = fresh
	}
	if rb != nil {
		sc.useRobots(h, rb, how)
		return
	}
	// Until robots.txt is known every request to the host is a robots.txt
	// fetch, so h.requests counts the attempts.
	if h.held() { // it refused too many connections (refusals)
		h.stats.Robots = how + ": URLs wait for the next run"
		return
	}
	if h.requests >= sc.cfg.MaxAttempts {
		h.stop(leaveDeferred, frontier.StopRobots, how+": URLs wait for the next run", time.Time{})
		h.stats.Robots = h.hold.reason
		sc.log.Info("robots.txt unreachable: host left for the next run", "host", h.key, "status", how, "attempts", h.requests)
		return
	}
	base := sc.cfg.RobotsRetry
	if base <= 0 {
		base = 5 * time.Second
	}
	limit := 5 * time.Minute
	if ch.Reason == frontier.ReasonRefused {
		limit = refusedWait // maxRefused tries end within a minute
	}
	h.robotsWait = pace.Backoff(h.robotsWait, base, max(base, limit), sc.cfg.Rand)
	h.robotsRetryAt = now.Add(h.robotsWait)
	h.stats.MarkHold(report.HoldMarkRobotsRetry, sc.start, now, h.robotsWait)
	h.stats.Robots = fmt.Sprintf("%s: host waits, retry in %s", how, report.ShortDuration(h.robotsWait))
	sc.log.Info("robots.txt unreachable: host waits", "host", h.key, "status", how, "retry_in_s", report.Seconds(h.robotsWait))
}

// useRobots applies a host's robots.txt: its rules and its published floors.
func (sc *scheduler) useRobots(h *hostRun, rb *robots.Robots, how string) {
	h.rb, h.robotsRetryAt = rb, time.Time{}
	sc.cfg.Usage.SetRobots(h.key, rb)
	g := rb.Group(sc.agent)
	switch rb.Access {
	case robots.Parsed:
		h.stats.Robots = "parsed (" + how + ")"
	case robots.AllowAll:
		h.stats.Robots = "no restrictions (" + how + ")"
	default:
		h.stats.Robots = how
	}
	sc.pacer.SetNameFloor(h.pace(), h.key, g.CrawlDelay, pace.FloorCrawlDelay)
	sc.pacer.SetNameFloor(h.pace(), h.key, g.RequestRate.Interval(), pace.FloorRequestRate)
	if sc.cfg.MaxCrawlDelay > 0 && g.CrawlDelay > sc.cfg.MaxCrawlDelay {
		h.stop(leaveDeferred, frontier.StopCrawlDelay, fmt.Sprintf("Crawl-delay %s over --max-crawl-delay %s", g.CrawlDelay, sc.cfg.MaxCrawlDelay), time.Time{})
		sc.log.Info("host skipped", "host", h.key, "reason", h.hold.reason)
	}
	sc.maps.robotsSitemaps(h, sc.clock.Now())
	sc.ledger.addListed(sc.maps.take(), sc.hosts, nil)
}
