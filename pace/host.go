package pace

import (
	"math"
	"time"
)

// The careful approach. After a congestion signal a host remembers the
// pace in force when it came (mem: the jittered gap that preceded the
// refused request) and the shortest gap that has worked since (hi; in
// burst-free token buckets a gap that worked once always works). It walks
// back to a target: hi when one is known above mem, otherwise mem times a
// settle factor (1.1: a gap lengthened by the full default jitter never
// repeats the refused one). The walk halves the delay while it is more
// than wellAbove times the target, then takes the additive Decrease (or an
// eighth of the distance when that is more). At the target it holds; after
// probeQuiet quiet successes it probes a small step down towards mem (half
// the distance, at most probeStep of the delay), never closer than half of
// probeRoom above it, and stops probing once within probeRoom of it: the
// steady state sits just above the limit instead of sawing through it. A
// failed probe walks back to hi, which the probe's own successes may have
// lowered.
//
// Three refinements keep the memory honest. A signal with no success
// since the previous one is its echo (a queue still draining, a sliding
// window still full) and does not raise the memory. A refusal clearly
// above the memory (burstBand) after settling, not during a probe, means
// the memory was too low (a burst allowance hid the limit), so the settle
// factor grows by 1.1 each time, up to maxSettle; one just above it is
// noise at the limit and leaves the factor alone. And a refusal at an
// operating point that has held for noiseQuiet successes, at a gap within
// burstBand of one that worked, is noise too (a request that arrived early
// after one that arrived late): the delay backs off as for any refusal,
// then walks back to the same point, and nothing learned changes. So at
// most one refusal in noiseQuiet requests is forgiven; a second one
// sooner is news.
//
// The memory ages: it is trusted whole for memoryGrace half-lives, then
// decays like a stored delay (so probes may go lower), and after memoryLife
// half-lives it is forgotten.
const (
	slowStartFactor = 0.7  // per-success multiplier before any signal
	settleFactor    = 1.1  // target over mem when no working gap is known
	maxSettle       = 2.0  // the most the settle factor grows to
	wellAbove       = 1.5  // above this many times the target the walk back halves
	probeQuiet      = 6    // quiet successes at a delay before probing below it
	probeFraction   = 0.5  // a probe goes at most this part of the way to mem
	probeStep       = 0.03 // and at most this fraction of the delay
	probeRoom       = 0.03 // no probe within 3% of mem
	memoryGrace     = 1.0  // half-lives the memory is trusted whole
	memoryLife      = 4.0  // half-lives after which the memory is forgotten
	burstBand       = 1.05 // a refusal this far above the memory means a burst hid the limit
	noiseQuiet      = 100  // successes at an operating point before a refusal there may be noise
	slowDownFactor  = 1.5  // a soft block (Outcome.SlowDown) multiplies by this
	snapTolerance   = 0.01 // aging under 1% within a run does not move the operating point
)

// Signals recorded in State.LastSignal and Verdict.Signal: why a host's
// delay went up.
const (
	Signal429      = "429"
	Signal503      = "503"
	SignalLatency  = "latency"
	SignalSlowDown = "slow-down"
	SignalBreaker  = "breaker"
)

// host is everything a Pacer knows about one host.
type host struct {
	key string

	seen  bool          // d and setAt hold a delay
	d     time.Duration // the delay as last set
	setAt time.Time

	floors     map[FloorSource]time.Duration
	nameFloors map[FloorSource]map[string]time.Duration // each name's, when several share the key (SetNameFloor)

	lat latency

	// Memory of the last congestion (persisted).
	mem        time.Duration
	memAt      time.Time
	lastSignal string
	signalAt   time.Time

	// What the host showed about its capacity (persisted, aged with
	// Config.LearnedHalfLife; see learned.go).
	safe      time.Duration // shortest gap answered without refusal; 0 when unknown
	refused   time.Duration // the gap last refused; 0 when never
	learnedAt time.Time

	// The careful approach (this run only).
	hi     time.Duration // shortest gap answered without refusal; 0 when unknown
	op     time.Duration // current operating point; 0 while walking back
	quiet  int           // successes at op since the last probe
	held   int           // successes at op since it last moved
	probed bool          // op was lowered by a probe since the last congestion
	settle float64       // target over mem without hi; grows on repeated refusals

	noSlowStart bool // a congestion or latency signal came this run
	calmSince   int  // successes since the last congestion signal

	// Gaps.
	lastBegin time.Time
	// restoredBegin: lastBegin is the previous run's last answer (Restore),
	// a time to wait from, not a request whose pace Begin should measure.
	restoredBegin bool
	u             float64  // jitter draw for the gap after lastBegin
	flight        []flight // requests begun and not yet observed, oldest first
	holdUntil     time.Time
	holdReason    HoldReason
	raisedAt      time.Time // when the delay was last raised
}

// flight is a request begun and not yet observed.
type flight struct {
	at  time.Time     // when it began
	gap time.Duration // the pace it was sent at
}

// maxFlight bounds the requests remembered in flight; a caller that begins
// requests and never reports them loses the oldest.
const maxFlight = 64

// match returns the index in flight of the request an answer observed at
// now after ttfb belongs to: the latest one begun no later than now-ttfb;
// without a ttfb, the oldest. -1 when none is in flight. Requests begun
// and never observed (a redirect hop, a cancelled fetch) are thus passed
// over instead of shifting every later answer onto the wrong request.
func (h *host) match(now time.Time, ttfb time.Duration) int {
	if len(h.flight) == 0 {
		return -1
	}
	if ttfb > 0 {
		cutoff := now.Add(-ttfb)
		for i := len(h.flight) - 1; i >= 0; i-- {
			if !h.flight[i].at.After(cutoff) {
				return i
			}
		}
	}
	return 0
}

// stale reports whether a request begun at began was sent before the last
// raise: its answer says nothing about the raised pace.
func (h *host) stale(began time.Time) bool {
	return !began.IsZero() && !h.raisedAt.IsZero() && began.Before(h.raisedAt)
}

// floor returns the binding floor and its source.
func (h *host) floor(cfg Config) (time.Duration, FloorSource) {
	best, src := cfg.Floor, FloorDefault
	for _, s := range floorOrder {
		if d, ok := h.floors[s]; ok && d > best {
			best, src = d, s
		}
	}
	return best, src
}

// floorOrder fixes which source is reported when two floors tie.
var floorOrder = []FloorSource{FloorDefault, FloorHost, FloorCrawlDelay, FloorRequestRate, FloorRateLimit}

// clamp keeps d within [floor, ceiling]; the floor wins over the ceiling.
func clamp(d, floor, ceiling time.Duration) time.Duration {
	return max(floor, min(ceiling, d))
}

// delayAt returns the aged delay at now, within floor and ceiling.
func (h *host) delayAt(cfg Config, now time.Time) time.Duration {
	floor, _ := h.floor(cfg)
	if !h.seen {
		return clamp(cfg.Start, floor, cfg.Ceiling)
	}
	return clamp(Aged(State{Delay: h.d, SetAt: h.setAt}, floor, cfg.HalfLife, now), floor, cfg.Ceiling)
}

// set records a new delay at now.
func (h *host) set(d time.Duration, now time.Time) {
	h.d, h.setAt, h.seen = d, now, true
}

// gap returns the wait after lastBegin: the delay (aged to the later of the
// last change and lastBegin, so that it does not drift between calls)
// lengthened by the jitter drawn at Begin, never below the floor.
func (h *host) gap(cfg Config) time.Duration {
	at := h.lastBegin
	if h.setAt.After(at) {
		at = h.setAt
	}
	d := h.delayAt(cfg, at)
	floor, _ := h.floor(cfg)
	return max(floor, scale(d, 1+h.u*cfg.Jitter))
}

// ready returns when the next request may start; zero when nothing holds it.
func (h *host) ready(cfg Config) time.Time {
	r := h.holdUntil
	if !h.lastBegin.IsZero() {
		if t := h.lastBegin.Add(h.gap(cfg)); t.After(r) {
			r = t
		}
	}
	return r
}

// memEffective returns the remembered congestion gap as it stands at now:
// whole for memoryGrace half-lives, then decaying; 0 once forgotten.
func (h *host) memEffective(cfg Config, now time.Time) time.Duration {
	if h.mem <= 0 {
		return 0
	}
	age := now.Sub(h.memAt)
	if age < 0 {
		age = 0
	}
	hl := float64(cfg.HalfLife)
	if hl <= 0 {
		return h.mem
	}
	halves := float64(age) / hl
	switch {
	case halves >= memoryLife:
		return 0
	case halves <= memoryGrace:
		return h.mem
	}
	return scale(h.mem, math.Exp2(-(halves - memoryGrace)))
}

// forgetApproach drops what this run learned about operating points.
func (h *host) forgetApproach() {
	h.hi, h.op, h.quiet, h.probed, h.settle = 0, 0, 0, false, 0
}

// target is where the careful approach settles.
func (h *host) target(mem, floor time.Duration) time.Duration {
	if h.hi > scale(mem, 1+probeRoom/2) {
		return max(floor, h.hi)
	}
	return max(floor, scale(mem, max(settleFactor, h.settle)))
}

// calm returns the delay after a success when latency says nothing.
func (h *host) calm(cfg Config, aged, gap time.Duration, now time.Time) time.Duration {
	floor, _ := h.floor(cfg)
	h.calmSince++
	if (h.op != 0 || h.mem == 0) && (h.hi == 0 || gap < h.hi) {
		h.hi = gap // not while walking back: those gaps are long on purpose
		h.learnSafe(gap, now)
	}
	h.confirm(gap, now)
	if cfg.Plain {
		return max(floor, aged-cfg.Decrease)
	}
	mem := h.memEffective(cfg, now)
	if mem == 0 {
		if h.mem != 0 { // forgotten
			h.mem, h.memAt = 0, time.Time{}
			h.forgetApproach()
			h.hi = gap
		}
		// Slow start: the faster of multiplicative and additive decrease;
		// after a latency signal, additive only. Either is clocked by
		// answers as TCP's slow start is: not below the time an answer
		// takes, so the pacer never has more requests in the air than it
		// has heard back from while it knows nothing of the limit.
		d := max(floor, aged-cfg.Decrease)
		if !h.noSlowStart {
			d = max(floor, min(d, scale(aged, slowStartFactor)))
		}
		if rtt := h.lat.recent(); d < rtt {
			d = min(aged, rtt)
		}
		return d
	}
	t := h.target(mem, floor)
	if h.op == 0 {
		d := walkBack(aged, t, cfg.Decrease)
		if d <= t {
			h.op, h.quiet, h.held = d, 0, 0
		}
		return d
	}
	if aged > scale(h.op, 1+snapTolerance) {
		// Raised by the latency signal since: walk back to the operating point.
		return walkBack(aged, h.op, cfg.Decrease)
	}
	h.quiet++
	h.held++
	if h.quiet < probeQuiet {
		return h.op
	}
	// The operating point held for a quiet while: probe a step down
	// towards the memory if there is room.
	h.quiet = 0
	if h.op > scale(mem, 1+probeRoom) {
		step := min(scale(h.op-mem, probeFraction), scale(h.op, probeStep))
		h.op = max(floor, h.op-step, scale(mem, 1+probeRoom/2))
		h.probed, h.held = true, 0
	}
	return h.op
}

// walkBack moves a delay above target towards it: halving it while more
// than wellAbove times the target (fast, after a backoff); closer in, by
// the additive decrease or an eighth of the distance, whichever is more (a
// minute-long delay should not come down a quarter second at a time);
// never below the target.
func walkBack(aged, target, decrease time.Duration) time.Duration {
	if aged <= target {
		return aged
	}
	d := min(aged-decrease, aged-(aged-target)/8)
	if aged > scale(target, wellAbove) {
		d = min(d, aged/2)
	}
	return max(target, d)
}

// congest applies a congestion signal at now for a request begun at began
// with gap in force: the delay is multiplied and the gap remembered, once
// per round trip (the answer to a request sent before the last raise
// changes nothing but the last signal).
func (h *host) congest(cfg Config, aged, gap time.Duration, began time.Time, signal string, factor float64, now time.Time) time.Duration {
	floor, _ := h.floor(cfg)
	h.lastSignal, h.signalAt = signal, now
	if h.stale(began) {
		return aged
	}
	h.raisedAt = now
	raised := max(floor, min(cfg.Ceiling, scale(max(aged, minCongestionBase), factor)))
	if h.noise(signal, gap) {
		// The operating point held for a long while and a gap no shorter
		// than ones that worked was refused: noise at the limit (a
		// request that arrived early after one that arrived late), not
		// news about the host. Back off as for any refusal, then come
		// back to the same operating point; what was learned stands. A
		// second refusal before the point holds as long again is news.
		h.memAt, h.held, h.quiet, h.calmSince = now, 0, 0, 0
		h.lat.slowRun = 0
		return raised
	}
	switch old := h.memEffective(cfg, now); {
	case old > 0 && h.calmSince == 0:
		// No success since the last signal: this one is its echo (a queue
		// still draining, a sliding window still full), not news about a
		// slower pace. Keep the lower memory.
		gap = min(gap, old)
	case h.probed:
		h.settle = settleFactor // a probe found the limit: the memory is close
	case old > 0 && gap >= scale(old, burstBand):
		// Refused again clearly above the memory without probing: the
		// memory underestimates (a burst allowance hid the limit), so the
		// next target keeps further away.
		h.settle = min(maxSettle, max(settleFactor, h.settle)*settleFactor)
	case old > 0 && gap >= old:
		// Refused just above the memory: the operating point was near the
		// limit and noise (in the network, in the sender) crossed it. The
		// memory moves up to this gap; the settle factor stays.
		h.settle = settleFactor
	}
	h.mem, h.memAt = gap, now
	if signal != SignalBreaker { // a pause for slowness, not a word about the pace
		h.learnRefusal(gap, now)
	}
	h.lat.slowRun = 0 // the controller has acted: the breaker starts counting afresh
	h.noSlowStart = true
	if gap >= h.hi {
		h.hi = 0 // a gap that worked before was refused: the server changed
	}
	h.op, h.quiet, h.probed, h.calmSince = 0, 0, false, 0
	return raised
}

// noise reports whether a refusal (signal) of a request sent gap after the
// one before it is noise at the operating point: the point held for
// noiseQuiet answers, and gap is within burstBand of the shortest gap that
// worked.
func (h *host) noise(signal string, gap time.Duration) bool {
	return (signal == Signal429 || signal == Signal503) && h.op > 0 && h.held >= noiseQuiet &&
		h.hi > 0 && gap < scale(h.hi, burstBand)
}

// minCongestionBase is the least delay a congestion signal multiplies: with
// --floor 0 a host crawled flat out would otherwise stay at 0 x 3 = 0. It
// is small, so that it never outweighs the delay of a host paced at
// tenths of a second (or a time-scaled benchmark's).
const minCongestionBase = 10 * time.Millisecond
