package pace

import (
	"sync"
	"time"
)

// Pacer paces every host it is told about. It is safe for concurrent use.
// The zero value is not usable; call New.
type Pacer struct {
	mu   sync.Mutex
	cfg  Config
	rand func() float64
}

// New returns a Pacer. rnd returns uniform values in [0, 1) and drives the
// jitter; nil means math/rand/v2.
func New(cfg Config, rnd func() float64) *Pacer {
	panic("TODO")
}

// Config returns the configuration the Pacer was made with.
func (p *Pacer) Config() Config { return p.cfg }

// Restore starts a host from a stored state: its delay is the aged delay at
// now, its latency baseline and memory of congestion are kept.
func (p *Pacer) Restore(st State, now time.Time) { panic("TODO") }

// State returns the host's state as it should be stored.
func (p *Pacer) State(host string) State { panic("TODO") }

// States returns the state of every host the Pacer knows, sorted by host.
func (p *Pacer) States() []State { panic("TODO") }

// SetFloor sets one source's floor for a host; the largest of the host's
// floors (and Config.Floor) binds. A zero d removes that source's floor.
func (p *Pacer) SetFloor(host string, d time.Duration, src FloorSource) { panic("TODO") }

// Floor returns the floor that binds for host and where it comes from.
func (p *Pacer) Floor(host string) (time.Duration, FloorSource) { panic("TODO") }

// Delay returns the host's current delay at now (never below its floor).
func (p *Pacer) Delay(host string, now time.Time) time.Duration { panic("TODO") }

// Ready returns the earliest time the next request to host may start:
// the last start plus the (jittered) delay, and any hold from Retry-After
// or the breaker. A host never seen is ready at once.
func (p *Pacer) Ready(host string, now time.Time) time.Time { panic("TODO") }

// Begin records that a request to host starts at now.
func (p *Pacer) Begin(host string, now time.Time) { panic("TODO") }

// Observe feeds the outcome of a request to host, answered at now, into the
// controller and returns what it means.
func (p *Pacer) Observe(host string, now time.Time, o Outcome) Verdict { panic("TODO") }

// Backoff returns the next retry wait with decorrelated jitter:
// min(cap, uniform(base, prev*3)). prev is the previous wait (0 for the first).
func Backoff(prev, base, cap time.Duration, rnd func() float64) time.Duration { panic("TODO") }

// ParseRetryAfter reads a Retry-After value, in delay-seconds or HTTP-date
// form, as a wait from now. ok is false for a value that is neither; a date
// in the past is a zero wait. Negative or absurd values never panic.
func ParseRetryAfter(v string, now time.Time) (wait time.Duration, ok bool) { panic("TODO") }
