package crawl

import (
	"context"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/urls"
)

// dispatch starts every request that may start now, serving ready hosts
// round-robin, and returns when the next host becomes ready (zero if none
// is waiting on time).
func (sc *scheduler) dispatch(ctx context.Context, now time.Time) (time.Time, error) {
	var wake time.Time
	soonest := func(t time.Time) { wake = earlier(wake, t) }
	// One pass over the ring from where the last started request left
	// it; the next pass starts after the last host served in this one.
	s := sc.hosts
	if sc.work.n < sc.cfg.Concurrency { // a pass that may start a request: a rule added meanwhile applies
		if err := sc.excl.Refresh(); err != nil {
			return wake, err
		}
	}
	n, first := len(s.ring), s.next
	for i := 0; i < n && sc.work.n < sc.cfg.Concurrency && sc.stopped == ""; i++ {
		h := s.byKey[s.ring[(first+i)%n]]
		if why := sc.excl.Host(h.key); why != "" && !h.held() { // no request of any kind, robots.txt included
			h.stop(leaveRefused, frontier.StopOperator, why.String(), time.Time{})
		}
		if h.held() || !h.hasWork() {
			sc.hosts.release(h, now)
			continue
		}
		if h.grp.inflight >= sc.cfg.PerHost {
			continue
		}
		// Budgets first: a spent budget stops at once, not when the
		// host's pace would next allow a request.
		if name := sc.budget.spent(); name != "" {
			sc.stop(frontier.RunBudget, name)
			continue
		}
		if sc.budget.hostSpent(h.requests) {
			h.stop(leaveResume, frontier.StopBudget, frontier.BudgetMaxPerHost.String()+" budget", time.Time{})
			continue
		}
		if at, ok := sc.readyAt(h, now); !ok {
			soonest(at)
			continue
		}
		if h.answeredIn > sc.ledger.gen { // its last answer is written first (groupWait)
			if err := sc.flush(); err != nil {
				return wake, err
			}
		}
		at, served, err := sc.serve(ctx, h, now)
		if err != nil {
			return wake, err
		}
		if served {
			s.next = (first + i + 1) % n
		}
		soonest(at)
	}
	return wake, nil
}

// readyAt reports whether h may get a request at now; when it may not, it
// returns when it may (zero: not on time, or not this run).
func (sc *scheduler) readyAt(h *hostRun, now time.Time) (time.Time, bool) {
	switch {
	case h.robotsNext != nil:
		// A robots.txt redirect waits on its own host's pace.
		if ready := sc.pacer.Ready(sc.hosts.groups.Key(urls.Host(h.robotsNext)), now); now.Before(ready) {
			return ready, false
		}
		return time.Time{}, true
	case h.rb == nil && h.robotsBusy:
		return time.Time{}, false
	case !h.robotsRetryAt.IsZero() && now.Before(h.robotsRetryAt):
		return h.robotsRetryAt, false
	case len(h.buf) == 0 && now.Before(h.nextAt):
		// Held by a Retry-After of an earlier run, kept in the frontier.
		if sc.hosts.deferral(h, now, h.nextAt, causeEarlierRun) {
			return time.Time{}, false
		}
		return h.nextAt, false
	}
	if ready := sc.pacer.Ready(h.pace(), now); now.Before(ready) {
		// Held by the pace, or by a Retry-After of an earlier run kept in
		// the host's state.
		if sc.hosts.deferral(h, now, ready, causeEarlierRun) {
			return time.Time{}, false
		}
		if h.waitingSince.IsZero() {
			h.waitingSince = now
		}
		return ready, false
	}
	// The claim is the request's start: stamp it with the time it is
	// made, not the time this pass began (results were recorded since).
	wait, ok, err := sc.hosts.claim(h, sc.clock.Now(), sc.ledger)
	if err != nil {
		sc.fatal = err
		sc.stop(frontier.RunError, "")
	}
	return wait, ok
}

// serve starts the next request to a ready host: its robots.txt when not
// yet known, else its next entry that robots.txt allows. It reports
// whether the host was served (the ring moves on past it) and when the
// host could take another request.
func (sc *scheduler) serve(ctx context.Context, h *hostRun, now time.Time) (time.Time, bool, error) {
	served := false
	if h.robotsNext != nil {
		sc.robotsHop(ctx, h, sc.clock.Now())
		return time.Time{}, true, nil
	}
	if h.rb == nil {
		ok, err := sc.hosts.fill(h, now)
		if err != nil || !ok {
			if err == nil && h.queued > 0 {
				// None due, or other processes took them: look again.
				return h.nextAt, false, nil
			}
			return time.Time{}, false, err
		}
		if err := sc.startRobots(ctx, h, now); err != nil {
			return time.Time{}, false, err
		}
		served = true
		if h.rb == nil || h.held() { // a cached copy may hold the host
			return time.Time{}, served, nil
		}
	}
	e, ok, err := sc.nextEntry(h, now)
	if err != nil {
		return time.Time{}, served, err
	}
	if !ok {
		if h.queued > 0 {
			return h.nextAt, served, nil
		}
		return time.Time{}, served, nil
	}
	// The pace counts from when the request starts: the clock is read
	// again, since recording results and taking entries took time since
	// this pass began and a stale start would shorten the next gap.
	now = sc.clock.Now()
	sc.startFetch(ctx, h, e, now)
	if h.grp.inflight < sc.cfg.PerHost && h.hasWork() {
		// Room for another request to this host once its pace allows.
		return sc.pacer.Ready(h.pace(), now), true, nil
	}
	return time.Time{}, true, nil
}

// nextEntry returns the host's next entry that robots.txt allows; the
// disallowed ones it meets are recorded as excluded on the way.
func (sc *scheduler) nextEntry(h *hostRun, now time.Time) (frontier.Entry, bool, error) {
	for {
		if ok, err := sc.hosts.fill(h, now); !ok || err != nil {
			return frontier.Entry{}, false, err
		}
		e := h.buf[0]
		h.buf = h.buf[1:]
		u, err := urls.Parse(e.URL)
		if err != nil {
			sc.ledger.finish(&e, frontier.Dead, frontier.ReasonBadURL)
			continue
		}
		if why := sc.cfg.Usage.Before(h.key, u, sc.excl.URL(e.URL)); why != "" {
			sc.out.Refused(&e, why) // a body an earlier run kept goes
			sc.ledger.finish(&e, frontier.Excluded, why)
			sc.maps.excluded(e)
			continue
		}
		d := h.rb.Test(sc.agent, requestTarget(u))
		if !d.Allowed {
			h.stats.Excluded++
			sc.ledger.finish(&e, frontier.Excluded, frontier.ReasonRobots)
			sc.log.Debug("excluded by robots.txt", "url", e.URL, "rule", d.Rule, "line", d.RuleLine)
			sc.maps.excluded(e)
			continue
		}
		if sc.maps.unchanged(e, sc.out.Has) {
			e.Revisit = sc.cfg.Revisit.Observe(e, 304, "", sc.clock.Now()) // as a 304 would
			sc.ledger.finish(&e, frontier.NotModified, frontier.ReasonSitemapUnchanged)
			continue
		}
		return e, true, nil
	}
}

// requestTarget is the path and query a request for u sends.
func requestTarget(u interface{ RequestURI() string }) string { return u.RequestURI() }
