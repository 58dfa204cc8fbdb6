package pace

import (
	"testing"
	"time"
)

func TestFloors(t *testing.T) {
	type floor struct {
		d   time.Duration
		src FloorSource
	}
	tests := []struct {
		name    string
		set     []floor
		want    time.Duration
		wantSrc FloorSource
	}{
		{"default", nil, 500 * time.Millisecond, FloorDefault},
		{"floor-host", []floor{{2 * time.Second, FloorHost}}, 2 * time.Second, FloorHost},
		{"crawl-delay", []floor{{5 * time.Second, FloorCrawlDelay}}, 5 * time.Second, FloorCrawlDelay},
		{"request-rate", []floor{{3 * time.Second, FloorRequestRate}}, 3 * time.Second, FloorRequestRate},
		{"ratelimit", []floor{{time.Second, FloorRateLimit}}, time.Second, FloorRateLimit},
		{"below the config floor the default binds", []floor{{100 * time.Millisecond, FloorCrawlDelay}},
			500 * time.Millisecond, FloorDefault},
		{"equal to the config floor the default binds", []floor{{500 * time.Millisecond, FloorHost}},
			500 * time.Millisecond, FloorDefault},
		{"the largest binds", []floor{{2 * time.Second, FloorHost}, {5 * time.Second, FloorCrawlDelay}, {3 * time.Second, FloorRateLimit}},
			5 * time.Second, FloorCrawlDelay},
		{"zero removes a source", []floor{{5 * time.Second, FloorCrawlDelay}, {2 * time.Second, FloorHost}, {0, FloorCrawlDelay}},
			2 * time.Second, FloorHost},
		{"negative removes too", []floor{{5 * time.Second, FloorCrawlDelay}, {-time.Second, FloorCrawlDelay}},
			500 * time.Millisecond, FloorDefault},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := New(noAging(), fixedRand(0))
			p.Restore(State{Host: "a.example", Delay: 20 * time.Second, SetAt: t0}, t0)
			for _, f := range tt.set {
				p.SetFloor("a.example", f.d, f.src)
			}
			if got, src := p.Floor("a.example"); got != tt.want || src != tt.wantSrc {
				t.Errorf("Floor = %v, %s; want %v, %s", got, src, tt.want, tt.wantSrc)
			}
			// Learned decrease never goes below the binding floor, and
			// neither does a jittered gap.
			now := t0
			for i := range 60 {
				now = p.Ready("a.example", now)
				p.Begin("a.example", now)
				p.Observe("a.example", now, ok)
				if d := p.Delay("a.example", now); d < tt.want {
					t.Fatalf("success %d: Delay = %v, below the floor %v", i, d, tt.want)
				}
				if gap := p.Ready("a.example", now).Sub(now); gap < tt.want {
					t.Fatalf("success %d: gap = %v, below the floor %v", i, gap, tt.want)
				}
			}
			if d := p.Delay("a.example", now); d != tt.want {
				t.Errorf("after 60 successes Delay = %v, want the floor %v", d, tt.want)
			}
			if st := p.State("a.example"); st.Floor != tt.want || st.FloorSource != tt.wantSrc {
				t.Errorf("State floor = %v, %s; want %v, %s", st.Floor, st.FloorSource, tt.want, tt.wantSrc)
			}
		})
	}
}

func TestQuota(t *testing.T) {
	cfg := DefaultConfig()
	tests := []struct {
		name      string
		q         Quota
		want      Verdict
		wantFloor time.Duration
		wantSrc   FloorSource
	}{
		{"10 remaining over 20s: one every 2s", Quota{Limit: 100, Remaining: 10, Reset: 20 * time.Second},
			Verdict{}, 2 * time.Second, FloorRateLimit},
		{"no limit sent", Quota{Remaining: 10, Reset: 20 * time.Second},
			Verdict{}, 2 * time.Second, FloorRateLimit},
		{"a generous quota does not bind", Quota{Limit: 1000, Remaining: 1000, Reset: time.Minute},
			Verdict{}, cfg.Floor, FloorDefault},
		{"an enormous remaining does not bind", Quota{Remaining: 1 << 40, Reset: time.Minute},
			Verdict{}, cfg.Floor, FloorDefault},
		{"a daily quota is capped at the ceiling", Quota{Limit: 5, Remaining: 1, Reset: 20 * time.Hour},
			Verdict{}, cfg.Ceiling, FloorRateLimit},
		{"none remaining: hold until reset", Quota{Limit: 10, Remaining: 0, Reset: 30 * time.Second},
			Verdict{Hold: 30 * time.Second, Away: 30 * time.Second}, cfg.Floor, FloorDefault},
		{"none remaining, reset beyond MaxRetryAfter: defer, held until the reset", Quota{Limit: 10, Remaining: 0, Reset: time.Hour},
			Verdict{Hold: cfg.MaxRetryAfter, Defer: true, Away: time.Hour}, cfg.Floor, FloorDefault},
		{"negative remaining is ignored", Quota{Limit: 10, Remaining: -1, Reset: 30 * time.Second},
			Verdict{Capped: "reported"}, cfg.Floor, FloorDefault},
		{"negative limit is ignored", Quota{Limit: -10, Remaining: 1, Reset: 30 * time.Second},
			Verdict{Capped: "reported"}, cfg.Floor, FloorDefault},
		{"zero reset is ignored", Quota{Limit: 10, Remaining: 0, Reset: 0},
			Verdict{Capped: "reported"}, cfg.Floor, FloorDefault},
		{"negative reset is ignored", Quota{Limit: 10, Remaining: 1, Reset: -time.Second},
			Verdict{Capped: "reported"}, cfg.Floor, FloorDefault},
		{"an enormous reset is ignored", Quota{Limit: 10, Remaining: 0, Reset: 1 << 62},
			Verdict{Capped: "reported"}, cfg.Floor, FloorDefault},
		{"more remaining than the limit is ignored", Quota{Limit: 10, Remaining: 11, Reset: 10 * time.Second},
			Verdict{Capped: "reported"}, cfg.Floor, FloorDefault},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := New(cfg, fixedRand(0))
			p.Restore(State{Host: "a.example", Delay: time.Second, SetAt: t0}, t0)
			p.Begin("a.example", t0)
			q := tt.q
			v := p.Observe("a.example", t0, Outcome{Status: 200, TTFB: ms(50), Quota: &q})
			if !sameVerdict(v, tt.want) {
				t.Errorf("Verdict = %+v, want %+v", v, tt.want)
			}
			if d, src := p.Floor("a.example"); d != tt.wantFloor || src != tt.wantSrc {
				t.Errorf("Floor = %v, %s; want %v, %s", d, src, tt.wantFloor, tt.wantSrc)
			}
			wantReady := t0.Add(max(tt.want.Hold, tt.want.Away, tt.wantFloor, 700*time.Millisecond))
			if r := p.Ready("a.example", t0); !r.Equal(wantReady) {
				t.Errorf("Ready = t0+%v, want t0+%v", r.Sub(t0), wantReady.Sub(t0))
			}
		})
	}
}

// TestQuotaUpdates: each response's quota replaces the last one.
func TestQuotaUpdates(t *testing.T) {
	p := New(noAging(), fixedRand(0))
	quotas := []struct {
		q    Quota
		want time.Duration
	}{
		{Quota{Remaining: 10, Reset: 20 * time.Second}, 2 * time.Second},
		{Quota{Remaining: 20, Reset: 10 * time.Second}, 500 * time.Millisecond},
		{Quota{Remaining: 3, Reset: 9 * time.Second}, 3 * time.Second},
	}
	for i, s := range quotas {
		now := t0.Add(time.Duration(i) * time.Minute)
		p.Begin("a.example", now)
		q := s.q
		p.Observe("a.example", now, Outcome{Status: 200, Quota: &q})
		if d, _ := p.Floor("a.example"); d != s.want {
			t.Errorf("quota %d: Floor = %v, want %v", i, d, s.want)
		}
	}
}

// Names paced under one key (a group) share its floor: per source, the
// strictest any name set, until that name drops it.
func TestNameFloorsTheStrictestBinds(t *testing.T) {
	const key = "ip:203.0.113.5"
	type step struct {
		name    string
		d       time.Duration
		src     FloorSource
		want    time.Duration
		wantSrc FloorSource
	}
	steps := []step{
		{"a.example", 5 * time.Second, FloorCrawlDelay, 5 * time.Second, FloorCrawlDelay},
		{"b.example", time.Second, FloorCrawlDelay, 5 * time.Second, FloorCrawlDelay},
		{"c.example", 3 * time.Second, FloorHost, 5 * time.Second, FloorCrawlDelay},
		{"a.example", 0, FloorCrawlDelay, 3 * time.Second, FloorHost},
		{"c.example", 0, FloorHost, time.Second, FloorCrawlDelay},
		{"B.Example", 0, FloorCrawlDelay, 500 * time.Millisecond, FloorDefault},
	}
	p := New(noAging(), fixedRand(0))
	for i, s := range steps {
		p.SetNameFloor(key, s.name, s.d, s.src)
		if got, src := p.Floor(key); got != s.want || src != s.wantSrc {
			t.Errorf("step %d (%s %s=%v): Floor = %v, %s; want %v, %s", i, s.name, s.src, s.d, got, src, s.want, s.wantSrc)
		}
	}
	if got, _ := p.Floor("a.example"); got != 500*time.Millisecond {
		t.Errorf("a name's own key: Floor = %v, want the default (its floors are the group's)", got)
	}
}
