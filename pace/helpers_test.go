package pace

import (
	"testing"
	"time"
)

// t0 is the virtual clock's origin: every test time is an offset from it.
var t0 = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// fixedRand returns a rand that always draws u.
func fixedRand(u float64) func() float64 { return func() float64 { return u } }

// noAging is DefaultConfig with a half-life of a century, so that the
// seconds a script spans do not age the delay and its arithmetic is exact.
func noAging() Config {
	cfg := DefaultConfig()
	cfg.HalfLife = 100 * 365 * 24 * time.Hour
	return cfg
}

// near reports whether two durations agree within a microsecond.
func near(a, b time.Duration) bool {
	d := a - b
	return d <= time.Microsecond && d >= -time.Microsecond
}

// atReady as a step's offset begins the request as soon as the Pacer allows.
const atReady = -1

// step is one request of a script: it begins at t0+at (or at Ready), is
// answered at once with out, and then the Pacer's verdict should be v and
// its delay want.
type step struct {
	name string
	at   time.Duration
	out  Outcome
	want time.Duration
	v    Verdict
}

// runScript plays steps against p for host and returns the virtual time of
// the last one.
func runScript(t *testing.T, p *Pacer, host string, steps []step) time.Time {
	t.Helper()
	now := t0
	for i, s := range steps {
		if s.at == atReady {
			if r := p.Ready(host, now); r.After(now) {
				now = r
			}
		} else {
			now = t0.Add(s.at)
		}
		p.Begin(host, now)
		v := p.Observe(host, now, s.out)
		if v.Congestion != s.v.Congestion || v.Raised != s.v.Raised || v.Defer != s.v.Defer || !near(v.Hold, s.v.Hold) {
			t.Errorf("step %d (%s): Verdict = %+v, want %+v", i, s.name, v, s.v)
		}
		if got := p.Delay(host, now); !near(got, s.want) {
			t.Errorf("step %d (%s): Delay = %v, want %v", i, s.name, got, s.want)
		}
	}
	return now
}

// ok, tooMany and unavailable are the outcomes scripts use most.
var (
	ok          = Outcome{Status: 200, TTFB: 100 * time.Millisecond}
	tooMany     = Outcome{Status: 429}
	unavailable = Outcome{Status: 503}
)

// ms and sec shorten durations in tables.
func ms(n float64) time.Duration  { return time.Duration(n * float64(time.Millisecond)) }
func sec(n float64) time.Duration { return time.Duration(n * float64(time.Second)) }

// sameVerdict compares two Verdicts; Capped only by whether it is set (its
// text is for people).
func sameVerdict(got, want Verdict) bool {
	g, w := got, want
	g.Capped, w.Capped = "", ""
	return g == w && (got.Capped != "") == (want.Capped != "")
}
