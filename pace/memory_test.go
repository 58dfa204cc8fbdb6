package pace

import (
	"testing"
	"time"
)

// TestMemoryOfCongestion: after a 429 at delay C the delay comes back to
// just above C and stays there, where plain AIMD saws back under C within a
// few requests and would be refused again.
func TestMemoryOfCongestion(t *testing.T) {
	const c = time.Second
	tests := []struct {
		name  string
		plain bool
	}{
		{"full controller", false},
		{"plain AIMD", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Plain = tt.plain
			p := New(cfg, fixedRand(0))
			p.Restore(State{Host: "a.example", Delay: c, SetAt: t0}, t0)
			p.Begin("a.example", t0)
			p.Observe("a.example", t0, tooMany)
			if got := p.State("a.example").CongestionDelay; got != c {
				t.Fatalf("CongestionDelay = %v, want %v", got, c)
			}
			now, under, last := t0, -1, time.Duration(0)
			for i := range 100 {
				next := p.Ready("a.example", now)
				if gap := next.Sub(now); i > 0 && gap < c && under < 0 {
					under = i // this request would be refused again
				}
				now = next
				p.Begin("a.example", now)
				p.Observe("a.example", now, ok)
				last = p.Delay("a.example", now)
				if !tt.plain && i >= 10 && (last <= c || last > c*11/10) {
					t.Errorf("success %d: Delay = %v, want within (%v, %v]", i, last, c, c*11/10)
				}
			}
			switch {
			case tt.plain && (under < 0 || under > 10):
				t.Errorf("plain AIMD first went under %v at request %d, want within 10 (the sawtooth)", c, under)
			case !tt.plain && under >= 0:
				t.Errorf("request %d went under %v: the memory did not hold", under, c)
			case !tt.plain && last > c*105/100:
				t.Errorf("steady Delay = %v, want within 5%% above %v", last, c)
			}
		})
	}
}

// TestMemoryAges: the memory is whole for a half-life, then decays, and is
// forgotten after four.
func TestMemoryAges(t *testing.T) {
	const mem = 2 * time.Second
	tests := []struct {
		name  string
		ago   time.Duration // when the congestion came, before t0
		steps int           // successes
		want  time.Duration // where the walk back from 10s settles
	}{
		{"five minutes old: settles at 1.1x", 5 * time.Minute, 8, 2200 * time.Millisecond},
		{"fifteen minutes old: half a half-life of decay", 15 * time.Minute, 8, scale(scale(mem, 1/1.4142135623730951), 1.1)},
		{"forty-five minutes old: forgotten, slow start to the floor", 45 * time.Minute, 12, 500 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := noAging()
			cfg.HalfLife = 10 * time.Minute
			p := New(cfg, fixedRand(0))
			p.Restore(State{Host: "a.example", Delay: 10 * time.Second, SetAt: t0,
				CongestionDelay: mem, CongestionAt: t0.Add(-tt.ago), LastSignal: "429"}, t0)
			now := t0
			for range tt.steps {
				now = p.Ready("a.example", now)
				p.Begin("a.example", now)
				p.Observe("a.example", now, ok)
			}
			// The successes take under a minute: the memory's age barely
			// moves, the delay's aging is small; allow 2%.
			got := p.Delay("a.example", now)
			if d := got - tt.want; d > tt.want/50 || d < -tt.want/50 {
				t.Errorf("Delay after 8 successes = %v, want about %v", got, tt.want)
			}
		})
	}
}

// TestEchoDoesNotRaiseMemory: a second signal before any success is the
// echo of the first and keeps the lower memory.
func TestEchoDoesNotRaiseMemory(t *testing.T) {
	p := New(noAging(), fixedRand(0))
	p.Restore(State{Host: "a.example", Delay: time.Second, SetAt: t0}, t0)
	p.Begin("a.example", t0)
	p.Observe("a.example", t0, tooMany)
	now := p.Ready("a.example", t0)
	p.Begin("a.example", now)
	v := p.Observe("a.example", now, tooMany)
	if !v.Congestion || !near(p.Delay("a.example", now), 9*time.Second) {
		t.Errorf("echo: Verdict %+v, Delay %v; want congestion, 9s", v, p.Delay("a.example", now))
	}
	if got := p.State("a.example").CongestionDelay; got != time.Second {
		t.Errorf("CongestionDelay after the echo = %v, want 1s", got)
	}
}

// TestRepeatedRefusalWidensTarget: refused again at the settled target (a
// burst hid the limit), the next target keeps further away than 1.1x.
func TestRepeatedRefusalWidensTarget(t *testing.T) {
	p := New(noAging(), fixedRand(0))
	p.Restore(State{Host: "a.example", Delay: time.Second, SetAt: t0}, t0)
	p.Begin("a.example", t0)
	p.Observe("a.example", t0, tooMany) // memory 1s, target 1.1s
	now := t0
	settle := func() time.Duration { // walk back and hold, short of a probe
		for range 7 {
			now = p.Ready("a.example", now)
			p.Begin("a.example", now)
			p.Observe("a.example", now, ok)
		}
		return p.Delay("a.example", now)
	}
	if got := settle(); !near(got, 1100*time.Millisecond) {
		t.Fatalf("first settle = %v, want 1.1s", got)
	}
	now = p.Ready("a.example", now)
	p.Begin("a.example", now)
	p.Observe("a.example", now, tooMany) // refused at 1.1s: memory 1.1s, settle 1.21x
	if got, want := settle(), scale(1100*time.Millisecond, 1.21); !near(got, want) {
		t.Errorf("second settle = %v, want %v", got, want)
	}
}

// TestRefusalNearMemoryIsNoise: refused at a gap just above the memory
// (within 5%), without probing, the operating point was at the limit and
// noise crossed it: the memory moves up to that gap and the next target is
// the usual 1.1x of it, not a widened one. A long bench run used to sit
// 4% above the limit for good after one such refusal.
func TestRefusalNearMemoryIsNoise(t *testing.T) {
	p := New(noAging(), fixedRand(0))
	p.Restore(State{Host: "a.example", Delay: 1020 * time.Millisecond, SetAt: t0,
		CongestionDelay: time.Second, CongestionAt: t0}, t0)
	p.Begin("a.example", t0)
	p.Observe("a.example", t0, ok) // walking back: 1.02s is under the target
	now := t0.Add(1020 * time.Millisecond)
	p.Begin("a.example", now)
	p.Observe("a.example", now, tooMany) // refused at 1.02s: 2% above the memory
	if got := p.State("a.example").CongestionDelay; got != 1020*time.Millisecond {
		t.Fatalf("memory after the refusal = %v, want 1.02s", got)
	}
	for range 7 { // walk back and hold, short of a probe
		now = p.Ready("a.example", now)
		p.Begin("a.example", now)
		p.Observe("a.example", now, ok)
	}
	if got, want := p.Delay("a.example", now), scale(1020*time.Millisecond, settleFactor); !near(got, want) {
		t.Errorf("settled at %v, want %v (1.1x the new memory)", got, want)
	}
}

// TestRefusalAfterALongHoldIsNoise: a 429 at an operating point that has
// held for noiseQuiet successes, at a gap that has worked, is noise (one
// request that arrived early after one that arrived late). The delay
// backs off as for any 429, then walks back to the same point, and the
// memory and the learned gaps stay as they were. A second 429 before the
// point has held as long again is news: the memory moves up to it.
func TestRefusalAfterALongHoldIsNoise(t *testing.T) {
	const host = "a.example"
	p := New(noAging(), fixedRand(0))
	p.Restore(State{Host: host, Delay: time.Second, SetAt: t0}, t0)
	p.Begin(host, t0)
	p.Observe(host, t0, tooMany) // memory 1s
	now := t0
	step := func(o Outcome) Verdict {
		now = p.Ready(host, now)
		p.Begin(host, now)
		return p.Observe(host, now, o)
	}
	for range 30 { // walk back, settle and probe down to just above the memory
		step(ok)
	}
	op := p.Delay(host, now)
	if op <= time.Second || op > 1030*time.Millisecond {
		t.Fatalf("operating point %v, want just above the 1s memory", op)
	}
	for range noiseQuiet {
		step(ok)
	}
	if got := p.Delay(host, now); got != op {
		t.Fatalf("after %d more successes the delay is %v, want the operating point %v", noiseQuiet, got, op)
	}
	before := p.State(host)

	v := step(tooMany)
	if !v.Congestion || !near(v.Hold, scale(op, 3)) {
		t.Fatalf("429 at the operating point: %+v, want congestion held 3x %v", v, op)
	}
	after := p.State(host)
	if after.CongestionDelay != before.CongestionDelay || after.SafeGap != before.SafeGap || after.RefusedGap != before.RefusedGap {
		t.Errorf("after a 429 taken for noise: memory %v, safe %v, refused %v; want them unchanged (%v, %v, %v)",
			after.CongestionDelay, after.SafeGap, after.RefusedGap, before.CongestionDelay, before.SafeGap, before.RefusedGap)
	}
	for range 8 {
		step(ok)
	}
	if got := p.Delay(host, now); got != op {
		t.Errorf("after the walk back the delay is %v, want the same operating point %v", got, op)
	}

	step(tooMany) // again, long before the point has held for noiseQuiet
	if got := p.State(host).CongestionDelay; got == before.CongestionDelay {
		t.Errorf("a second 429 soon after left the memory at %v: it is news, the memory should move to the refused gap", got)
	}
}
