package clock

import (
	"sort"
	"sync"
	"time"
)

// Fake is a Clock for tests: time stands still until the test advances
// it (Advance, AdvanceToNext), or until Auto finds the run waiting on time
// alone and moves it to the next timer at once. Its zero value is not
// usable: get one from NewFake. It is safe for concurrent use.
type Fake struct {
	mu       sync.Mutex
	now      time.Time
	timers   []*timer // pending, in no order
	activity uint64   // calls so far: Auto waits for a quiet spell
	inflight int      // requests in flight, as the run last said
	watched  bool     // a run's loop says when it waits (Waiting)
	waiting  bool     // the loop waits, as it last said
}

// NewFake returns a clock standing at t0.
func NewFake(t0 time.Time) *Fake { return &Fake{now: t0} }

var _ Clock = (*Fake)(nil)

// Now returns the clock's time.
func (c *Fake) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.activity++
	return c.now
}

// Since returns how much fake time passed since t.
func (c *Fake) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

// NewTimer returns a timer that fires once the clock reaches now+d; a
// timer of d <= 0 has fired already.
func (c *Fake) NewTimer(d time.Duration) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.activity++
	t := &timer{c: c, when: c.now.Add(d), ch: make(chan time.Time, 1)}
	if d <= 0 {
		t.ch <- c.now
		return t
	}
	c.timers = append(c.timers, t)
	return t
}

// Advance moves the clock d ahead, firing every timer due on the way, in
// the order of their times.
func (c *Fake) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.activity++
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
	c.activity++
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

// InFlight is told by a crawl how many requests it has in flight; Auto
// lets fake time pass during them only when they are slow.
func (c *Fake) InFlight(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.activity++
	c.inflight = n
}

// Waiting is told by a crawl's loop when it starts and stops waiting (on
// a result, a timer or a signal). Once a loop has said so, Auto moves the
// clock only while the loop waits: a loop that is busy, however slowly
// on a loaded machine, never sees time jump under it.
func (c *Fake) Waiting(w bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.activity++
	c.watched, c.waiting = true, w
}

// Pending returns how many timers wait to fire.
func (c *Fake) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// Auto moves the clock to the next pending timer whenever nobody has used
// it for quiet (real time) and the run has no request in flight: then
// whoever waits, waits on time alone. A request in flight for slow (real
// time, 200 x quiet: long enough that a loaded machine, not the
// server, is never taken for a slow server) lets fake time pass too, so
// that a slow server meets a --max-duration or a grace period as it would
// for real. Once a run's loop has said when it waits (Waiting), Auto moves
// the clock only while it does. The returned func stops it; call it before
// the test ends.
func (c *Fake) Auto(quiet time.Duration) (stop func()) {
	return c.AutoSlow(quiet, 200*quiet)
}

// AutoSlow is Auto with the real time after which a request in flight
// counts as slow given: a test whose server holds a request for seconds
// of wall time on purpose lets fake time pass sooner.
func (c *Fake) AutoSlow(quiet, slow time.Duration) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(quiet)
		defer tick.Stop()
		var last uint64
		var quietFor time.Duration
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			c.mu.Lock()
			if c.activity != last {
				last, quietFor = c.activity, 0
				c.mu.Unlock()
				continue
			}
			quietFor += quiet
			busy := c.inflight > 0
			if (busy && quietFor < slow) || (c.watched && !c.waiting) {
				c.mu.Unlock()
				continue
			}
			// Checked and moved under one lock: the loop cannot stop
			// waiting in between.
			c.advanceToNext()
			last, quietFor = c.activity, 0
			c.mu.Unlock()
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

// advanceTo moves the clock to at, firing the timers due by then. The
// caller holds c.mu.
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
		t.ch <- t.when // capacity 1, and a timer fires once
	}
	clear(c.timers[n:])
	c.timers = c.timers[:n]
	c.now = later(c.now, at)
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

type timer struct {
	c    *Fake
	when time.Time
	ch   chan time.Time
}

func (t *timer) C() <-chan time.Time { return t.ch }

// Stop keeps the timer from firing; it reports whether it was pending.
func (t *timer) Stop() bool {
	c := t.c
	c.mu.Lock()
	defer c.mu.Unlock()
	c.activity++
	for i, p := range c.timers {
		if p == t {
			c.timers = append(c.timers[:i], c.timers[i+1:]...)
			return true
		}
	}
	return false
}
