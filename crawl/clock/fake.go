package clock

import (
	"context"
	"slices"
	"sort"
	"sync"
	"time"
)

// Fake is a Clock for tests: time stands still until the test advances it
// (Advance, AdvanceToNext) or, with Auto, until every goroutine the clock
// knows of waits on it; real time never moves it. The goroutines it knows
// of are a crawl's loop, once the loop has said when it waits (Waiting),
// and those blocked in Hold (a fake request's latency, a Sleep). A
// request in flight that is not held on the clock (a real one over
// loopback) keeps the clock still until its answer has been handled.
//
// Several runs may share one Fake (crawls of one shared store, say): each
// is then given a FakeRun of its own (NewRun), and Auto moves the clock
// only while every run's loop waits and every request in flight of every
// run is held.
//
// Its zero value is not usable: get one from NewFake. It is safe for
// concurrent use.
type Fake struct {
	mu     sync.Mutex
	now    time.Time
	timers []*timer   // pending, in no order
	auto   bool       // Auto is on
	held   int        // goroutines blocked in Hold
	own    FakeRun    // the run told through the Fake's own Waiting and InFlight
	runs   []*FakeRun // the runs of NewRun that have not ended
}

// FakeRun is one of several runs sharing a Fake: a Clock whose loop's
// Waiting and requests' InFlight are its own, so that the Fake moves by
// itself only while all the runs wait on it. Get one from Fake.NewRun,
// and call Done once the run has ended.
type FakeRun struct {
	c        *Fake
	inflight int  // requests in flight, as the run last said
	watched  bool // the run's loop says when it waits (Waiting)
	waiting  bool // the loop waits, as it last said, and nothing woke it since
}

// NewFake returns a clock standing at t0.
func NewFake(t0 time.Time) *Fake {
	c := &Fake{now: t0}
	c.own.c = c
	return c
}

var (
	_ Clock = (*Fake)(nil)
	_ Clock = (*FakeRun)(nil)
)

// Now returns the clock's time.
func (c *Fake) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Since returns how much fake time passed since t.
func (c *Fake) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

// NewTimer returns a timer that fires once the clock reaches now+d; a
// timer of d <= 0 has fired already.
func (c *Fake) NewTimer(d time.Duration) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.newTimer(d, false)
}

// newTimer is NewTimer; held says a goroutine in Hold waits on it. The
// caller holds c.mu.
func (c *Fake) newTimer(d time.Duration, held bool) *timer {
	t := &timer{c: c, when: c.now.Add(d), ch: make(chan time.Time, 1), held: held}
	if !held {
		t.run = &c.own
	}
	if d <= 0 {
		t.ch <- c.now
		return t
	}
	c.timers = append(c.timers, t)
	return t
}

// Hold blocks until the clock has moved d on, or ctx is done; it reports
// whether the whole wait passed. While it blocks, the calling goroutine
// counts as waiting on the clock, so Auto may move it: Hold is how a fake
// request spends its latency and how Sleep waits on a Fake.
func (c *Fake) Hold(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	c.mu.Lock()
	t := c.newTimer(d, true)
	t.ctx = ctx
	c.held++
	c.step()
	c.mu.Unlock()
	select {
	case <-t.ch:
		return true // advanceTo counted the goroutine out
	case <-ctx.Done():
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.remove(t) {
			c.held--
			return false
		}
		// Fired as ctx ended, the wait passed all the same; unless step
		// dropped it for its ended ctx.
		return !t.dropped
	}
}

// Advance moves the clock d ahead, firing every timer due on the way, in
// the order of their times.
func (c *Fake) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.advanceTo(c.now.Add(d))
}

// AdvanceToNext moves the clock to the earliest pending timer and fires
// it (with any others due then); it reports false when none is pending.
func (c *Fake) AdvanceToNext() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.advanceToNext()
}

// advanceToNext is AdvanceToNext; the caller holds c.mu.
func (c *Fake) advanceToNext() bool {
	if len(c.timers) == 0 {
		return false
	}
	next := c.timers[0].when
	for _, t := range c.timers[1:] {
		if t.when.Before(next) {
			next = t.when
		}
	}
	c.advanceTo(later(c.now, next))
	return true
}

// InFlight is told by a crawl how many requests it has in flight: with
// Auto, the clock moves only while each of them is held on it.
func (c *Fake) InFlight(n int) { c.own.InFlight(n) }

// Waiting is told by a crawl's loop when it starts and stops waiting (on
// a result, a timer or a signal). Once a loop has said so, Auto moves the
// clock only while the loop waits: a loop that is busy, however slowly
// on a loaded machine, never sees time jump under it.
func (c *Fake) Waiting(w bool) { c.own.Waiting(w) }

// Pending returns how many timers wait to fire.
func (c *Fake) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// Auto makes the clock move by itself to its next timer whenever every
// goroutine it knows of waits on it (see Fake): the loop waits, each
// request in flight is held, and someone is waiting at all. It moves one
// timer at a time: whoever that timer wakes runs before the clock moves
// again. The returned func turns it off.
func (c *Fake) Auto() (stop func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.auto = true
	c.step()
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.auto = false
	}
}

// step moves the clock to its next timer if Auto is on and every
// goroutine the clock knows of waits on it: each run's loop that says
// when it waits, and each request in flight of every run (held). The
// caller holds c.mu.
func (c *Fake) step() {
	c.dropEnded()
	if !c.auto {
		return
	}
	inflight, watched := 0, false
	for i := -1; i < len(c.runs); i++ {
		r := &c.own
		if i >= 0 {
			r = c.runs[i]
		}
		if r.watched && !r.waiting {
			return
		}
		inflight += r.inflight
		watched = watched || r.watched
	}
	if c.held < inflight || !watched && c.held == 0 {
		return
	}
	c.advanceToNext()
}

// dropEnded counts out the holds whose context has ended: their
// goroutines are about to return, not waiting on the clock, and their
// timers must not move it. The caller holds c.mu.
func (c *Fake) dropEnded() {
	n := 0
	for _, t := range c.timers {
		if t.held && t.ctx != nil && t.ctx.Err() != nil {
			t.dropped = true
			c.held--
			continue
		}
		c.timers[n] = t
		n++
	}
	clear(c.timers[n:])
	c.timers = c.timers[:n]
}

// advanceTo moves the clock to at, firing the timers due by then. A held
// goroutine whose timer fires no longer waits on the clock; any other
// timer may wake its run's loop, which then counts as busy until it says
// it waits again. The caller holds c.mu.
func (c *Fake) advanceTo(at time.Time) {
	sort.Slice(c.timers, func(i, j int) bool { return c.timers[i].when.Before(c.timers[j].when) })
	n := 0
	for _, t := range c.timers {
		if t.when.After(at) {
			c.timers[n] = t
			n++
			continue
		}
		c.now = later(c.now, t.when)
		if t.held {
			c.held--
		} else {
			t.run.waiting = false
		}
		t.ch <- t.when // capacity 1, and a timer fires once
	}
	clear(c.timers[n:])
	c.timers = c.timers[:n]
	c.now = later(c.now, at)
}

// remove takes t off the pending timers; it reports whether t was pending.
// The caller holds c.mu.
func (c *Fake) remove(t *timer) bool {
	for i, p := range c.timers {
		if p == t {
			c.timers = append(c.timers[:i], c.timers[i+1:]...)
			return true
		}
	}
	return false
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

type timer struct {
	c       *Fake
	when    time.Time
	ch      chan time.Time
	held    bool            // a goroutine in Hold waits on it
	run     *FakeRun        // else the run whose loop it may wake
	ctx     context.Context // the Hold's context
	dropped bool            // counted out by dropEnded
}

func (t *timer) C() <-chan time.Time { return t.ch }

// Stop keeps the timer from firing; it reports whether it was pending.
func (t *timer) Stop() bool {
	c := t.c
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.remove(t)
}

// NewRun returns a view of the clock for one more run sharing it; the
// clock then moves by itself only while this run, too, waits on it. The
// run counts as busy until its loop first says it waits.
func (c *Fake) NewRun() *FakeRun {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := &FakeRun{c: c, watched: true}
	c.runs = append(c.runs, r)
	return r
}

// Now returns the clock's time.
func (r *FakeRun) Now() time.Time { return r.c.Now() }

// NewTimer returns a timer of the clock, for the run's loop.
func (r *FakeRun) NewTimer(d time.Duration) Timer {
	r.c.mu.Lock()
	defer r.c.mu.Unlock()
	t := r.c.newTimer(d, false)
	t.run = r
	return t
}

// Hold blocks on the clock, as Fake.Hold.
func (r *FakeRun) Hold(ctx context.Context, d time.Duration) bool { return r.c.Hold(ctx, d) }

// InFlight is told by the run how many requests it has in flight, as
// Fake.InFlight.
func (r *FakeRun) InFlight(n int) {
	r.c.mu.Lock()
	defer r.c.mu.Unlock()
	r.inflight = n
	r.c.step()
}

// Waiting is told by the run's loop when it starts and stops waiting, as
// Fake.Waiting.
func (r *FakeRun) Waiting(w bool) {
	r.c.mu.Lock()
	defer r.c.mu.Unlock()
	r.watched, r.waiting = true, w
	r.c.step()
}

// Done says the run has ended: the clock no longer waits for it.
func (r *FakeRun) Done() {
	c := r.c
	c.mu.Lock()
	defer c.mu.Unlock()
	c.runs = slices.DeleteFunc(c.runs, func(o *FakeRun) bool { return o == r })
	c.step()
}
