package clock

import (
	"context"
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

// held starts a goroutine holding d on c and returns a channel that
// gives Hold's answer and the clock's time when it returned.
func held(c *Fake, ctx context.Context, d time.Duration) <-chan time.Time {
	out := make(chan time.Time, 1)
	go func() {
		if c.Hold(ctx, d) {
			out <- c.Now()
		}
		close(out)
	}()
	return out
}

// TestAuto: a goroutine held on the clock with nothing else known to it
// is woken at once, fake time having passed as its hold said, with no
// real time spent.
func TestAuto(t *testing.T) {
	c := NewFake(t0)
	defer c.Auto()()
	if at, ok := <-held(c, context.Background(), time.Hour); !ok || !at.Equal(t0.Add(time.Hour)) {
		t.Errorf("Hold returned at %v (%v), want %v", at, ok, t0.Add(time.Hour))
	}
}

// TestAutoWaitsForRequestsInFlight: with two requests in flight and the
// loop waiting, the clock stays still while one of them is not held on it
// (a real request), and moves once both are.
func TestAutoWaitsForRequestsInFlight(t *testing.T) {
	c := NewFake(t0)
	defer c.Auto()()
	c.InFlight(2)
	loop := c.NewTimer(time.Hour)
	c.Waiting(true)
	// One request waits on the clock; the other is still out.
	c.mu.Lock()
	first := c.newTimer(time.Minute, true)
	c.held++
	c.step()
	c.mu.Unlock()
	if got := c.Now(); !got.Equal(t0) {
		t.Fatalf("Now = %v with a request not held on the clock, want %v", got, t0)
	}
	if _, ok := fired(first); ok {
		t.Fatal("the held request's timer fired while another request was out")
	}
	second := held(c, context.Background(), 2*time.Minute)
	if at := <-first.C(); !at.Equal(t0.Add(time.Minute)) {
		t.Fatalf("first request fired at %v, want at %v", at, t0.Add(time.Minute))
	}
	// The first request's answer goes to the loop, which handles it: the
	// clock waits for the loop to say it waits again.
	c.InFlight(1)
	if _, ok := fired(loop); ok {
		t.Fatal("the loop's timer fired while the loop handled an answer")
	}
	c.Waiting(true)
	if at, ok := <-second; !ok || !at.Equal(t0.Add(2*time.Minute)) {
		t.Errorf("second request returned at %v (%v), want %v", at, ok, t0.Add(2*time.Minute))
	}
}

// TestAutoOnlyWhileTheLoopWaits: once a loop has said when it waits, Auto
// leaves a pending timer alone for as long as the loop says it is busy,
// and moves to it once the loop waits again; a timer that fires counts
// as waking the loop, so the clock moves one timer at a time.
func TestAutoOnlyWhileTheLoopWaits(t *testing.T) {
	c := NewFake(t0)
	c.Waiting(false) // the loop works: dispatching, handling results
	defer c.Auto()()
	tm := c.NewTimer(time.Hour)
	tm2 := c.NewTimer(2 * time.Hour)
	if at, ok := fired(tm); ok {
		t.Fatalf("the timer fired at %v while the loop was busy", at)
	}
	c.Waiting(true)
	if at, ok := fired(tm); !ok || !at.Equal(t0.Add(time.Hour)) {
		t.Fatalf("fired %v at %v, want at %v", ok, at, t0.Add(time.Hour))
	}
	if at, ok := fired(tm2); ok {
		t.Fatalf("the second timer fired at %v before the loop handled the first", at)
	}
	c.Waiting(false)
	c.Waiting(true)
	if at, ok := fired(tm2); !ok || !at.Equal(t0.Add(2*time.Hour)) {
		t.Errorf("second timer fired %v at %v, want at %v", ok, at, t0.Add(2*time.Hour))
	}
}

// TestHoldCancelled: a hold cut by its context reports false, leaves no
// timer behind and no longer counts as waiting on the clock.
func TestHoldCancelled(t *testing.T) {
	c := NewFake(t0)
	ctx, cancel := context.WithCancel(context.Background())
	done := held(c, ctx, time.Hour)
	cancel()
	if _, ok := <-done; ok {
		t.Error("a cancelled Hold reported the wait passed")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.timers) != 0 || c.held != 0 {
		t.Errorf("after a cancelled Hold: %d timers, %d held; want none", len(c.timers), c.held)
	}
}

// TestSleepHoldsOnAFake: clock.Sleep on a Fake is a Hold, so Auto wakes it.
func TestSleepHoldsOnAFake(t *testing.T) {
	c := NewFake(t0)
	defer c.Auto()()
	if !Sleep(context.Background(), c, 3*time.Second) || !c.Now().Equal(t0.Add(3*time.Second)) {
		t.Errorf("Sleep on a Fake: Now = %v, want %v", c.Now(), t0.Add(3*time.Second))
	}
}

// TestRunsShareAClock: with two runs on one clock, Auto moves it only
// while both loops wait and every request of either is held; a timer
// that fires wakes its own run's loop, which alone counts as busy until
// it waits again; a run that is done no longer keeps the clock.
func TestRunsShareAClock(t *testing.T) {
	c := NewFake(t0)
	defer c.Auto()()
	a, b := c.NewRun(), c.NewRun()
	ta := a.NewTimer(time.Minute)
	tb := b.NewTimer(2 * time.Minute)
	a.Waiting(true)
	if _, ok := fired(ta); ok {
		t.Fatal("a's timer fired while b had not yet waited")
	}
	b.InFlight(1) // a request of b's is out, not held
	b.Waiting(true)
	if _, ok := fired(ta); ok {
		t.Fatal("a's timer fired while a request of b's was out")
	}
	b.InFlight(0)
	if at, ok := fired(ta); !ok || !at.Equal(t0.Add(time.Minute)) {
		t.Fatalf("a's timer fired %v at %v, want at %v", ok, at, t0.Add(time.Minute))
	}
	// a handles its timer; b waits all along.
	b.Waiting(true)
	if _, ok := fired(tb); ok {
		t.Fatal("b's timer fired while a handled its own")
	}
	a.Waiting(false)
	a.Waiting(true)
	if at, ok := fired(tb); !ok || !at.Equal(t0.Add(2*time.Minute)) {
		t.Fatalf("b's timer fired %v at %v, want at %v", ok, at, t0.Add(2*time.Minute))
	}
	// b is done without waiting again: the clock goes on for a alone.
	ta2 := a.NewTimer(time.Minute)
	a.Waiting(false)
	a.Waiting(true)
	if _, ok := fired(ta2); ok {
		t.Fatal("a's second timer fired while b, woken, had not waited again")
	}
	b.Done()
	if at, ok := fired(ta2); !ok || !at.Equal(t0.Add(3*time.Minute)) {
		t.Errorf("a's second timer fired %v at %v once b was done, want at %v", ok, at, t0.Add(3*time.Minute))
	}
}
