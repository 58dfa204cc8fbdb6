package pace

import (
	"testing"
	"time"
)

// A run that starts right after another must not fire at once: it waits
// from the previous run's last answer as one longer run would have.
func TestRestoreRightAfterARunWaitsOutTheDelay(t *testing.T) {
	tests := []struct {
		name      string
		gap       time.Duration // from the stored state's SetAt to the new run
		wantReady time.Duration // after the new run's start
	}{
		{"restarted at once", 0, 2 * time.Second},
		{"restarted after half the delay", time.Second, time.Second},
		{"restarted after the delay", 3 * time.Second, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := New(noAging(), fixedRand(0))
			start := t0.Add(tt.gap)
			p.Restore(State{Host: "a.example", Delay: 2 * time.Second, SetAt: t0}, start)
			if got := p.Ready("a.example", start).Sub(start); !near(max(got, 0), tt.wantReady) {
				t.Errorf("Ready = start+%v, want start+%v", got, tt.wantReady)
			}
		})
	}
}

// With --floor 0 a host crawled flat out still backs off on a 429.
func TestCongestionWithAZeroFloor(t *testing.T) {
	cfg := noAging()
	cfg.Floor, cfg.Start, cfg.Decrease = 0, 0, 0
	p := New(cfg, fixedRand(0))
	runScript(t, p, "a.example", []step{
		{name: "flat out", at: 0, out: Outcome{Status: 200}, want: 0},
		{name: "429", at: time.Millisecond, out: Outcome{Status: 429}, want: 30 * time.Millisecond,
			v: Verdict{Congestion: true, Raised: true, Hold: 30 * time.Millisecond}},
		{name: "429 again", at: atReady, out: Outcome{Status: 429}, want: 90 * time.Millisecond,
			v: Verdict{Congestion: true, Raised: true, Hold: 90 * time.Millisecond}},
	})
}

// A host paced at tenths of a second (a time-scaled benchmark's, or one
// with a low --floor) is multiplied from its own delay on a 429, not from
// a fixed base that would hold it several times longer.
func TestCongestionAtTenthsOfASecond(t *testing.T) {
	cfg := noAging()
	cfg.Floor, cfg.Start = 50*time.Millisecond, 70*time.Millisecond
	p := New(cfg, fixedRand(0))
	runScript(t, p, "a.example", []step{
		{name: "429", at: 0, out: Outcome{Status: 429}, want: 210 * time.Millisecond,
			v: Verdict{Congestion: true, Raised: true, Hold: 210 * time.Millisecond}},
	})
}

// Loopback answers that jump from a fraction of a millisecond to tens of
// milliseconds because the crawling machine is busy are noise: neither the
// latency signal nor the breaker may act on them.
func TestMillisecondJitterIsNoise(t *testing.T) {
	p := New(noAging(), fixedRand(0))
	now := t0
	for i := 0; i < 40; i++ {
		ttfb := 300 * time.Microsecond
		if i >= 20 {
			ttfb = 40 * time.Millisecond
		}
		now = now.Add(5 * time.Second)
		p.Begin("a.example", now)
		if v := p.Observe("a.example", now, Outcome{Status: 200, TTFB: ttfb}); v.Congestion || v.Raised || v.Hold > 0 {
			t.Fatalf("response %d (%v): Verdict = %+v, want none", i, ttfb, v)
		}
	}
}

// A hold outlives the run: State carries it and Restore honours it, however
// far it reaches (Hold is the caller's decision, beyond MaxRetryAfter).
func TestHoldOutlivesTheRun(t *testing.T) {
	p := New(noAging(), fixedRand(0))
	p.Begin("a.example", t0)
	p.Observe("a.example", t0, Outcome{Status: 200})
	p.Hold("a.example", t0, t0.Add(time.Hour), HoldRetryAfter)
	p.Hold("a.example", t0, t0.Add(time.Minute), HoldRetryAfter) // never shortens
	st := p.State("a.example")
	if !st.HoldUntil.Equal(t0.Add(time.Hour)) {
		t.Fatalf("State.HoldUntil = %v, want t0+1h", st.HoldUntil)
	}
	next := New(noAging(), fixedRand(0))
	next.Restore(st, t0.Add(time.Second))
	if got := next.Ready("a.example", t0.Add(time.Second)); !got.Equal(t0.Add(time.Hour)) {
		t.Errorf("after Restore, Ready = t0+%v, want t0+1h", got.Sub(t0))
	}
	later := New(noAging(), fixedRand(0))
	later.Restore(st, t0.Add(2*time.Hour))
	if got := later.Ready("a.example", t0.Add(2*time.Hour)); got.After(t0.Add(2 * time.Hour)) {
		t.Errorf("a hold that has passed still holds: Ready = t0+%v", got.Sub(t0))
	}
}
