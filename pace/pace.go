// Package pace decides how long polite waits before its next request to a host.
//
// Every decision takes the current time as an argument; pace never reads a
// clock, never sleeps and does no I/O. A Pacer holds the state of every host
// it has seen and belongs to one goroutine. Most callers want Ready (when
// may the next request to this host start), Begin (one starts now) and
// Observe (this is how it went).
//
// The controller is AIMD over a delay that decays between runs (Aged), with
// four additions measured against simulated origins (sim_test.go):
//
//   - Slow start: before any signal the delay falls by a factor of 0.7 per
//     success (or by Decrease, when that is faster), so a fresh host is not
//     crawled at Start for a dozen requests. It ends at the first congestion
//     or the first latency ratio past the low knee (then the decrease is
//     additive). Until the first congestion the delay does not fall below
//     the recent time to first byte: with several requests allowed in
//     flight, the pacer does not send faster than it hears back.
//   - The careful approach: after a congestion signal the host remembers the
//     pace that was refused and the shortest one that worked, comes back
//     fast to just above the limit, holds, and probes below it only in small
//     steps after a quiet while. See host.go for the rules.
//   - The latency signal: the ratio of a fast to a slow EWMA of time to first
//     byte raises the delay smoothly between LowKnee and HighKnee and counts
//     as congestion past HighKnee. Latency under 50 ms is noise, and a
//     slowdown every host shows at once is ours (a busy machine, a loaded
//     link), so it is discounted (shared.go).
//   - The breaker: BreakerTrips consecutive responses over twice the rolling
//     median hold the host for BreakerCooldown.
//
// Config.Plain turns the additions off (except the breaker) for comparison.
package pace

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// FloorSource names where a host's floor comes from.
type FloorSource string

// The places a floor can come from. The largest floor binds.
const (
	FloorDefault     FloorSource = "default"      // --floor
	FloorHost        FloorSource = "floor-host"   // --floor-host host=DUR
	FloorCrawlDelay  FloorSource = "crawl-delay"  // robots.txt Crawl-delay
	FloorRequestRate FloorSource = "request-rate" // robots.txt Request-rate
	FloorRateLimit   FloorSource = "ratelimit"    // RateLimit / X-RateLimit headers
)

// Config holds the controller's knobs. The zero value is not useful; start
// from DefaultConfig.
type Config struct {
	Floor      time.Duration // lowest delay ever used (default 0.5s)
	Start      time.Duration // delay for a host never seen (default 3s)
	Decrease   time.Duration // additive decrease per success (default 0.25s)
	Multiplier float64       // multiplicative increase on congestion (default 3)
	Ceiling    time.Duration // highest delay (default 120s)
	HalfLife   time.Duration // decay of a stored delay between runs (default 10m)

	// LearnedHalfLife ages what a host showed about its capacity (the
	// shortest gap it took, the gap it refused): every LearnedHalfLife
	// the learned start moves twice as far above the safe gap, and after
	// four it is forgotten (default 7 days; see learned.go).
	LearnedHalfLife time.Duration

	// MaxHold bounds every hold: Retry-After, an exhausted quota, the
	// breaker, a hold kept from an earlier run (default 6h).
	MaxHold time.Duration

	MaxRetryAfter time.Duration // a longer Retry-After defers the host (default 10m)

	LowKnee  float64 // latency ratio fast/slow where the delay starts growing (default 1.15)
	HighKnee float64 // ratio that counts as congestion (default 2.5)

	Jitter float64 // gaps are lengthened by up to this fraction (default 0.02: de-synchronises, costs 1% on average)

	BreakerTrips    int           // consecutive slow responses that trip the breaker (default 4)
	BreakerCooldown time.Duration // pause after the breaker trips (default 30s)

	// Plain turns the controller into textbook AIMD: no slow start, no
	// careful approach to the remembered congestion delay and no latency
	// signal (the breaker, floors, holds and jitter still apply). It is the
	// baseline the benchmarks compare the full controller with, not a mode
	// for real crawls.
	Plain bool
}

// DefaultConfig returns the defaults of polite crawl's flags.
func DefaultConfig() Config {
	return Config{
		Floor:           500 * time.Millisecond,
		Start:           3 * time.Second,
		Decrease:        250 * time.Millisecond,
		Multiplier:      3,
		Ceiling:         120 * time.Second,
		HalfLife:        10 * time.Minute,
		LearnedHalfLife: 7 * 24 * time.Hour,
		MaxHold:         6 * time.Hour,
		MaxRetryAfter:   10 * time.Minute,
		LowKnee:         1.15,
		HighKnee:        2.5,
		Jitter:          0.02,
		BreakerTrips:    4,
		BreakerCooldown: 30 * time.Second,
	}
}

// Validate reports the first knob that makes no sense, naming its flag.
func (c Config) Validate() error {
	switch {
	case c.Floor < 0:
		return errors.New("--floor must not be negative")
	case c.Start < 0:
		return errors.New("--start must not be negative")
	case c.Decrease < 0:
		return errors.New("--decrease must not be negative")
	case c.Multiplier <= 1:
		return fmt.Errorf("--multiplier must be above 1, got %g", c.Multiplier)
	case c.Ceiling <= 0:
		return errors.New("--ceiling must be positive")
	case c.Floor > c.Ceiling:
		return fmt.Errorf("--floor %s is above --ceiling %s", c.Floor, c.Ceiling)
	case c.HalfLife <= 0:
		return errors.New("--half-life must be positive")
	case c.LearnedHalfLife <= 0:
		return errors.New("--learned-half-life must be positive")
	case c.MaxHold <= 0:
		return errors.New("--max-hold must be positive")
	case c.MaxRetryAfter < 0:
		return errors.New("--max-retry-after must not be negative")
	case c.Jitter < 0 || c.Jitter > 1:
		return fmt.Errorf("jitter must be within 0..1, got %g", c.Jitter)
	case !(c.LowKnee >= 1) || !(c.HighKnee > c.LowKnee):
		return fmt.Errorf("latency knees must satisfy 1 <= low < high, got %g and %g", c.LowKnee, c.HighKnee)
	case c.BreakerTrips < 0 || c.BreakerCooldown < 0:
		return errors.New("breaker trips and cooldown must not be negative")
	}
	return nil
}

// State is what polite remembers about a host between runs.
type State struct {
	Host  string
	Delay time.Duration // d: the delay as last set
	SetAt time.Time     // t: when it was set

	HalfLife time.Duration // the half-life Delay ages with, as the crawl had it; 0 when not recorded

	Baseline time.Duration // slow EWMA of time to first byte; 0 when unknown

	CongestionDelay time.Duration // delay in force when the last congestion came (the jittered gap before the refused request); 0 if never
	CongestionAt    time.Time     // when it came
	LastSignal      string        // one of the Signal constants, or ""
	SignalAt        time.Time     // when LastSignal came

	// What the host showed about its capacity, kept apart from the
	// backoff and aged with LearnedHalfLife (see learned.go).
	SafeGap         time.Duration // shortest gap it answered without refusal; 0 when unknown
	RefusedGap      time.Duration // the gap it last refused; 0 when never
	LearnedAt       time.Time     // when either was last learned or confirmed
	LearnedHalfLife time.Duration // as the crawl had it; 0 when not recorded

	Floor       time.Duration // the binding floor when the state was taken
	FloorSource FloorSource

	HoldUntil  time.Time  // no request before it; zero if none
	HoldReason HoldReason // why
}

// StateStore keeps host states between runs. store.DB implements it.
type StateStore interface {
	Load(host string) (State, bool, error)
	Save(State) error
}

// Aged returns the delay a stored state is worth at now:
// max(floor, d * 0.5^((now - t) / halfLife)).
//
// A state set in the future (clock skew) does not decay, a zero or negative
// halfLife means no decay, and the result is never below floor.
func Aged(st State, floor, halfLife time.Duration, now time.Time) time.Duration {
	if st.Delay <= floor {
		return floor
	}
	elapsed := now.Sub(st.SetAt)
	if elapsed <= 0 || halfLife <= 0 {
		return st.Delay
	}
	return max(floor, scale(st.Delay, math.Exp2(-float64(elapsed)/float64(halfLife))))
}

// scale returns d*f rounded to the nanosecond, saturating instead of
// overflowing.
func scale(d time.Duration, f float64) time.Duration {
	x := math.Round(float64(d) * f)
	switch {
	case math.IsNaN(x):
		return 0
	case x >= math.MaxInt64:
		return math.MaxInt64
	case x <= math.MinInt64:
		return math.MinInt64
	}
	return time.Duration(x)
}

// Quota is what a server announced through RateLimit or X-RateLimit headers.
type Quota struct {
	Limit     int           // requests per window; 0 when not sent
	Remaining int           // requests left in this window
	Reset     time.Duration // time until the window resets
}

// Outcome is how one request to a host went.
type Outcome struct {
	Status     int           // HTTP status; 0 for a network error or timeout
	TTFB       time.Duration // time to first byte
	RetryAfter time.Duration // from the Retry-After header, relative to now; 0 when none
	// BadRetryAfter is a Retry-After header that ParseRetryAfter could not
	// read (a negative number, garbage): ignored, and reported in
	// Verdict.Capped.
	BadRetryAfter string
	SlowDown      bool   // the body matched --slow-down-pattern
	Quota         *Quota // nil when the server sent no rate-limit headers
}

// Verdict is what an Outcome means for the host.
type Verdict struct {
	Congestion bool          // the outcome was a congestion signal (429, 503, latency past the high knee, breaker)
	Raised     bool          // the delay went up: persist the state now
	Hold       time.Duration // no request to the host before now+Hold (Retry-After, breaker cooldown); at most MaxHold
	Defer      bool          // Retry-After beyond MaxRetryAfter: leave the host's URLs for the next run

	// Away is how long the server asked polite to stay away (Retry-After,
	// an exhausted quota's reset), bounded by MaxHold: the time the
	// host's URLs wait when the host is deferred.
	Away time.Duration
	// Signal is why the delay went up (one of the Signal constants), ""
	// when it did not: what a log line about backing off should say.
	Signal string
	// Capped is set when the server asked for an absurd wait (a year 9999
	// date, 10^11 seconds, a negative or garbled quota) and MaxHold bounded
	// it: one line for the caller to log, once per answer.
	Capped string
}
