package pace

import (
	"math"
	"time"
)

// Two time scales. A backoff is a claim about the host right now: it decays
// with Config.HalfLife (minutes). What the host showed about its capacity
// is a fact that holds for days: the shortest gap it answered without
// refusal (safe), the gap it last refused (refused) and when either was
// learned or last confirmed. It is kept apart from the backoff, in State's
// SafeGap, RefusedGap and LearnedAt, and ages with Config.LearnedHalfLife.
//
// A run that finds the backoff decayed below it starts at the learned
// start instead of the floor or the cold start, with the careful approach
// primed (the safe gap as the working pace, the refused one as the memory),
// so it holds there and probes down in small steps. The fact is trusted
// whole for learnedGrace learned half-lives (a week by default: every
// nightly run starts exactly at it). After that, aging widens the band:
// each further learned half-life doubles the start's distance ratio above
// the safe gap (safe x 2^(age-grace)) and halves the refused gap. The fact
// is forgotten after learnedLife learned half-lives, or once the widened
// start reaches the cold start, whichever comes first; then the run
// starts cold.
//
// A success at or near the safe gap confirms the fact (its time moves to
// now); a shorter gap that works lowers it; a refusal at or above it drops
// it and records the refused gap, so the next run starts above that.
const (
	learnedGrace   = 1.0 // learned half-lives the fact is trusted whole
	learnedLife    = 4.0 // learned half-lives after which the fact is forgotten
	confirmsWithin = 1.1 // a success at a gap up to this times safe confirms it
)

// learnSafe records a gap answered without refusal: it lowers the safe gap
// when shorter, unless it is not above the refused gap (a burst allowance
// can let one short gap through).
func (h *host) learnSafe(gap time.Duration, now time.Time) {
	if gap <= 0 || gap <= h.refused {
		return
	}
	if h.safe == 0 || gap < h.safe {
		h.safe, h.learnedAt = gap, now
	}
}

// confirm moves the fact's time to now when a success came at or near the
// safe gap.
func (h *host) confirm(gap time.Duration, now time.Time) {
	if h.safe > 0 && gap <= scale(h.safe, confirmsWithin) {
		h.learnedAt = now
	}
}

// learnRefusal records a refused gap; a safe gap at or below it was wrong
// (the server changed) and is dropped.
func (h *host) learnRefusal(gap time.Duration, now time.Time) {
	if gap <= 0 {
		return
	}
	h.refused, h.learnedAt = gap, now
	if h.safe <= gap {
		h.safe = 0
	}
}

// Learned is a state's learned capacity as it stands at a time.
type Learned struct {
	Start   time.Duration // where a run starts when the backoff has decayed below it
	Safe    time.Duration // the safe gap as stored
	Refused time.Duration // the refused gap, aged (lower with age); 0 when none
	Age     time.Duration // since it was learned or last confirmed
}

// LearnedAt returns what st's learned capacity is worth at now, aged with
// halfLife, and false when there is none or it has aged away. start is the
// cold start (Config.Start): a learned start at or above it is no help.
func LearnedAt(st State, start, halfLife time.Duration, now time.Time) (Learned, bool) {
	safe, refused := st.SafeGap, max(0, st.RefusedGap)
	if refused > 0 && safe <= refused {
		// No gap known to work above the refusal: settle above it.
		safe = scale(refused, settleFactor)
	}
	if safe <= 0 || st.LearnedAt.IsZero() {
		return Learned{}, false
	}
	age := max(0, now.Sub(st.LearnedAt))
	halves := 0.0
	if halfLife > 0 {
		halves = float64(age) / float64(halfLife)
	}
	if halves >= learnedLife {
		return Learned{}, false
	}
	widen := math.Exp2(max(0, halves-learnedGrace))
	l := Learned{Safe: safe, Refused: scale(refused, 1/widen), Age: age, Start: safe}
	if safe < start {
		l.Start = scale(safe, widen)
		if l.Start >= start {
			return Learned{}, false // no better than starting cold
		}
	}
	return l, true
}

// restoreLearned primes a restored host with its learned capacity: the
// delay starts at the learned start when the backoff has decayed below it
// (at the cold start when nothing is learned and it has decayed to the floor),
// the careful approach knows the safe gap as working and the refused one
// as its memory (unless this run's memory is fresher).
func (h *host) restoreLearned(cfg Config, st State, now time.Time) {
	h.safe, h.refused, h.learnedAt = max(0, st.SafeGap), max(0, st.RefusedGap), st.LearnedAt
	if cfg.Plain {
		return
	}
	l, ok := LearnedAt(st, cfg.Start, cfg.learnedHalfLife(), now)
	if !ok {
		// Nothing learned, or aged away: a backoff decayed to the floor
		// says nothing either, so start cold (slow start finds the floor
		// in a few requests if the host takes it) instead of at the floor.
		floor, _ := h.floor(cfg)
		stale := float64(now.Sub(st.SetAt)) >= memoryLife*float64(cfg.HalfLife)
		if h.seen && stale && h.memEffective(cfg, now) == 0 && h.delayAt(cfg, now) <= floor && cfg.Start > floor {
			h.set(cfg.Start, now)
		}
		return
	}
	if h.memEffective(cfg, now) == 0 && l.Refused > 0 {
		h.mem, h.memAt = l.Refused, now
	}
	if l.Start > h.delayAt(cfg, now) {
		h.set(l.Start, now)
	}
	if h.mem == 0 || l.Start > h.mem {
		h.hi = l.Start
	}
	h.noSlowStart = h.mem != 0
	h.calmSince = 1 // a first refusal is news, not the echo of the stored one
}

// learnedHalfLife returns LearnedHalfLife, or its default when unset.
func (c Config) learnedHalfLife() time.Duration {
	if c.LearnedHalfLife > 0 {
		return c.LearnedHalfLife
	}
	return DefaultConfig().LearnedHalfLife
}
