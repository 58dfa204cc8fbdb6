package pace

import (
	"fmt"
	"testing"
	"time"
)

func TestSlowStart(t *testing.T) {
	tests := []struct {
		name  string
		plain bool
		steps []step
	}{
		{"before any congestion the delay falls multiplicatively", false, []step{
			{"first answer", 0, ok, ms(2100), Verdict{}},
			{"second", atReady, ok, ms(1470), Verdict{}},
			{"third", atReady, ok, ms(1029), Verdict{}},
			{"fourth", atReady, ok, ms(720.3), Verdict{}},
			{"the additive step is faster now: the floor", atReady, ok, ms(500), Verdict{}},
			{"stays at the floor", atReady, ok, ms(500), Verdict{}},
		}},
		{"plain AIMD decreases additively", true, []step{
			{"first answer", 0, ok, ms(2750), Verdict{}},
			{"second", atReady, ok, ms(2500), Verdict{}},
			{"third", atReady, ok, ms(2250), Verdict{}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := noAging()
			cfg.Plain = tt.plain
			runScript(t, New(cfg, fixedRand(0)), "a.example", tt.steps)
		})
	}
}

func TestCongestion(t *testing.T) {
	congested := func(hold time.Duration) Verdict { return Verdict{Congestion: true, Raised: true, Hold: hold} }
	tests := []struct {
		name    string
		restore time.Duration // stored delay at t0; 0 for a new host
		steps   []step
	}{
		{"429 multiplies by 3, then the careful walk back", 0, []step{
			{"429 on the first request", 0, tooMany, 9 * time.Second, congested(9 * time.Second)},
			{"halves while far above the target", atReady, ok, ms(4500), Verdict{}},
			{"then the additive decrease", atReady, ok, ms(4250), Verdict{}},
			{"again", atReady, ok, ms(4000), Verdict{}},
			{"again", atReady, ok, ms(3750), Verdict{}},
			{"again", atReady, ok, ms(3500), Verdict{}},
			{"settles at 1.1x the refused delay", atReady, ok, ms(3300), Verdict{}},
			{"holds 1", atReady, ok, ms(3300), Verdict{}},
			{"holds 2", atReady, ok, ms(3300), Verdict{}},
			{"holds 3", atReady, ok, ms(3300), Verdict{}},
			{"holds 4", atReady, ok, ms(3300), Verdict{}},
			{"holds 5", atReady, ok, ms(3300), Verdict{}},
			{"probes 3% lower after a quiet while", atReady, ok, ms(3201), Verdict{}},
		}},
		{"503 is congestion too", 2 * time.Second, []step{
			{"503", 0, unavailable, 6 * time.Second, congested(6 * time.Second)},
		}},
		{"capped at the ceiling", 50 * time.Second, []step{
			{"429 at 50s", 0, tooMany, 120 * time.Second, congested(120 * time.Second)},
			{"429 again after the hold", atReady, tooMany, 120 * time.Second, congested(120 * time.Second)},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := New(noAging(), fixedRand(0))
			if tt.restore > 0 {
				p.Restore(State{Host: "a.example", Delay: tt.restore, SetAt: t0}, t0)
			}
			runScript(t, p, "a.example", tt.steps)
		})
	}
}

func TestRetryAfter(t *testing.T) {
	past, okPast := ParseRetryAfter("Sat, 31 May 2025 12:00:00 GMT", t0)
	if !okPast || past != 0 {
		t.Fatalf("ParseRetryAfter(a past date) = %v, %v; want 0, true", past, okPast)
	}
	tests := []struct {
		name      string
		out       Outcome
		want      Verdict
		wantDelay time.Duration
		wantReady time.Duration // from t0
	}{
		{"429 with Retry-After 7s holds 7s", Outcome{Status: 429, RetryAfter: 7 * time.Second},
			Verdict{Congestion: true, Raised: true, Hold: 7 * time.Second, Away: 7 * time.Second, Signal: Signal429}, 3 * time.Second, 7 * time.Second},
		{"429 with a shorter Retry-After holds the delay", Outcome{Status: 429, RetryAfter: time.Second},
			Verdict{Congestion: true, Raised: true, Hold: 3 * time.Second, Away: time.Second, Signal: Signal429}, 3 * time.Second, 3 * time.Second},
		{"503 without Retry-After holds the delay", Outcome{Status: 503},
			Verdict{Congestion: true, Raised: true, Hold: 3 * time.Second, Signal: Signal503}, 3 * time.Second, 3 * time.Second},
		{"429 with a past HTTP-date adds no wait", Outcome{Status: 429, RetryAfter: past},
			Verdict{Congestion: true, Raised: true, Hold: 3 * time.Second, Signal: Signal429}, 3 * time.Second, 3 * time.Second},
		{"Retry-After beyond MaxRetryAfter defers, held for all of it", Outcome{Status: 429, RetryAfter: time.Hour},
			Verdict{Congestion: true, Raised: true, Hold: 10 * time.Minute, Defer: true, Away: time.Hour, Signal: Signal429}, 3 * time.Second, time.Hour},
		{"200 with Retry-After is obeyed", Outcome{Status: 200, RetryAfter: 5 * time.Second},
			Verdict{Hold: 5 * time.Second, Away: 5 * time.Second}, ms(700), 5 * time.Second},
		{"200 with a past HTTP-date means no wait", Outcome{Status: 200, RetryAfter: past},
			Verdict{}, ms(700), ms(700)},
		{"500 with a Retry-After beyond the cap defers, no penalty", Outcome{Status: 500, RetryAfter: time.Hour},
			Verdict{Hold: 10 * time.Minute, Defer: true, Away: time.Hour}, time.Second, time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := New(noAging(), fixedRand(0))
			p.Restore(State{Host: "a.example", Delay: time.Second, SetAt: t0}, t0)
			p.Begin("a.example", t0)
			got := p.Observe("a.example", t0, tt.out)
			if !sameVerdict(got, tt.want) {
				t.Errorf("Verdict = %+v, want %+v", got, tt.want)
			}
			if d := p.Delay("a.example", t0); !near(d, tt.wantDelay) {
				t.Errorf("Delay = %v, want %v", d, tt.wantDelay)
			}
			if r := p.Ready("a.example", t0); !near(r.Sub(t0), tt.wantReady) {
				t.Errorf("Ready = t0+%v, want t0+%v", r.Sub(t0), tt.wantReady)
			}
		})
	}
}

// TestOneRaisePerRoundTrip: answers to requests sent before a raise do not
// raise again, as TCP reacts once per round trip.
func TestOneRaisePerRoundTrip(t *testing.T) {
	p := New(noAging(), fixedRand(0))
	p.Restore(State{Host: "a.example", Delay: time.Second, SetAt: t0}, t0)
	p.Begin("a.example", t0)
	p.Begin("a.example", t0.Add(ms(10))) // a second request in flight
	steps := []struct {
		name  string
		begin bool
		at    time.Duration
		want  time.Duration
	}{
		{"first 429 raises", false, ms(100), 3 * time.Second},
		{"429 to a request sent before the raise does not", false, ms(120), 3 * time.Second},
		{"429 to a request sent after it does", true, 4 * time.Second, 9 * time.Second},
	}
	for i, s := range steps {
		now := t0.Add(s.at)
		if s.begin {
			p.Begin("a.example", now)
		}
		v := p.Observe("a.example", now, tooMany)
		if !v.Congestion || !v.Raised {
			t.Errorf("step %d (%s): Verdict = %+v, want congestion", i, s.name, v)
		}
		if got := p.Delay("a.example", now); !near(got, s.want) {
			t.Errorf("step %d (%s): Delay = %v, want %v", i, s.name, got, s.want)
		}
	}
}

func TestNoPenalty(t *testing.T) {
	for _, status := range []int{0, 500, 502, 504, 501, 599, 101} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			p := New(noAging(), fixedRand(0))
			p.Restore(State{Host: "a.example", Delay: 2 * time.Second, SetAt: t0}, t0)
			p.Begin("a.example", t0)
			v := p.Observe("a.example", t0, Outcome{Status: status, TTFB: time.Second})
			if v != (Verdict{}) {
				t.Errorf("Verdict = %+v, want none", v)
			}
			st := p.State("a.example")
			if st.Delay != 2*time.Second || st.Baseline != 0 || st.LastSignal != "" {
				t.Errorf("State = %+v, want delay 2s, no baseline, no signal", st)
			}
		})
	}
}

func TestSlowDown(t *testing.T) {
	tests := []struct {
		name       string
		out        Outcome
		want       Verdict
		wantDelay  time.Duration
		wantSignal string
	}{
		{"soft block raises 1.5x, no hold", Outcome{Status: 200, SlowDown: true},
			Verdict{Raised: true, Signal: SignalSlowDown}, 3 * time.Second, "slow-down"},
		{"a 429 that also matches is a 429", Outcome{Status: 429, SlowDown: true},
			Verdict{Congestion: true, Raised: true, Hold: 6 * time.Second, Signal: Signal429}, 6 * time.Second, "429"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := New(noAging(), fixedRand(0))
			p.Restore(State{Host: "a.example", Delay: 2 * time.Second, SetAt: t0}, t0)
			p.Begin("a.example", t0)
			if v := p.Observe("a.example", t0, tt.out); !sameVerdict(v, tt.want) {
				t.Errorf("Verdict = %+v, want %+v", v, tt.want)
			}
			st := p.State("a.example")
			if !near(st.Delay, tt.wantDelay) || st.LastSignal != tt.wantSignal {
				t.Errorf("Delay, LastSignal = %v, %q; want %v, %q", st.Delay, st.LastSignal, tt.wantDelay, tt.wantSignal)
			}
		})
	}
}

func TestRestore(t *testing.T) {
	cfg := DefaultConfig()
	tests := []struct {
		name string
		st   State
		want time.Duration
	}{
		{"119.5s stored two hours ago, nothing learned: starts cold", State{Delay: sec(119.5), SetAt: t0.Add(-2 * time.Hour)}, cfg.Start},
		{"119.5s stored two hours ago, 1s learned: starts there", State{Delay: sec(119.5), SetAt: t0.Add(-2 * time.Hour),
			SafeGap: time.Second, RefusedGap: ms(900), LearnedAt: t0.Add(-2 * time.Hour)}, time.Second},
		{"at the floor thirty minutes ago: stays there", State{Delay: cfg.Floor, SetAt: t0.Add(-30 * time.Minute)}, cfg.Floor},
		{"12s stored ten minutes ago starts at 6s", State{Delay: 12 * time.Second, SetAt: t0.Add(-10 * time.Minute)}, 6 * time.Second},
		{"just stored", State{Delay: 12 * time.Second, SetAt: t0}, 12 * time.Second},
		{"no delay stored starts at Start", State{}, cfg.Start},
		{"no time stored starts at Start", State{Delay: time.Minute}, cfg.Start},
		{"above a lowered ceiling is capped", State{Delay: time.Hour, SetAt: t0}, cfg.Ceiling},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := New(cfg, fixedRand(0))
			tt.st.Host = "a.example"
			p.Restore(tt.st, t0)
			if got := p.Delay("a.example", t0); !near(got, tt.want) {
				t.Errorf("Delay after Restore = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestWalkBackFromHigh: a high delay comes down in a few dozen successes,
// not the 476 that 0.25s at a time takes (aging is off here, so only the
// controller counts).
func TestWalkBackFromHigh(t *testing.T) {
	tests := []struct {
		name        string
		st          State
		plain       bool
		target      time.Duration
		least, most int
	}{
		{"no memory: slow start", State{Delay: sec(119.5), SetAt: t0}, false, 500 * time.Millisecond, 1, 20},
		{"memory at 40s: down to 44s", State{Delay: sec(119.5), SetAt: t0, CongestionDelay: 40 * time.Second, CongestionAt: t0},
			false, 44 * time.Second, 1, 30},
		{"plain AIMD for comparison", State{Delay: sec(119.5), SetAt: t0}, true, 500 * time.Millisecond, 476, 476},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := noAging()
			cfg.Plain = tt.plain
			p := New(cfg, fixedRand(0))
			tt.st.Host = "a.example"
			p.Restore(tt.st, t0)
			now, n := t0, 0
			for ; n < 1000 && p.Delay("a.example", now) > tt.target+time.Millisecond; n++ {
				now = p.Ready("a.example", now)
				p.Begin("a.example", now)
				p.Observe("a.example", now, ok)
			}
			if n < tt.least || n > tt.most {
				t.Errorf("took %d successes to reach %v, want %d..%d", n, tt.target, tt.least, tt.most)
			}
		})
	}
}

func TestStates(t *testing.T) {
	cfg := noAging()
	p := New(cfg, fixedRand(0))
	p.Begin("B.example", t0)
	p.Observe("B.example", t0, tooMany)
	for i := range 6 {
		now := t0.Add(time.Duration(i) * 5 * time.Second)
		p.Begin("a.example", now)
		p.Observe("a.example", now, ok)
	}
	p.SetFloor("c.example", 2*time.Second, FloorCrawlDelay)

	var hosts []string
	for _, st := range p.States() {
		hosts = append(hosts, st.Host)
	}
	if fmt.Sprint(hosts) != "[a.example b.example c.example]" {
		t.Errorf("States() hosts = %v, want [a.example b.example c.example]", hosts)
	}
	tests := []struct {
		name string
		host string
		want State
	}{
		{"after a 429", "b.example", State{Host: "b.example", Delay: 9 * time.Second, SetAt: t0,
			CongestionDelay: 3 * time.Second, CongestionAt: t0, LastSignal: "429", SignalAt: t0, RefusedGap: 3 * time.Second, LearnedAt: t0,
			Floor: 500 * time.Millisecond, FloorSource: FloorDefault, HoldUntil: t0.Add(9 * time.Second), HoldReason: HoldBackoff}},
		{"baseline kept", "a.example", State{Host: "a.example", Delay: 500 * time.Millisecond, SetAt: t0.Add(25 * time.Second),
			// Sent every 5 s: the host has shown it takes the first request's
			// 3 s (the start delay, no gap before it), not the 0.5 s delay.
			Baseline: 100 * time.Millisecond, SafeGap: 3 * time.Second, LearnedAt: t0,
			Floor: 500 * time.Millisecond, FloorSource: FloorDefault}},
		{"only a floor", "c.example", State{Host: "c.example", Floor: 2 * time.Second, FloorSource: FloorCrawlDelay}},
		{"unknown", "d.example", State{Host: "d.example", Floor: 500 * time.Millisecond, FloorSource: FloorDefault}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := tt.want
			if want.Delay > 0 || want.Floor > cfg.Floor {
				want.HalfLife, want.LearnedHalfLife = cfg.HalfLife, cfg.LearnedHalfLife
			}
			if got := p.State(tt.host); got != want {
				t.Errorf("State(%q) = %+v\nwant %+v", tt.host, got, want)
			}
		})
	}
}

func TestRestoreBaseline(t *testing.T) {
	tests := []struct {
		name string
		ago  time.Duration
		want time.Duration
	}{
		{"a baseline under six half-lives old is kept", 59 * time.Minute, 200 * time.Millisecond},
		{"a baseline over six half-lives old is forgotten", 61 * time.Minute, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := New(DefaultConfig(), fixedRand(0))
			p.Restore(State{Host: "a.example", Delay: time.Second, SetAt: t0.Add(-tt.ago), Baseline: 200 * time.Millisecond}, t0)
			if got := p.State("a.example").Baseline; got != tt.want {
				t.Errorf("Baseline after Restore = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestUnseenHost(t *testing.T) {
	tests := []struct {
		name      string
		start     time.Duration
		floor     time.Duration // a host floor; 0 for none
		wantDelay time.Duration
	}{
		{"starts at Start", 3 * time.Second, 0, 3 * time.Second},
		{"never below the config floor", 100 * time.Millisecond, 0, 500 * time.Millisecond},
		{"never below its own floor", 3 * time.Second, 5 * time.Second, 5 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Start = tt.start
			p := New(cfg, fixedRand(0))
			if tt.floor > 0 {
				p.SetFloor("new.example", tt.floor, FloorHost)
			}
			if got := p.Ready("new.example", t0); !got.Equal(t0) {
				t.Errorf("Ready = %v, want now", got)
			}
			if got := p.Delay("new.example", t0); got != tt.wantDelay {
				t.Errorf("Delay = %v, want %v", got, tt.wantDelay)
			}
		})
	}
}

func TestHostsAreCaseInsensitive(t *testing.T) {
	p := New(noAging(), fixedRand(0))
	p.Begin("Example.COM:8080", t0)
	p.Observe("example.com:8080", t0, tooMany)
	if got := p.Delay("EXAMPLE.com:8080", t0); got != 9*time.Second {
		t.Errorf("Delay = %v, want 9s", got)
	}
	if n := len(p.States()); n != 1 {
		t.Errorf("len(States()) = %d, want 1", n)
	}
}

// TestUnobservedBegin: a request begun and never observed (a redirect hop
// of robots.txt) does not shift later answers onto the wrong request.
func TestUnobservedBegin(t *testing.T) {
	p := New(noAging(), fixedRand(0))
	p.Restore(State{Host: "a.example", Delay: time.Second, SetAt: t0}, t0)
	p.Begin("a.example", t0) // a redirect hop, never observed
	steps := []struct {
		name  string
		begin time.Duration
		want  time.Duration
	}{
		{"429 raises", time.Second, 3 * time.Second},
		{"the next 429, sent after the raise, raises again", 5 * time.Second, 9 * time.Second},
	}
	for i, s := range steps {
		p.Begin("a.example", t0.Add(s.begin))
		now := t0.Add(s.begin + 100*time.Millisecond)
		p.Observe("a.example", now, Outcome{Status: 429, TTFB: 100 * time.Millisecond})
		if got := p.Delay("a.example", now); !near(got, s.want) {
			t.Errorf("step %d (%s): Delay = %v, want %v", i, s.name, got, s.want)
		}
	}
}

// A request that left late (its connection was dialled first) moves the
// next request's earliest start: the server sees the two at least the
// delay apart. Sent for a request that is no longer the last begun, or a
// time before it began, changes nothing.
func TestSentMovesTheNextStart(t *testing.T) {
	const host = "a.example"
	p := New(noAging(), fixedRand(0))
	p.Begin(host, t0)
	sent := t0.Add(300 * time.Millisecond) // after a slow dial and handshake
	p.Sent(host, t0, sent)
	now := t0.Add(400 * time.Millisecond)
	p.Observe(host, now, Outcome{Status: 404})
	if got, want := p.Ready(host, now), sent.Add(p.Delay(host, now)); !got.Equal(want) {
		t.Errorf("Ready = t0+%v, want t0+%v: the delay after the first request left", got.Sub(t0), want.Sub(t0))
	}

	next := p.Ready(host, now)
	p.Begin(host, next)
	p.Sent(host, t0, next.Add(time.Second)) // not the last begun
	p.Sent(host, next, next.Add(-time.Millisecond))
	now = next.Add(100 * time.Millisecond)
	p.Observe(host, now, Outcome{Status: 404})
	if got, want := p.Ready(host, now), next.Add(p.Delay(host, now)); !got.Equal(want) {
		t.Errorf("Ready = t0+%v, want t0+%v: the stale and the backwards Sent were not ignored", got.Sub(t0), want.Sub(t0))
	}
}
