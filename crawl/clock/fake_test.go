package clock

import (
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func fired(tm interface{ C() <-chan time.Time }) (time.Time, bool) {
	select {
	case at := <-tm.C():
		return at, true
	default:
		return time.Time{}, false
	}
}

// TestAdvance is a script of steps: each advances the clock and says
// which timers have fired by then.
func TestAdvance(t *testing.T) {
	c := NewFake(t0)
	a, b := c.NewTimer(time.Second), c.NewTimer(3*time.Second)
	stopped := c.NewTimer(2 * time.Second)
	if !stopped.Stop() {
		t.Fatal("Stop of a pending timer = false, want true")
	}
	steps := []struct {
		advance      time.Duration
		wantA, wantB bool
	}{
		{500 * time.Millisecond, false, false},
		{500 * time.Millisecond, true, false},
		{time.Second, false, false}, // the stopped one never fires
		{time.Second, false, true},
	}
	for i, s := range steps {
		c.Advance(s.advance)
		if _, got := fired(a); got != s.wantA {
			t.Errorf("step %d: timer a fired = %v, want %v", i, got, s.wantA)
		}
		if at, got := fired(b); got != s.wantB {
			t.Errorf("step %d: timer b fired = %v, want %v", i, got, s.wantB)
		} else if got && !at.Equal(t0.Add(3*time.Second)) {
			t.Errorf("step %d: timer b fired at %v, want %v", i, at, t0.Add(3*time.Second))
		}
	}
	if got := c.Since(t0); got != 3*time.Second {
		t.Errorf("Since = %s, want 3s", got)
	}
	if stopped.Stop() {
		t.Error("second Stop = true, want false")
	}
}

func TestAdvanceToNext(t *testing.T) {
	c := NewFake(t0)
	if c.AdvanceToNext() {
		t.Fatal("AdvanceToNext with no timer = true, want false")
	}
	late, soon := c.NewTimer(time.Minute), c.NewTimer(time.Second)
	if !c.AdvanceToNext() {
		t.Fatal("AdvanceToNext = false, want true")
	}
	if _, ok := fired(soon); !ok {
		t.Error("the earliest timer did not fire")
	}
	if _, ok := fired(late); ok {
		t.Error("the later timer fired too early")
	}
	if got := c.Now(); !got.Equal(t0.Add(time.Second)) {
		t.Errorf("Now = %v, want %v", got, t0.Add(time.Second))
	}
	if now := c.NewTimer(0); func() bool { _, ok := fired(now); return !ok }() {
		t.Error("a timer of 0 has not fired at once")
	}
}

// TestAuto: a goroutine waiting on time alone is woken without the test
// advancing the clock, and fake time passes as its timer says.
func TestAuto(t *testing.T) {
	c := NewFake(t0)
	stop := c.Auto(time.Millisecond)
	defer stop()
	tm := c.NewTimer(time.Hour)
	select {
	case at := <-tm.C():
		if !at.Equal(t0.Add(time.Hour)) {
			t.Errorf("fired at %v, want %v", at, t0.Add(time.Hour))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Auto never advanced to the pending timer")
	}
}

// TestAutoWaitsForRequestsInFlight: with a request in flight Auto lets a
// short quiet spell pass without moving the clock; once the request is
// slow (40 quiet spells), fake time passes too.
func TestAutoWaitsForRequestsInFlight(t *testing.T) {
	c := NewFake(t0)
	c.InFlight(1)
	stop := c.Auto(time.Millisecond)
	defer stop()
	tm := c.NewTimer(time.Hour)
	start := time.Now()
	select {
	case <-tm.C():
		if took := time.Since(start); took < 40*time.Millisecond {
			t.Errorf("fired after %s of quiet with a request in flight, want at least 40ms", took)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Auto never advanced past a slow request")
	}
}

// TestAutoOnlyWhileTheLoopWaits: once a loop has said when it waits, Auto
// leaves a pending timer alone for as long as the loop says it is busy,
// however quiet the clock, and moves to it once the loop waits again.
func TestAutoOnlyWhileTheLoopWaits(t *testing.T) {
	c := NewFake(t0)
	c.Waiting(false) // the loop works: dispatching, handling results
	stop := c.Auto(time.Millisecond)
	defer stop()
	tm := c.NewTimer(time.Hour)
	// Far more quiet than Auto needs, with no request in flight: before
	// Waiting, this was enough to move the clock an hour on.
	for i := 0; i < 50; i++ {
		time.Sleep(time.Millisecond)
		if at, ok := fired(tm); ok {
			t.Fatalf("the timer fired at %v while the loop was busy", at)
		}
	}
	if got := c.Now(); !got.Equal(t0) {
		t.Fatalf("Now = %v while the loop was busy, want %v", got, t0)
	}
	c.Waiting(true)
	select {
	case at := <-tm.C():
		if !at.Equal(t0.Add(time.Hour)) {
			t.Errorf("fired at %v, want %v", at, t0.Add(time.Hour))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Auto never advanced while the loop waited")
	}
}
