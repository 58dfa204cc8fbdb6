package pace

import (
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// Pacer paces every host it is told about. It is not safe for concurrent
// use: one goroutine (a crawl's loop) owns it.
// The zero value is not usable; call New.
//
// Hosts are keyed by the string callers pass (lowercased): polite uses the
// host plus any non-default port.
type Pacer struct {
	cfg    Config
	rand   func() float64
	hosts  map[string]*host
	shared shared // latency across hosts
}

// New returns a Pacer. rnd returns uniform values in [0, 1) and drives the
// jitter; nil means math/rand/v2.
func New(cfg Config, rnd func() float64) *Pacer {
	if rnd == nil {
		rnd = rand.Float64
	}
	return &Pacer{cfg: cfg, rand: rnd, hosts: make(map[string]*host)}
}

// Config returns the configuration the Pacer was made with.
func (p *Pacer) Config() Config { return p.cfg }

// lookup returns the host, or nil.
func (p *Pacer) lookup(name string) *host { return p.hosts[strings.ToLower(name)] }

// entry returns the host, creating it without a delay.
func (p *Pacer) entry(name string) *host {
	key := strings.ToLower(name)
	h := p.hosts[key]
	if h == nil {
		h = &host{key: key}
		p.hosts[key] = h
	}
	return h
}

// started returns the host, giving it the start delay at now if it has none.
func (p *Pacer) started(name string, now time.Time) *host {
	h := p.entry(name)
	if !h.seen {
		h.set(p.cfg.Start, now)
	}
	return h
}

// Restore starts a host from a stored state: its delay is the aged delay at
// now, or the learned start when the backoff has decayed below it (see
// learned.go); its latency baseline and memory of congestion are kept.
//
// A state with no delay or no time starts at Config.Start. The baseline is
// forgotten when the state is more than six half-lives old; the memory of
// congestion ages on its own clock (see the package's careful approach).
// Floors are not restored: the robots.txt, flags and headers that set them
// set them again. A stored hold still in force is kept, bounded by
// now+MaxHold; Restore returns a note for the log when it cut one.
func (p *Pacer) Restore(st State, now time.Time) string {
	h := p.entry(st.Host)
	if st.Delay > 0 && !st.SetAt.IsZero() {
		h.d, h.setAt, h.seen = st.Delay, st.SetAt, true
	} else {
		h.set(p.cfg.Start, now)
	}
	h.lat = latency{}
	if age := now.Sub(st.SetAt); st.Baseline > 0 && age < baselineLife*p.cfg.HalfLife {
		h.lat.restore(st.Baseline)
	}
	h.mem, h.memAt = max(0, st.CongestionDelay), st.CongestionAt
	h.lastSignal, h.signalAt = st.LastSignal, st.SignalAt
	h.forgetApproach()
	note := h.restoreHold(p.cfg, st, now)
	// A run that starts right after another waits, from the last answer
	// the other run got, the delay a single longer run would have waited.
	if h.seen && h.lastBegin.IsZero() && st.SetAt.Add(h.delayAt(p.cfg, now)).After(now) {
		h.lastBegin, h.restoredBegin = st.SetAt, true
	}
	h.restoreLearned(p.cfg, st, now)
	return note
}

// State returns the host's state as it should be stored.
func (p *Pacer) State(host string) State {
	h := p.lookup(host)
	if h == nil {
		return State{Host: strings.ToLower(host), Floor: p.cfg.Floor, FloorSource: FloorDefault}
	}
	return p.state(h)
}

func (p *Pacer) state(h *host) State {
	st := State{
		Host:            h.key,
		Baseline:        h.lat.baseline(),
		CongestionDelay: h.mem,
		CongestionAt:    h.memAt,
		LastSignal:      h.lastSignal,
		SignalAt:        h.signalAt,
		HalfLife:        p.cfg.HalfLife,
		SafeGap:         h.safe,
		RefusedGap:      h.refused,
		LearnedAt:       h.learnedAt,
		LearnedHalfLife: p.cfg.learnedHalfLife(),
	}
	if h.seen {
		st.Delay, st.SetAt = h.d, h.setAt
	}
	st.Floor, st.FloorSource = h.floor(p.cfg)
	st.HoldUntil, st.HoldReason = h.holdUntil, h.holdReason
	return st
}

// States returns the state of every host the Pacer knows, sorted by host.
func (p *Pacer) States() []State {
	out := make([]State, 0, len(p.hosts))
	for _, h := range p.hosts {
		out = append(out, p.state(h))
	}
	slices.SortFunc(out, func(a, b State) int { return strings.Compare(a.Host, b.Host) })
	return out
}

// SetFloor sets one source's floor for a host; the largest of the host's
// floors (and Config.Floor) binds. A zero d removes that source's floor.
func (p *Pacer) SetFloor(host string, d time.Duration, src FloorSource) {
	h := p.entry(host)
	if d <= 0 {
		delete(h.floors, src)
		return
	}
	if h.floors == nil {
		h.floors = make(map[FloorSource]time.Duration)
	}
	h.floors[src] = d
}

// Floor returns the floor that binds for host and where it comes from.
// Config.Floor binds (FloorDefault) unless a source sets a larger one.
func (p *Pacer) Floor(host string) (time.Duration, FloorSource) {
	h := p.lookup(host)
	if h == nil {
		return p.cfg.Floor, FloorDefault
	}
	return h.floor(p.cfg)
}

// Delay returns the host's current delay at now (never below its floor).
func (p *Pacer) Delay(host string, now time.Time) time.Duration {
	h := p.lookup(host)
	if h == nil {
		return clamp(p.cfg.Start, p.cfg.Floor, p.cfg.Ceiling)
	}
	return h.delayAt(p.cfg, now)
}

// Ready returns the earliest time the next request to host may start:
// the last start plus the (jittered) delay, and any hold from Retry-After
// or the breaker. A host never seen is ready at once.
//
// The result may lie before now: the host is ready when it is not after now.
// It does not change between calls until the next Begin or Observe.
func (p *Pacer) Ready(host string, now time.Time) time.Time {
	h := p.lookup(host)
	if h == nil {
		return now
	}
	if r := h.ready(p.cfg); !r.IsZero() {
		return r
	}
	return now
}

// Begin records that a request to host starts at now, and draws the jitter
// of the gap that follows it. Observe matches each answer to the request
// it belongs to by its TTFB (the latest begun no later than now-TTFB; the
// oldest when TTFB is 0), so that with several requests in flight an
// answer to one sent before a raise does not raise again.
func (p *Pacer) Begin(host string, now time.Time) {
	h := p.started(host, now)
	gap := h.delayAt(p.cfg, now)
	if !h.lastBegin.IsZero() && !h.restoredBegin {
		// The pace this request is sent at: the time since the previous
		// one, as the server sees it. Not the delay that was asked for:
		// a caller that sends late (a slow store, a busy machine) would
		// otherwise credit the host with a pace it never took, and the
		// careful approach would settle below what it knows to work.
		floor, _ := h.floor(p.cfg)
		gap = max(floor, now.Sub(h.lastBegin))
	}
	if len(h.flight) == maxFlight {
		h.flight = h.flight[1:]
	}
	h.flight = append(h.flight, flight{at: now, gap: gap})
	h.lastBegin, h.restoredBegin = now, false
	u := p.rand()
	if !(u >= 0) { // negative or NaN
		u = 0
	}
	h.u = min(u, 1)
}

// Sent says that the request to host begun at begun left at sent: after
// its connection was dialled and its TLS handshake done, when it was
// written. The next request's gap is measured from there, so that a
// server, which sees a request only when it arrives, sees at least the
// delay between the two; otherwise a run's first request, slowed by its
// connection, arrives late and the second one, on the open connection,
// arrives early. Ignored when another request has begun since, or sent is
// not after begun.
func (p *Pacer) Sent(host string, begun, sent time.Time) {
	h := p.lookup(host)
	if h == nil || !h.lastBegin.Equal(begun) || !sent.After(begun) {
		return
	}
	h.lastBegin = sent
}
