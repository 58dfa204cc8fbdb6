package crawl

import (
	"context"
	"time"

	"github.com/polite-crawler/polite/crawl/clock"
	"github.com/polite-crawler/polite/crawl/frontier"
)

// paceSaveEvery is how often a running crawl writes every host's pace
// state, so that a crawl killed without warning keeps what it learned
// (raised delays are written at once anyway).
const paceSaveEvery = 2 * time.Second

// progressEvery is how often the progress display is called.
const progressEvery = 200 * time.Millisecond

// runLoop drives a run's scheduler: it steps, waits for results, timers
// and signals, saves pace states and reports progress on its ticks, and
// decides when the run is over. It holds the loop's own state (the
// deadline, the grace period, the ticks, the fetches' context); the run's
// state is the scheduler's, changed only through its methods, and only
// here, in the one goroutine the loop runs in.
type runLoop struct {
	sc          *scheduler
	ctx         context.Context // the caller's: cancelled by a signal
	fetchCtx    context.Context // the requests': cut when the grace period ends
	cancelFetch func()
	deadline    time.Time        // --max-duration's end; zero: none
	graceC      <-chan time.Time // fires when the grace period ends; nil until stopping
	ticks
}

// run dispatches requests until the frontier has nothing eligible left, a
// budget binds or ctx is cancelled; then it lets in-flight requests finish
// for up to cfg.Grace and cuts the rest.
func (sc *scheduler) run(ctx context.Context) error {
	l := &runLoop{sc: sc, ctx: ctx, ticks: ticks{lastSave: sc.start}}
	l.fetchCtx, l.cancelFetch = context.WithCancel(context.Background())
	defer l.cancelFetch()
	if sc.cfg.MaxDuration > 0 {
		l.deadline = sc.start.Add(sc.cfg.MaxDuration)
	}
	for {
		now := sc.clock.Now()
		if l.graceC == nil && l.stopping(now) {
			graceTimer := sc.clock.NewTimer(sc.cfg.Grace)
			defer graceTimer.Stop()
			l.graceC = graceTimer.C()
		}
		stopping := l.graceC != nil
		wake, err := l.step(now, stopping)
		if err != nil {
			return err
		}
		l.tick(now)
		if sc.work.n == 0 && (stopping || (wake.IsZero() && !sc.hosts.stale && sc.stopped == "")) {
			if stopping || sc.stopped != "" {
				break
			}
			// Nothing eligible and nothing in flight: make sure the
			// frontier agrees before ending, read after the others' work
			// (what they found is in by the time they settle theirs).
			if wake, err = l.othersWork(now); err != nil {
				return err
			}
			if err := sc.hosts.refresh(now); err != nil {
				return err
			}
			if !sc.hosts.anyWork() {
				if wake.IsZero() {
					break
				}
				l.wait(now, wake, false)
				sc.hosts.stale = true
			}
			continue
		}
		if sc.stopped != "" && !stopping {
			continue
		}
		l.wait(now, wake, stopping)
	}
	sc.flush()
	if ctx.Err() != nil {
		if cause := context.Cause(ctx); cause != nil && cause != context.Canceled {
			return cause
		}
		return &Interrupted{Signal: "cancel", Code: ExitInterrupted}
	}
	return sc.failure()
}

// othersWork returns when to look at the frontier again while other
// processes sharing the database hold entries of the job in flight (zero:
// none, or no Shared role, and the run may end).
func (l *runLoop) othersWork(now time.Time) (time.Time, error) {
	sc := l.sc
	if sc.shared == nil {
		return time.Time{}, nil
	}
	n, next, err := sc.shared.Pending(sc.cfg.Job, now)
	if err != nil || n == 0 {
		return time.Time{}, err
	}
	return next, nil // or sooner, woken by Config.Wake
}

// stopping reports whether the run stops dispatching at now: interrupted,
// past --max-duration, a fatal error or a budget already bound.
func (l *runLoop) stopping(now time.Time) bool {
	sc := l.sc
	switch {
	case l.ctx.Err() != nil:
		sc.stop(frontier.RunInterrupted, "")
	case !l.deadline.IsZero() && !now.Before(l.deadline):
		sc.stop(frontier.RunBudget, frontier.BudgetMaxDuration)
	case sc.failure() != nil:
		sc.stop(frontier.RunError, "")
	}
	return sc.stopped != ""
}

// step commits the ledger when it is due (groupWait), then starts what may
// start now (unless stopping); it returns when the next host becomes ready,
// or the ledger or the hosts' queues are due (zero if none is waiting on time).
func (l *runLoop) step(now time.Time, stopping bool) (time.Time, error) {
	sc := l.sc
	if err := sc.flushIfDue(now, stopping); err != nil {
		return time.Time{}, err
	}
	var wake time.Time
	if !stopping {
		// The queues are read again when new entries went in, at most
		// every refreshEvery while requests are in flight (and their
		// answers wake the loop): each read counts every queued entry.
		if sc.hosts.stale && (sc.work.n == 0 || !now.Before(sc.hosts.refreshedAt.Add(refreshEvery))) {
			if err := sc.hosts.refresh(now); err != nil {
				return wake, err
			}
		}
		var err error
		if wake, err = sc.dispatch(l.fetchCtx, now); err != nil {
			return wake, err
		}
	}
	if err := sc.flushIfDue(sc.clock.Now(), stopping); err != nil {
		return wake, err
	}
	if sc.ledger.pending() > 0 {
		wake = earlier(wake, sc.ledger.flushedAt.Add(groupWait)) // what waits is written on time
	}
	if sc.hosts.stale {
		wake = earlier(wake, sc.hosts.refreshedAt.Add(refreshEvery))
	}
	return wake, nil
}

// flushIfDue commits the ledger when it is due (ledger.due).
func (sc *scheduler) flushIfDue(now time.Time, stopping bool) error {
	if !sc.ledger.due(now, stopping || sc.work.n == 0) {
		return nil
	}
	return sc.flush()
}

// ticks is when the loop last saved pace state and reported progress.
type ticks struct{ lastSave, lastProgress time.Time }

// tick saves every host's pace state and reports progress when they are due.
func (l *runLoop) tick(now time.Time) {
	sc := l.sc
	if now.Sub(l.lastSave) >= paceSaveEvery {
		if err := sc.hosts.save(now); err != nil {
			sc.log.Warn("cannot save pace state", "err", err)
		}
		l.lastSave = now
	}
	if sc.cfg.Progress != nil && now.Sub(l.lastProgress) >= progressEvery {
		sc.cfg.Progress(l.progress(now))
		l.lastProgress = now
	}
}

// flush commits the ledger, then robots.txt copies; new entries make queues stale.
func (sc *scheduler) flush() error {
	added, err := sc.ledger.flush(sc.frontier, sc.clock.Now())
	sc.hosts.stale = sc.hosts.stale || added
	if rerr := sc.robots.Flush(); rerr != nil {
		sc.log.Warn("cannot cache robots.txt", "err", rerr)
	}
	return err
}

// failure is the error that stops the run: a body or the manifest not written.
func (sc *scheduler) failure() error {
	if sc.fatal != nil {
		return sc.fatal
	}
	return sc.ledger.err
}

// wait blocks until a result comes in, the next host is ready, the run's
// deadline passes, ctx is cancelled or, when stopping, the grace period
// ends (then in-flight requests are cut).
func (l *runLoop) wait(now, wake time.Time, stopping bool) {
	sc, deadline := l.sc, l.deadline
	var timerC <-chan time.Time
	if !stopping {
		until := earlier(wake, deadline) // a hard stop even while every worker is busy
		if !until.IsZero() {
			// From the clock as it is now, not as it was when this pass
			// began: committing and dispatching took time since, and a
			// timer set from the pass's start would wake that much late,
			// lengthening every gap a host's delay asked for.
			t := sc.clock.NewTimer(max(until.Sub(sc.clock.Now()), time.Millisecond))
			defer t.Stop()
			timerC = t.C()
		}
	}
	done := l.ctx.Done()
	if stopping {
		done = nil // already stopping: wait for in-flight requests or the grace
	}
	// The loop says it waits, and a fake clock may move on, only when
	// nothing that wakes it is ready: time must not run past a signal.
	watch, _ := sc.clock.(clock.WaitWatcher)
	if watch != nil && len(sc.work.results)+len(timerC)+len(l.graceC)+len(sc.cfg.Wake) == 0 && (done == nil || l.ctx.Err() == nil) {
		watch.Waiting(true)
	}
	var r result
	got := false
	select {
	case r = <-sc.work.results:
		got = true
	case <-timerC:
	case <-sc.cfg.Wake: // another process freed a host, or added URLs or a rule
		sc.hosts.stale = true
	case <-done:
	case <-l.graceC:
		l.cancelFetch()
	}
	if watch != nil {
		watch.Waiting(false) // handling what came in is work, not waiting
	}
	if !got {
		return
	}
	sc.handle(r)
	for {
		select {
		case r := <-sc.work.results:
			sc.handle(r)
		default:
			return
		}
	}
}

// stop ends dispatching for the run, for s; a budget that stops it counts
// as bound.
func (sc *scheduler) stop(s frontier.RunStop, budget frontier.Budget) {
	if sc.stopped != "" {
		return
	}
	sc.stopped, sc.stoppedBy = s, budget
	if budget != "" {
		sc.budget.bind(budget)
		sc.log.Info("budget reached", "budget", budget)
	}
}

// progress is a snapshot for the progress display.
func (l *runLoop) progress(now time.Time) Progress {
	sc := l.sc
	p := Progress{Requests: sc.budget.requests, Throttled: sc.throttled, Elapsed: now.Sub(sc.start)}
	for _, n := range sc.ledger.counts {
		p.Done += n
	}
	p.Total = p.Done + sc.work.n
	for _, h := range sc.hosts.byKey {
		p.Total += h.queued + len(h.buf)
		if h.active() {
			p.HostsActive++
			if h.backingOff {
				p.HostsBackingOff++
			}
		}
	}
	if s := p.Elapsed.Seconds(); s >= 1 { // a rate over milliseconds says nothing
		p.Rate = float64(sc.budget.requests) / s
	}
	return p
}
