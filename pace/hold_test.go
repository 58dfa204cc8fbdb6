package pace

import (
	"strings"
	"testing"
	"time"
)

// Every hold is bounded by MaxHold: an absurd Retry-After holds at most
// that and is reported (once per answer, for the caller's log); garbage is
// ignored and reported; a sane long one is honoured without a word.
func TestRetryAfterHoldIsBounded(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxHold = 2 * time.Hour
	tests := []struct {
		name       string
		header     string
		wantReady  time.Duration // from t0
		wantCapped bool
	}{
		{"year 9999", "Fri, 31 Dec 9999 23:59:59 GMT", 2 * time.Hour, true},
		{"10^11 seconds", "99999999999", 2 * time.Hour, true},
		{"three hours", "10800", 2 * time.Hour, true},
		{"one hour is honoured", "3600", time.Hour, false},
		{"negative", "-5", 3 * time.Second, true},
		{"garbage", "soon, maybe", 3 * time.Second, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := New(cfg, fixedRand(0))
			p.Restore(State{Host: "a.example", Delay: time.Second, SetAt: t0}, t0)
			o := Outcome{Status: 429}
			if d, ok := ParseRetryAfter(tt.header, t0); ok {
				o.RetryAfter = d
			} else {
				o.BadRetryAfter = tt.header
			}
			p.Begin("a.example", t0)
			v := p.Observe("a.example", t0, o)
			if (v.Capped != "") != tt.wantCapped {
				t.Errorf("Capped = %q, want set: %v", v.Capped, tt.wantCapped)
			}
			if got := p.Ready("a.example", t0).Sub(t0); got != tt.wantReady {
				t.Errorf("Ready = t0+%v, want t0+%v", got, tt.wantReady)
			}
			if v.Away > cfg.MaxHold || v.Hold > cfg.MaxHold {
				t.Errorf("Verdict %+v: a wait beyond MaxHold %v", v, cfg.MaxHold)
			}
			st := p.State("a.example")
			if st.HoldUntil.Sub(t0) != tt.wantReady {
				t.Errorf("State.HoldUntil = t0+%v, want t0+%v", st.HoldUntil.Sub(t0), tt.wantReady)
			}
			// The next answer, sane, reports nothing: once per absurd value.
			now := p.Ready("a.example", t0)
			p.Begin("a.example", now)
			if v := p.Observe("a.example", now, ok); v.Capped != "" {
				t.Errorf("the next answer reports %q, want nothing", v.Capped)
			}
		})
	}
}

// An exhausted quota and the breaker hold at most MaxHold too.
func TestQuotaAndBreakerHoldsAreBounded(t *testing.T) {
	cfg := noAging()
	cfg.MaxHold = time.Hour
	t.Run("quota reset of a day", func(t *testing.T) {
		p := New(cfg, fixedRand(0))
		p.Begin("a.example", t0)
		v := p.Observe("a.example", t0, Outcome{Status: 200, Quota: &Quota{Limit: 100, Remaining: 0, Reset: 24 * time.Hour}})
		if v.Away != time.Hour || !v.Defer || !strings.Contains(v.Capped, "RateLimit reset") {
			t.Errorf("Verdict = %+v, want Away 1h, Defer, the reset reported", v)
		}
		if st := p.State("a.example"); st.HoldUntil != t0.Add(time.Hour) || st.HoldReason != HoldQuota {
			t.Errorf("hold = %v (%s), want t0+1h (quota)", st.HoldUntil.Sub(t0), st.HoldReason)
		}
	})
	t.Run("breaker cooldown of a day", func(t *testing.T) {
		c := cfg
		c.Plain = true // no latency signal to act first
		c.BreakerCooldown = 24 * time.Hour
		p := New(c, fixedRand(0))
		now := t0
		var v Verdict
		for i := range 30 {
			ttfb := 100 * time.Millisecond
			if i >= 20 {
				ttfb = time.Second
			}
			now = now.Add(5 * time.Second)
			p.Begin("a.example", now)
			if v = p.Observe("a.example", now, Outcome{Status: 200, TTFB: ttfb}); v.Signal == SignalBreaker {
				break
			}
		}
		st := p.State("a.example")
		if v.Signal != SignalBreaker || v.Hold != time.Hour || st.HoldReason != HoldBreaker || st.HoldUntil.Sub(now) != time.Hour {
			t.Errorf("Verdict %+v, hold %v after (%s); want the breaker, held 1h", v, st.HoldUntil.Sub(now), st.HoldReason)
		}
	})
}

// A hold stored by an earlier polite without the bound (until 2036) is cut
// to MaxHold when restored, and Restore says so; Hold is bounded alike.
func TestStoredAndCallerHoldsAreBounded(t *testing.T) {
	cfg := noAging()
	cfg.MaxHold = 3 * time.Hour
	p := New(cfg, fixedRand(0))
	far := time.Date(2036, 1, 1, 0, 0, 0, 0, time.UTC)
	note := p.Restore(State{Host: "a.example", Delay: time.Second, SetAt: t0, HoldUntil: far}, t0)
	if note == "" {
		t.Error("Restore of a hold until 2036: no note, want one")
	}
	if got := p.Ready("a.example", t0); got != t0.Add(3*time.Hour) {
		t.Errorf("Ready = t0+%v, want t0+3h", got.Sub(t0))
	}
	if st := p.State("a.example"); st.HoldReason != HoldRetryAfter {
		t.Errorf("HoldReason of an old stored hold = %q, want retry-after", st.HoldReason)
	}
	if note := p.Restore(State{Host: "b.example", Delay: time.Second, SetAt: t0, HoldUntil: t0.Add(time.Hour), HoldReason: HoldQuota}, t0); note != "" {
		t.Errorf("Restore of a one-hour hold: note %q, want none", note)
	}
	if note := p.Hold("c.example", t0, far, HoldRetryAfter); note == "" {
		t.Error("Hold until 2036: no note, want one")
	}
	if got := p.Ready("c.example", t0); got != t0.Add(3*time.Hour) {
		t.Errorf("after Hold until 2036, Ready = t0+%v, want t0+3h", got.Sub(t0))
	}
	if h, ok := HoldAt(State{HoldUntil: far, HoldReason: HoldQuota}, cfg.MaxHold, t0); !ok || h.Until != t0.Add(3*time.Hour) || h.Reason != HoldQuota {
		t.Errorf("HoldAt = %+v, %v; want t0+3h, quota", h, ok)
	}
	if _, ok := HoldAt(State{HoldUntil: t0.Add(-time.Second)}, cfg.MaxHold, t0); ok {
		t.Error("HoldAt of a passed hold: in force, want none")
	}
}

// A delay raised by the latency signal below the high knee shows as the
// last signal, with its time, and the Verdict says why.
func TestLatencyRaiseIsASignal(t *testing.T) {
	p := New(noAging(), fixedRand(0))
	p.Restore(State{Host: "a.example", Delay: 2 * time.Second, SetAt: t0}, t0)
	now := t0
	for range 20 {
		now = now.Add(3 * time.Second)
		p.Begin("a.example", now)
		p.Observe("a.example", now, Outcome{Status: 200, TTFB: 100 * time.Millisecond})
	}
	var v Verdict
	for range 5 {
		now = now.Add(3 * time.Second)
		p.Begin("a.example", now)
		if v = p.Observe("a.example", now, Outcome{Status: 200, TTFB: 160 * time.Millisecond}); v.Raised {
			break
		}
	}
	st := p.State("a.example")
	if !v.Raised || v.Congestion || v.Signal != SignalLatency || st.LastSignal != SignalLatency || !st.SignalAt.Equal(now) {
		t.Errorf("Verdict %+v, last signal %q at %v; want a latency raise now", v, st.LastSignal, st.SignalAt.Sub(t0))
	}
}
