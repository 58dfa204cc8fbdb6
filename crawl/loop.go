package crawl

import (
	"context"
	"fmt"
	"time"

	"github.com/polite-crawler/polite/pace"
	"github.com/polite-crawler/polite/robots"
	"github.com/polite-crawler/polite/store"
)

// takeBatch is how many eligible entries of a host are taken from the
// frontier at once.
const takeBatch = 16

// hostRun is one host's state during a run. Only the loop goroutine
// touches it.
type hostRun struct {
	key    string
	stats  *HostStats
	queued int       // queued entries as last known
	nextAt time.Time // earliest eligible time of those
	buf    []store.Entry

	inflight int
	requests int

	rb            *robots.Robots // nil until known
	robotsBusy    bool
	robotsRetryAt time.Time
	robotsWait    time.Duration
	robotsCopy    *store.RobotsCopy // cached copy, possibly stale

	skip         string    // why the host gets no more requests this run
	budgetSkip   bool      // skipped by --max-per-host or the run's end: its URLs stay queued, to resume
	deferUntil   time.Time // a Retry-After (or exhausted quota) holds the host until then, across runs
	waitingSince time.Time // when it last had work but had to wait
	backingOff   bool
}

func (h *hostRun) hasWork() bool { return len(h.buf) > 0 || h.queued > 0 }

func (h *hostRun) stopped() string {
	switch {
	case h.skip != "":
		return h.skip
	case h.hasWork():
		return "run ended with URLs waiting"
	}
	return "done"
}

// host returns the run state of a host, restoring its pace state from the
// database the first time it is seen.
func (c *crawler) host(key string) *hostRun {
	if h := c.hosts[key]; h != nil {
		return h
	}
	now := c.clock.Now()
	h := &hostRun{key: key, stats: &HostStats{Host: key}}
	if st, ok, err := c.db.Load(key); err == nil && ok {
		if note := c.pacer.Restore(st, now); note != "" {
			c.log.Warn("stored hold cut", "host", key, "note", note)
		}
		h.stats.StoredStartS = secs(st.Delay)
	}
	if d, ok := c.cfg.FloorHosts[key]; ok {
		c.pacer.SetFloor(key, d, pace.FloorHost)
	}
	h.stats.DelayStartS = secs(c.pacer.Delay(key, now))
	c.hosts[key] = h
	c.ring = append(c.ring, key)
	return h
}

// paceSaveEvery is how often a running crawl writes every host's pace
// state, so that a crawl killed without warning keeps what it learned
// (raised delays are written at once anyway).
const paceSaveEvery = 2 * time.Second

// loop dispatches requests until the frontier has nothing eligible left, a
// budget binds or ctx is cancelled; then it lets in-flight requests finish
// for up to cfg.Grace and cuts the rest.
func (c *crawler) loop(ctx context.Context) error {
	fetchCtx, cancelFetch := context.WithCancel(context.Background())
	defer cancelFetch()
	var deadline time.Time
	if c.cfg.MaxDuration > 0 {
		deadline = c.start.Add(c.cfg.MaxDuration)
	}
	lastProgress, lastSave := time.Time{}, c.start
	stopping := false
	var graceC <-chan time.Time
	for {
		now := c.clock.Now()
		if !stopping {
			switch {
			case ctx.Err() != nil:
				c.stop("interrupted", "")
			case !deadline.IsZero() && !now.Before(deadline):
				c.stop("budget", "max-duration")
			case c.fatal != nil:
				c.stop("error", "")
			}
			if c.stopReason != "" {
				stopping = true
				graceTimer := c.clock.NewTimer(c.cfg.Grace)
				defer graceTimer.Stop()
				graceC = graceTimer.C()
			}
		}
		// Commit what the last results decided before anything new is
		// taken: a crawl killed now refetches only what was in flight.
		if err := c.flush(); err != nil {
			return err
		}
		if c.needHosts && !stopping {
			if err := c.refreshHosts(); err != nil {
				return err
			}
		}
		var wake time.Time
		if !stopping {
			var err error
			if wake, err = c.dispatch(fetchCtx, now, deadline); err != nil {
				return err
			}
		}
		if err := c.flush(); err != nil {
			return err
		}
		if now.Sub(lastSave) >= paceSaveEvery {
			c.savePace()
			lastSave = now
		}
		if c.cfg.Progress != nil && now.Sub(lastProgress) >= 200*time.Millisecond {
			c.cfg.Progress(c.progress(now))
			lastProgress = now
		}
		if c.inflight == 0 && (stopping || (wake.IsZero() && !c.needHosts && c.stopReason == "")) {
			if stopping || c.stopReason != "" {
				break
			}
			// Nothing eligible and nothing in flight: make sure the
			// frontier agrees before ending.
			if err := c.refreshHosts(); err != nil {
				return err
			}
			if !c.anyWork() {
				break
			}
			continue
		}
		if c.stopReason != "" && !stopping {
			continue
		}
		c.wait(ctx, now, wake, deadline, stopping, graceC, cancelFetch)
	}
	c.flush()
	if ctx.Err() != nil {
		if cause := context.Cause(ctx); cause != nil && cause != context.Canceled {
			return cause
		}
		return &Interrupted{Signal: "cancel", Code: 130}
	}
	return c.fatal
}

// wait blocks until a result comes in, the next host is ready, the run's
// deadline passes, ctx is cancelled or, when stopping, the grace period
// ends (then in-flight requests are cut).
func (c *crawler) wait(ctx context.Context, now, wake, deadline time.Time, stopping bool, graceC <-chan time.Time, cancelFetch func()) {
	var timerC <-chan time.Time
	if !stopping {
		until := wake
		if !deadline.IsZero() && (until.IsZero() || deadline.Before(until)) {
			until = deadline // a hard stop even while every worker is busy
		}
		if !until.IsZero() {
			t := c.clock.NewTimer(max(until.Sub(now), time.Millisecond))
			defer t.Stop()
			timerC = t.C()
		}
	}
	done := ctx.Done()
	if stopping {
		done = nil // already stopping: wait for in-flight requests or the grace
	}
	select {
	case r := <-c.results:
		c.handle(r)
		for {
			select {
			case r := <-c.results:
				c.handle(r)
			default:
				return
			}
		}
	case <-timerC:
	case <-done:
	case <-graceC:
		cancelFetch()
	}
}

// savePace writes every host's pace state.
func (c *crawler) savePace() {
	if err := c.db.SaveAll(c.learned()); err != nil {
		c.log.Warn("cannot save pace state", "err", err)
	}
}

// learned returns the pace states worth keeping: of the hosts polite sent
// a request to, or knew from an earlier run. A host it never contacted (its
// address refused, a budget spent first) has taught nothing.
func (c *crawler) learned() []pace.State {
	var sts []pace.State
	for _, st := range c.pacer.States() {
		if h := c.hosts[st.Host]; h == nil || (h.requests > 0 && h.skip != "private-address") || h.stats.StoredStartS > 0 {
			sts = append(sts, st)
		}
	}
	return sts
}

// stop ends dispatching for the run.
func (c *crawler) stop(reason, budget string) {
	if c.stopReason != "" {
		return
	}
	c.stopReason = reason
	if budget != "" {
		c.stopReason = "stopped by " + budget
		c.budgets = append(c.budgets, budget)
		c.log.Info("budget reached", "budget", budget)
	}
}

func (c *crawler) anyWork() bool {
	for _, h := range c.hosts {
		if h.hasWork() && h.skip == "" {
			return true
		}
	}
	return false
}

// refreshHosts reloads which hosts have queued entries.
func (c *crawler) refreshHosts() error {
	qs, err := c.db.QueuedHosts(c.cfg.Job)
	if err != nil {
		return err
	}
	for _, h := range c.hosts {
		h.queued = 0
	}
	for _, q := range qs {
		h := c.host(q.Host)
		h.queued, h.nextAt = q.Queued, q.NextAt
	}
	c.needHosts = false
	return nil
}

// dispatch starts every request that may start now, serving ready hosts
// round-robin, and returns when the next host becomes ready (zero if none
// is waiting on time).
func (c *crawler) dispatch(ctx context.Context, now, deadline time.Time) (time.Time, error) {
	var wake time.Time
	soonest := func(t time.Time) {
		if wake.IsZero() || t.Before(wake) {
			wake = t
		}
	}
	// One pass over the ring from where the last started request left
	// it; the next pass starts after the last host served in this one.
	n, first := len(c.ring), c.ringNext
	for i := 0; i < n && c.inflight < c.cfg.Concurrency && c.stopReason == ""; i++ {
		key := c.ring[(first+i)%n]
		h := c.hosts[key]
		if h.skip != "" || h.inflight >= c.cfg.PerHost || !h.hasWork() {
			continue
		}
		// Budgets first: a spent budget stops at once, not when the
		// host's pace would next allow a request.
		if !c.budgetAllows(h) {
			continue
		}
		if h.rb == nil && h.robotsBusy {
			continue
		}
		if !h.robotsRetryAt.IsZero() && now.Before(h.robotsRetryAt) {
			soonest(h.robotsRetryAt)
			continue
		}
		if len(h.buf) == 0 && now.Before(h.nextAt) {
			if h.nextAt.Sub(now) > c.cfg.Pace.MaxRetryAfter {
				// Held by a Retry-After of an earlier run: not worth
				// waiting for; its URLs wait for a later run.
				h.skip = "deferred: Retry-After until " + h.nextAt.UTC().Format(time.RFC3339)
				c.log.Info("host deferred to a later run", "host", h.key, "until", h.nextAt.UTC().Format(time.RFC3339))
				continue
			}
			soonest(h.nextAt)
			continue
		}
		if ready := c.pacer.Ready(key, now); now.Before(ready) {
			if ready.Sub(now) > c.cfg.Pace.MaxRetryAfter {
				// Held by a Retry-After longer than polite waits (an
				// earlier run's, kept in the host's state).
				h.skip = "deferred: Retry-After until " + ready.UTC().Format(time.RFC3339)
				c.log.Info("host deferred to a later run", "host", h.key, "until", ready.UTC().Format(time.RFC3339))
				continue
			}
			if h.waitingSince.IsZero() {
				h.waitingSince = now
			}
			soonest(ready)
			continue
		}
		if h.rb == nil {
			ok, err := c.fill(h, now)
			if err != nil {
				return wake, err
			}
			if !ok {
				continue
			}
			if err := c.startRobots(ctx, h, now); err != nil {
				return wake, err
			}
			c.ringNext = (first + i + 1) % n
			if h.rb == nil || h.skip != "" { // a cached copy may skip the host
				continue
			}
		}
		e, ok, err := c.nextEntry(h, now)
		if err != nil {
			return wake, err
		}
		if !ok {
			if h.queued > 0 {
				soonest(h.nextAt)
			}
			continue
		}
		c.startFetch(ctx, h, e, now)
		c.ringNext = (first + i + 1) % n
		if h.inflight < c.cfg.PerHost && h.hasWork() {
			// Room for another request to this host once its pace allows.
			soonest(c.pacer.Ready(key, now))
		}
	}
	return wake, nil
}

// budgetAllows checks the request budgets before a request to h.
func (c *crawler) budgetAllows(h *hostRun) bool {
	switch {
	case c.cfg.MaxRequests > 0 && c.requests >= c.cfg.MaxRequests:
		c.stop("budget", "max-requests")
		return false
	case c.cfg.MaxBytes > 0 && c.bytes >= c.cfg.MaxBytes:
		c.stop("budget", "max-bytes")
		return false
	case c.cfg.MaxPerHost > 0 && h.requests >= c.cfg.MaxPerHost:
		h.skip, h.budgetSkip = "max-per-host budget", true
		if !contains(c.budgets, "max-per-host") {
			c.budgets = append(c.budgets, "max-per-host")
		}
		return false
	}
	return true
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// nextEntry returns the host's next entry that robots.txt allows; the
// disallowed ones it meets are recorded as excluded on the way.
func (c *crawler) nextEntry(h *hostRun, now time.Time) (store.Entry, bool, error) {
	for {
		if ok, err := c.fill(h, now); !ok || err != nil {
			return store.Entry{}, false, err
		}
		e := h.buf[0]
		h.buf = h.buf[1:]
		u, err := normalizeURL(e.URL)
		if err != nil {
			c.finishEntry(h, &e, store.Dead, "bad-url")
			continue
		}
		d := h.rb.Test(c.agent, requestTarget(u))
		if !d.Allowed {
			h.stats.Excluded++
			c.finishEntry(h, &e, store.Excluded, "robots")
			c.log.Debug("excluded by robots.txt", "url", e.URL, "rule", d.Rule, "line", d.RuleLine)
			continue
		}
		return e, true, nil
	}
}

// fill takes the host's next eligible entries from the frontier when its
// buffer is empty; it reports whether the buffer holds any.
func (c *crawler) fill(h *hostRun, now time.Time) (bool, error) {
	if len(h.buf) > 0 {
		return true, nil
	}
	if h.queued <= 0 {
		return false, nil
	}
	es, err := c.db.Take(c.cfg.Job, h.key, now, takeBatch)
	if err != nil {
		return false, err
	}
	if len(es) == 0 {
		// Nothing eligible yet: ask the frontier when.
		c.needHosts = true
		h.nextAt = now.Add(time.Second)
		return false, nil
	}
	h.queued -= len(es)
	h.buf = es
	return true, nil
}

// requestTarget is the path and query a request for u sends.
func requestTarget(u interface{ RequestURI() string }) string { return u.RequestURI() }

// progress is a snapshot for the progress display.
func (c *crawler) progress(now time.Time) Progress {
	p := Progress{Requests: c.requests, Throttled: c.throttled, Elapsed: now.Sub(c.start)}
	for _, n := range c.counts {
		p.Done += n
	}
	p.Total = p.Done + c.inflight
	for _, h := range c.hosts {
		p.Total += h.queued + len(h.buf)
		if h.hasWork() && h.skip == "" {
			p.HostsActive++
			if h.backingOff {
				p.HostsBackingOff++
			}
		}
	}
	if s := p.Elapsed.Seconds(); s >= 1 { // a rate over milliseconds says nothing
		p.Rate = float64(c.requests) / s
	}
	return p
}

func fmtDur(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%dms", d.Milliseconds())
	}
	return d.Round(10 * time.Millisecond).String()
}
