// Package clock is the time source of a crawl: the real clock, and Fake,
// the one fake clock its tests use.
package clock

import (
	"context"
	"time"
)

// Clock is the time source of a crawl. Where a Clock is optional, nil
// means Real.
type Clock interface {
	Now() time.Time
	NewTimer(d time.Duration) Timer
}

// Timer is the part of *time.Timer a crawl uses.
type Timer interface {
	C() <-chan time.Time
	Stop() bool
}

// InflightWatcher is an optional part of a Clock: a fake clock learns
// from it how many requests the run has in flight, so that it moves on its
// own only while the run waits on time.
type InflightWatcher interface{ InFlight(n int) }

// WaitWatcher is an optional part of a Clock: the run's loop tells it when
// it starts and stops waiting, so that a fake clock moves on its own only
// while the loop waits, never while it works (however slowly).
type WaitWatcher interface{ Waiting(bool) }

// Real is the wall clock.
type Real struct{}

// Now returns time.Now().
func (Real) Now() time.Time { return time.Now() }

// NewTimer returns a time.Timer behind the Timer interface.
func (Real) NewTimer(d time.Duration) Timer {
	return realTimer{time.NewTimer(d)}
}

type realTimer struct{ t *time.Timer }

func (t realTimer) C() <-chan time.Time { return t.t.C }
func (t realTimer) Stop() bool          { return t.t.Stop() }

// Holder is an optional part of a Clock: Sleep waits in its Hold, so
// that a fake clock knows the goroutine waits on it (see Fake.Hold).
type Holder interface {
	Hold(ctx context.Context, d time.Duration) bool
}

// Sleep waits d on c, or until ctx is done; it reports whether the full
// wait elapsed.
func Sleep(ctx context.Context, c Clock, d time.Duration) bool {
	if h, ok := c.(Holder); ok {
		return h.Hold(ctx, d)
	}
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := c.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C():
		return true
	case <-ctx.Done():
		return false
	}
}
