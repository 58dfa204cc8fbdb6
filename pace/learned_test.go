package pace

import (
	"testing"
	"time"
)

// drive sends n requests to host one at a time, each as soon as p allows,
// against b from start, and returns the time of the last answer and how
// many of the first 30 and of all were refused.
func drive(p *Pacer, host string, b *bucket, start time.Time, n int) (end time.Time, first30, refused int) {
	now := start
	for i := range n {
		if r := p.Ready(host, now); r.After(now) {
			now = r
		}
		p.Begin(host, now)
		status, ttfb, retry := b.serve(now)
		now = now.Add(ttfb)
		p.Observe(host, now, Outcome{Status: status, TTFB: ttfb, RetryAfter: retry})
		if status != 200 {
			refused++
			if i < 30 {
				first30++
			}
		}
	}
	return now, first30, refused
}

// learnOneNight crawls a 1 req/s token bucket for 200 requests from t0 and
// returns the state the run leaves.
func learnOneNight(t *testing.T, cfg Config) (State, time.Time) {
	t.Helper()
	p := New(cfg, fixedRand(0.5))
	end, _, refused := drive(p, "a.example", newBucket(1, 1, 1), t0, 200)
	st := p.State("a.example")
	if refused == 0 || st.SafeGap < time.Second || st.SafeGap > 1100*time.Millisecond || st.RefusedGap >= st.SafeGap {
		t.Fatalf("after one night: %d refused, safe gap %v, refused gap %v; want a refusal, a safe gap within 1s..1.1s above the refused one",
			refused, st.SafeGap, st.RefusedGap)
	}
	return st, end
}

// A night later (the backoff long decayed: 144 half-lives) the run starts
// at the learned safe gap, not at the floor nor at the cold start, and its
// first 30 requests to the same limit earn at most one 429.
func TestNightLaterStartsAtTheLearnedPace(t *testing.T) {
	cfg := DefaultConfig()
	st, end := learnOneNight(t, cfg)
	night := end.Add(24 * time.Hour)
	p := New(cfg, fixedRand(0.5))
	p.Restore(st, night)
	if got := p.Delay("a.example", night); got != st.SafeGap {
		t.Errorf("a night later Delay = %v, want the learned safe gap %v (floor %v, start %v)", got, st.SafeGap, cfg.Floor, cfg.Start)
	}
	_, first30, refused := drive(p, "a.example", newBucket(1, 1, 2), night, 100)
	if first30 > 1 {
		t.Errorf("a night later: %d 429s in the first 30 requests, want at most 1 (%d in 100)", first30, refused)
	}
}

// Weeks later the learned fact has aged away: the run starts cold.
func TestWeeksLaterTheLearnedPaceHasAgedAway(t *testing.T) {
	cfg := DefaultConfig()
	st, end := learnOneNight(t, cfg)
	for _, weeks := range []int{3, 5} {
		later := end.Add(time.Duration(weeks) * 7 * 24 * time.Hour)
		if l, ok := LearnedAt(st, cfg.Start, cfg.LearnedHalfLife, later); ok {
			t.Errorf("%d weeks later LearnedAt = %+v, want aged away", weeks, l)
		}
		p := New(cfg, fixedRand(0))
		p.Restore(st, later)
		if got := p.Delay("a.example", later); got != cfg.Start {
			t.Errorf("%d weeks later Delay = %v, want the cold start %v", weeks, got, cfg.Start)
		}
	}
}

// A refusal at the learned pace lowers the pace again: the refused gap is
// recorded, the safe gap that was refused is dropped, and the next run
// starts above the refusal.
func TestRefusalAtTheLearnedPaceLowersIt(t *testing.T) {
	cfg := DefaultConfig()
	learned := State{Host: "a.example", Delay: 9 * time.Second, SetAt: t0, HalfLife: cfg.HalfLife,
		SafeGap: time.Second, RefusedGap: 900 * time.Millisecond, LearnedAt: t0}
	night := t0.Add(20 * time.Hour)
	p := New(cfg, fixedRand(0))
	p.Restore(learned, night)
	if got := p.Delay("a.example", night); got != time.Second {
		t.Fatalf("restored Delay = %v, want the learned 1s", got)
	}
	now := night
	p.Begin("a.example", now)
	p.Observe("a.example", now, ok)
	now = p.Ready("a.example", now)
	p.Begin("a.example", now)
	v := p.Observe("a.example", now, tooMany) // the host's limit went down
	st := p.State("a.example")
	if !v.Congestion || st.RefusedGap != time.Second || st.SafeGap != 0 || !st.LearnedAt.Equal(now) {
		t.Fatalf("after a 429 at the learned pace: %+v; want refused gap 1s, no safe gap, learned now", st)
	}
	for range 20 { // walk back and settle
		now = p.Ready("a.example", now)
		p.Begin("a.example", now)
		p.Observe("a.example", now, ok)
	}
	st = p.State("a.example")
	l, okL := LearnedAt(st, cfg.Start, cfg.LearnedHalfLife, now.Add(24*time.Hour))
	if !okL || l.Start <= time.Second {
		t.Errorf("the next night's learned start = %+v, %v; want above the refused 1s", l, okL)
	}
	next := New(cfg, fixedRand(0))
	tomorrow := now.Add(24 * time.Hour)
	next.Restore(st, tomorrow)
	if got := next.Delay("a.example", tomorrow); got <= time.Second {
		t.Errorf("the next night starts at %v, want above the refused 1s", got)
	}
}

func TestLearnedAt(t *testing.T) {
	const day = 24 * time.Hour
	hl := 7 * day
	tests := []struct {
		name          string
		safe, refused time.Duration
		age           time.Duration
		wantStart     time.Duration // 0: aged away
		wantRefused   time.Duration
	}{
		{"fresh", time.Second, ms(900), 0, time.Second, ms(900)},
		{"a night", time.Second, ms(900), day, time.Second, ms(900)},
		{"a week: still whole", time.Second, ms(900), hl, time.Second, ms(900)},
		{"a week and a half: widened by sqrt 2", time.Second, ms(900), hl + hl/2, scale(time.Second, 1.4142135623730951), scale(ms(900), 1/1.4142135623730951)},
		{"two weeks: twice", time.Second, ms(900), 2 * hl, 2 * time.Second, ms(450)},
		{"three weeks: past the cold start", time.Second, ms(900), 3 * hl, 0, 0},
		{"a slow host keeps its pace", 10 * time.Second, 8 * time.Second, 3 * hl, 10 * time.Second, 2 * time.Second},
		{"a slow host after four weeks: aged away", 10 * time.Second, 8 * time.Second, 4 * hl, 0, 0},
		{"only a refusal: settle above it", 0, time.Second, day, 1100 * time.Millisecond, time.Second},
		{"a safe gap not above the refusal: settle above the refusal", ms(800), time.Second, day, 1100 * time.Millisecond, time.Second},
		{"nothing learned", 0, 0, day, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := State{SafeGap: tt.safe, RefusedGap: tt.refused, LearnedAt: t0}
			l, ok := LearnedAt(st, 3*time.Second, hl, t0.Add(tt.age))
			if ok != (tt.wantStart > 0) || !near(l.Start, tt.wantStart) || !near(l.Refused, tt.wantRefused) {
				t.Errorf("LearnedAt = %+v, %v; want start %v, refused %v", l, ok, tt.wantStart, tt.wantRefused)
			}
		})
	}
}

// Plain AIMD, the benchmarks' baseline, does not start from what it
// learned.
func TestPlainIgnoresTheLearnedPace(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Plain = true
	p := New(cfg, fixedRand(0))
	p.Restore(State{Host: "a.example", Delay: 9 * time.Second, SetAt: t0, SafeGap: time.Second, LearnedAt: t0}, t0.Add(24*time.Hour))
	if got := p.Delay("a.example", t0.Add(24*time.Hour)); got != cfg.Floor {
		t.Errorf("plain Delay a night later = %v, want the floor %v", got, cfg.Floor)
	}
}
