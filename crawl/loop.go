package crawl

import (
	"context"
	"fmt"
	"time"
)

// paceSaveEvery is how often a running crawl writes every host's pace
// state, so that a crawl killed without warning keeps what it learned
// (raised delays are written at once anyway).
const paceSaveEvery = 2 * time.Second

// progressEvery is how often the progress display is called.
const progressEvery = 200 * time.Millisecond

// loop dispatches requests until the frontier has nothing eligible left, a
// budget binds or ctx is cancelled; then it lets in-flight requests finish
// for up to cfg.Grace and cuts the rest. It is the one goroutine that
// touches the run's state: workers hand their results back on c.results.
func (c *crawler) loop(ctx context.Context) error {
	fetchCtx, cancelFetch := context.WithCancel(context.Background())
	defer cancelFetch()
	var deadline time.Time
	if c.cfg.MaxDuration > 0 {
		deadline = c.start.Add(c.cfg.MaxDuration)
	}
	t := ticks{lastSave: c.start}
	var graceC <-chan time.Time
	for {
		now := c.clock.Now()
		if graceC == nil && c.stopping(ctx, now, deadline) {
			graceTimer := c.clock.NewTimer(c.cfg.Grace)
			defer graceTimer.Stop()
			graceC = graceTimer.C()
		}
		stopping := graceC != nil
		wake, err := c.step(fetchCtx, now, deadline, stopping)
		if err != nil {
			return err
		}
		c.tick(&t, now)
		if c.inflight == 0 && (stopping || (wake.IsZero() && !c.hosts.stale && c.stopReason == "")) {
			if stopping || c.stopReason != "" {
				break
			}
			// Nothing eligible and nothing in flight: make sure the
			// frontier agrees before ending.
			if err := c.hosts.refresh(now); err != nil {
				return err
			}
			if !c.hosts.anyWork() {
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
		return &Interrupted{Signal: "cancel", Code: ExitInterrupted}
	}
	return c.failure()
}

// stopping reports whether the run stops dispatching at now: interrupted,
// past --max-duration, a fatal error or a budget already bound.
func (c *crawler) stopping(ctx context.Context, now, deadline time.Time) bool {
	switch {
	case ctx.Err() != nil:
		c.stop("interrupted", "")
	case !deadline.IsZero() && !now.Before(deadline):
		c.stop("budget", "max-duration")
	case c.failure() != nil:
		c.stop("error", "")
	}
	return c.stopReason != ""
}

// step commits what the last results decided, then starts what may start
// now (unless stopping) and commits that too; it returns when the next
// host becomes ready (zero if none is waiting on time).
func (c *crawler) step(ctx context.Context, now, deadline time.Time, stopping bool) (time.Time, error) {
	// Commit what the last results decided before anything new is taken:
	// a crawl killed now refetches only what was in flight.
	if err := c.flush(); err != nil {
		return time.Time{}, err
	}
	var wake time.Time
	if !stopping {
		if c.hosts.stale {
			if err := c.hosts.refresh(now); err != nil {
				return wake, err
			}
		}
		var err error
		if wake, err = c.dispatch(ctx, now); err != nil {
			return wake, err
		}
	}
	return wake, c.flush()
}

// ticks is when the loop last saved pace state and reported progress.
type ticks struct{ lastSave, lastProgress time.Time }

// tick saves every host's pace state and reports progress when they are due.
func (c *crawler) tick(t *ticks, now time.Time) {
	if now.Sub(t.lastSave) >= paceSaveEvery {
		if err := c.hosts.save(); err != nil {
			c.log.Warn("cannot save pace state", "err", err)
		}
		t.lastSave = now
	}
	if c.cfg.Progress != nil && now.Sub(t.lastProgress) >= progressEvery {
		c.cfg.Progress(c.progress(now))
		t.lastProgress = now
	}
}

// flush commits the ledger; new entries make the hosts' queues stale.
func (c *crawler) flush() error {
	added, err := c.ledger.flush(c.db)
	if added {
		c.hosts.stale = true
	}
	return err
}

// failure is the error that stops the run: a body or the manifest not written.
func (c *crawler) failure() error {
	if c.fatal != nil {
		return c.fatal
	}
	return c.ledger.err
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

// stop ends dispatching for the run; a budget that stops it counts as bound.
func (c *crawler) stop(reason, budget string) {
	if c.stopReason != "" {
		return
	}
	c.stopReason = reason
	if budget != "" {
		c.stopReason = "stopped by " + budget
		c.budget.bind(budget)
		c.log.Info("budget reached", "budget", budget)
	}
}

// progress is a snapshot for the progress display.
func (c *crawler) progress(now time.Time) Progress {
	p := Progress{Requests: c.budget.requests, Throttled: c.throttled, Elapsed: now.Sub(c.start)}
	for _, n := range c.ledger.counts {
		p.Done += n
	}
	p.Total = p.Done + c.inflight
	for _, h := range c.hosts.byKey {
		p.Total += h.queued + len(h.buf)
		if h.active() {
			p.HostsActive++
			if h.backingOff {
				p.HostsBackingOff++
			}
		}
	}
	if s := p.Elapsed.Seconds(); s >= 1 { // a rate over milliseconds says nothing
		p.Rate = float64(c.budget.requests) / s
	}
	return p
}

func fmtDur(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%dms", d.Milliseconds())
	}
	return d.Round(10 * time.Millisecond).String()
}
