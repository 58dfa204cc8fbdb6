package pace

import (
	"testing"
	"time"
)

// TestTransferContinuous sweeps the latency ratio finely across both knees:
// the delay never jumps by more than epsilon and never decreases; it is the
// calm delay up to the low knee and the congestion delay from the high knee.
func TestTransferContinuous(t *testing.T) {
	const low, high, step = 1.15, 2.5, 1e-4
	tests := []struct {
		name            string
		calm, congested time.Duration
	}{
		{"one second, times three", time.Second, 3 * time.Second},
		{"floor to ceiling", 500 * time.Millisecond, 120 * time.Second},
		{"from a decrease", 750 * time.Millisecond, 3 * time.Second},
		{"nothing to grow into", 2 * time.Second, 2 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eps := max((tt.congested-tt.calm)/1000, time.Nanosecond)
			prev := transfer(tt.calm, tt.congested, 0.5, low, high)
			for i := 1; i <= 40000; i++ {
				r := 0.5 + float64(i)*step
				got := transfer(tt.calm, tt.congested, r, low, high)
				if got < prev {
					t.Fatalf("ratio %.4f: %v, below %v at the previous ratio: not monotone", r, got, prev)
				}
				if got-prev > eps {
					t.Fatalf("ratio %.4f: jumps from %v to %v, more than %v", r, prev, got, eps)
				}
				if r <= low && got != tt.calm {
					t.Fatalf("ratio %.4f below the low knee: %v, want the calm %v", r, got, tt.calm)
				}
				if r >= high && got != tt.congested {
					t.Fatalf("ratio %.4f above the high knee: %v, want the congestion delay %v", r, got, tt.congested)
				}
				prev = got
			}
		})
	}
}

// TestLatencySignal feeds four responses at 100ms (the baseline) and then
// one slower response, and compares with a control that got 100ms again.
func TestLatencySignal(t *testing.T) {
	tests := []struct {
		name string
		ttfb time.Duration
		want string // "same", "higher" (than the control, not raised), "raised" or "congestion"
	}{
		{"same latency", 100 * time.Millisecond, "same"},
		{"within the low knee", 130 * time.Millisecond, "same"},
		{"past the low knee grows a little", 200 * time.Millisecond, "higher"},
		{"further grows more", 400 * time.Millisecond, "raised"},
		{"past the high knee is congestion", time.Second, "congestion"},
	}
	run := func(last time.Duration) (*Pacer, Verdict, time.Duration, time.Time) {
		p := New(noAging(), fixedRand(0))
		p.Restore(State{Host: "a.example", Delay: 10 * time.Second, SetAt: t0}, t0)
		now := t0
		for i := range 5 {
			if i > 0 {
				now = p.Ready("a.example", now)
			}
			ttfb := 100 * time.Millisecond
			if i == 4 {
				ttfb = last
			}
			aged := p.Delay("a.example", now)
			p.Begin("a.example", now)
			v := p.Observe("a.example", now, Outcome{Status: 200, TTFB: ttfb})
			if i == 4 {
				return p, v, aged, now
			}
		}
		panic("unreachable")
	}
	control, _, _, now := run(100 * time.Millisecond)
	calm := control.Delay("a.example", now)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, v, aged, now := run(tt.ttfb)
			got := p.Delay("a.example", now)
			var kind string
			switch {
			case v.Congestion:
				kind = "congestion"
				if got != 3*aged || v.Hold != got || p.State("a.example").LastSignal != "latency" {
					t.Errorf("congestion: Delay %v, Hold %v, signal %q; want %v, %v, latency",
						got, v.Hold, p.State("a.example").LastSignal, 3*aged, 3*aged)
				}
			case v.Raised:
				kind = "raised"
			case got > calm:
				kind = "higher"
			case got == calm:
				kind = "same"
			default:
				kind = "lower"
			}
			if kind != tt.want {
				t.Errorf("TTFB %v: Delay %v (calm %v), Verdict %+v: %s, want %s", tt.ttfb, got, calm, v, kind, tt.want)
			}
		})
	}
}

// TestLatencyEndsSlowStart: a ratio past the low knee ends slow start, as
// a delay increase ends TCP's (HyStart): the decrease turns additive.
func TestLatencyEndsSlowStart(t *testing.T) {
	p := New(noAging(), fixedRand(0))
	p.Restore(State{Host: "a.example", Delay: 10 * time.Second, SetAt: t0}, t0)
	now := t0
	ttfbs := []time.Duration{100, 100, 100, 100, 200, 100, 100, 100, 100}
	var delays []time.Duration
	for i, ms := range ttfbs {
		if i > 0 {
			now = p.Ready("a.example", now)
		}
		p.Begin("a.example", now)
		p.Observe("a.example", now, Outcome{Status: 200, TTFB: ms * time.Millisecond})
		delays = append(delays, p.Delay("a.example", now))
	}
	if got, want := delays[1], scale(delays[0], 0.7); !near(got, want) {
		t.Errorf("before the signal: %v after %v, want %v (slow start)", got, delays[0], want)
	}
	last := len(delays) - 1
	if got, want := delays[last], delays[last-1]-250*time.Millisecond; !near(got, want) {
		t.Errorf("after the signal: %v after %v, want %v (additive); delays %v", got, delays[last-1], want, delays)
	}
}

// TestRestoredBaseline: a baseline from the last run judges this run's
// first responses, so a host already slow at the start is noticed.
func TestRestoredBaseline(t *testing.T) {
	tests := []struct {
		name       string
		baseline   time.Duration
		wantRaised bool
	}{
		{"with a baseline of 100ms, 300ms responses raise the delay", 100 * time.Millisecond, true},
		{"without one they are the baseline", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := New(noAging(), fixedRand(0))
			p.Restore(State{Host: "a.example", Delay: 5 * time.Second, SetAt: t0, Baseline: tt.baseline}, t0)
			now, raised := t0, false
			for i := range 6 {
				if i > 0 {
					now = p.Ready("a.example", now)
				}
				p.Begin("a.example", now)
				v := p.Observe("a.example", now, Outcome{Status: 200, TTFB: 300 * time.Millisecond})
				raised = raised || v.Raised || v.Congestion
			}
			if raised != tt.wantRaised {
				t.Errorf("raised = %v, want %v", raised, tt.wantRaised)
			}
		})
	}
}

// TestBreaker: four consecutive responses over twice the rolling median
// pause the host for the cooldown and raise the delay once; the count
// restarts after tripping and on any normal response.
func TestBreaker(t *testing.T) {
	const fast, slow = 100 * time.Millisecond, 220 * time.Millisecond
	for _, plain := range []bool{true, false} {
		name := "full controller"
		if plain {
			name = "plain AIMD"
		}
		t.Run(name, func(t *testing.T) {
			cfg := noAging()
			cfg.Plain = plain
			p := New(cfg, fixedRand(0))
			p.Restore(State{Host: "a.example", Delay: 2 * time.Second, SetAt: t0}, t0)
			now := t0
			observe := func(ttfb time.Duration) (Verdict, time.Duration) {
				if r := p.Ready("a.example", now); r.After(now) {
					now = r
				}
				aged := p.Delay("a.example", now)
				p.Begin("a.example", now)
				return p.Observe("a.example", now, Outcome{Status: 200, TTFB: ttfb}), aged
			}
			for range 20 {
				observe(fast)
			}
			script := []struct {
				name string
				ttfb time.Duration
				trip bool
			}{
				{"slow 1", slow, false}, {"slow 2", slow, false}, {"slow 3", slow, false},
				{"a normal response resets the count", fast, false},
				{"slow 1 again", slow, false}, {"slow 2", slow, false}, {"slow 3", slow, false},
				{"slow 4 trips", slow, true},
				{"after tripping, slow 1", slow, false}, {"slow 2", slow, false}, {"slow 3", slow, false},
			}
			for i, s := range script {
				v, aged := observe(s.ttfb)
				if v.Congestion != s.trip {
					t.Errorf("step %d (%s): Congestion = %v, want %v", i, s.name, v.Congestion, s.trip)
				}
				if !s.trip {
					continue
				}
				st := p.State("a.example")
				if !v.Raised || v.Hold != cfg.BreakerCooldown || st.LastSignal != "breaker" || st.Delay != 3*aged {
					t.Errorf("step %d (%s): Verdict %+v, signal %q, Delay %v; want raised, hold %v, breaker, %v",
						i, s.name, v, st.LastSignal, st.Delay, cfg.BreakerCooldown, 3*aged)
				}
				if r := p.Ready("a.example", now); r.Sub(now) < cfg.BreakerCooldown {
					t.Errorf("step %d (%s): Ready in %v, want at least the cooldown %v", i, s.name, r.Sub(now), cfg.BreakerCooldown)
				}
			}
		})
	}
}

// TestLatencyNoise: on loopback a 0.3 ms response that takes 3 ms is noise;
// neither the ratio nor the breaker reacts to latency under 10 ms.
func TestLatencyNoise(t *testing.T) {
	p := New(noAging(), fixedRand(0))
	p.Restore(State{Host: "a.example", Delay: time.Second, SetAt: t0}, t0)
	now := t0
	for i := range 30 {
		ttfb := 300 * time.Microsecond
		if i >= 20 {
			ttfb = 3 * time.Millisecond
		}
		if i > 0 {
			now = p.Ready("a.example", now)
		}
		p.Begin("a.example", now)
		if v := p.Observe("a.example", now, Outcome{Status: 200, TTFB: ttfb}); v.Raised || v.Congestion {
			t.Fatalf("response %d (%v): Verdict %+v, want nothing", i, ttfb, v)
		}
	}
	if st := p.State("a.example"); st.LastSignal != "" {
		t.Errorf("LastSignal = %q, want none", st.LastSignal)
	}
}

// TestSlowStartClockedByAnswers: before any congestion the delay does not
// fall below the time an answer takes.
func TestSlowStartClockedByAnswers(t *testing.T) {
	tests := []struct {
		name string
		ttfb time.Duration
		want time.Duration
	}{
		{"answers in 1.2s hold the delay there", 1200 * time.Millisecond, 1200 * time.Millisecond},
		{"fast answers let it reach the floor", 100 * time.Millisecond, 500 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := New(noAging(), fixedRand(0))
			p.Restore(State{Host: "a.example", Delay: 3 * time.Second, SetAt: t0}, t0)
			now := t0
			for i := range 12 {
				if i > 0 {
					now = p.Ready("a.example", now)
				}
				p.Begin("a.example", now)
				p.Observe("a.example", now, Outcome{Status: 200, TTFB: tt.ttfb})
				if d := p.Delay("a.example", now); d < tt.want-time.Microsecond {
					t.Fatalf("success %d: Delay = %v, below %v", i, d, tt.want)
				}
			}
			if d := p.Delay("a.example", now); !near(d, tt.want) {
				t.Errorf("Delay = %v, want %v", d, tt.want)
			}
		})
	}
}

// TestLatencyRaiseOncePerRoundTrip: with several requests in flight, only
// the first slow answer raises; the others were sent before the raise.
func TestLatencyRaiseOncePerRoundTrip(t *testing.T) {
	p := New(noAging(), fixedRand(0))
	p.Restore(State{Host: "a.example", Delay: 2 * time.Second, SetAt: t0}, t0)
	now := t0
	for i := range 5 {
		if i > 0 {
			now = p.Ready("a.example", now)
		}
		p.Begin("a.example", now)
		p.Observe("a.example", now, Outcome{Status: 200, TTFB: 100 * time.Millisecond})
	}
	start := p.Ready("a.example", now)
	for i := range 3 { // three requests in flight, the caller going early
		p.Begin("a.example", start.Add(time.Duration(i)*100*time.Millisecond))
	}
	var delays []time.Duration
	for i := range 3 {
		now = start.Add(time.Duration(i)*100*time.Millisecond + 400*time.Millisecond)
		p.Observe("a.example", now, Outcome{Status: 200, TTFB: 400 * time.Millisecond})
		delays = append(delays, p.Delay("a.example", now))
	}
	if delays[0] <= 500*time.Millisecond || delays[1] > delays[0] || delays[2] > delays[0] {
		t.Errorf("delays after three slow answers in flight = %v, want one raise, then none", delays)
	}
}

// TestBaselineIgnoresOneQuickAnswer: a quick robots.txt first does not make
// the pages after it look slow.
func TestBaselineIgnoresOneQuickAnswer(t *testing.T) {
	p := New(noAging(), fixedRand(0))
	p.Restore(State{Host: "a.example", Delay: 3 * time.Second, SetAt: t0}, t0)
	now := t0
	for i := range 12 {
		ttfb := 800 * time.Millisecond
		if i == 0 {
			ttfb = 5 * time.Millisecond // robots.txt
		}
		if i > 0 {
			now = p.Ready("a.example", now)
		}
		p.Begin("a.example", now)
		if v := p.Observe("a.example", now, Outcome{Status: 200, TTFB: ttfb}); v.Raised || v.Congestion {
			t.Fatalf("answer %d: Verdict %+v, want nothing", i, v)
		}
	}
	if b := p.State("a.example").Baseline; b < 700*time.Millisecond {
		t.Errorf("Baseline = %v, want about 800ms", b)
	}
}
