package pace

import "time"

// Basis names what sets the delay a run starts a host at.
type Basis string

// The bases of a start delay.
const (
	BasisBackoff Basis = "backoff" // the stored delay, aged with the half-life
	BasisLearned Basis = "learned" // the learned safe gap: the backoff has decayed below it
	BasisFloor   Basis = "floor"   // the binding floor
	BasisStart   Basis = "start"   // the cold start: nothing stored, or nothing learned that still holds
)

// Outlook is what a stored state means at a time: where the next run
// starts the host, what sets that, what decayed, what it learned and what
// holds it. polite status shows it; Expect computes it.
type Outlook struct {
	Delay time.Duration // where the next run starts, within floor and ceiling
	From  Basis

	Backoff  time.Duration // the stored delay aged with HalfLife (at least the floor)
	HalfLife time.Duration // the half-life it aged with
	Decayed  bool          // the stored delay was above the floor and no longer binds

	Floor       time.Duration
	FloorSource FloorSource

	Learned         Learned // the learned capacity as aged; zero when none
	HasLearned      bool    // a learned capacity that still holds
	LearnedStored   bool    // one is stored, whether or not it still holds
	LearnedHalfLife time.Duration

	Hold Holding // the hold in force, bounded by MaxHold
	Held bool
}

// BindingFloor returns the floor that binds for a stored state when the
// crawl's default floor (--floor) is def: the floor recorded with the
// state binds, except that def replaces a recorded default floor and binds
// when above a recorded one. def <= 0 means the recorded floor as is (or
// DefaultConfig's when none was recorded).
func BindingFloor(st State, def time.Duration) (time.Duration, FloorSource) {
	floor, src := st.Floor, st.FloorSource
	switch {
	case def <= 0 && src == "":
		return DefaultConfig().Floor, FloorDefault
	case def <= 0:
		return floor, src
	case src == "" || src == FloorDefault || def > floor:
		return def, FloorDefault
	}
	return floor, src
}

// Expect returns what the next run does with a stored state at now, by
// restoring it in a Pacer as a crawl does. cfg holds the crawl's knobs
// (DefaultConfig for those unknown); its Floor is the default floor as
// BindingFloor takes it (0: as recorded). The half-lives the state was
// stored with win over cfg's, so that its aging is the crawl's.
func Expect(st State, cfg Config, now time.Time) Outlook {
	if st.HalfLife > 0 {
		cfg.HalfLife = st.HalfLife
	}
	if st.LearnedHalfLife > 0 {
		cfg.LearnedHalfLife = st.LearnedHalfLife
	}
	cfg.LearnedHalfLife = cfg.learnedHalfLife()
	floor, src := BindingFloor(st, cfg.Floor)
	if cfg.Floor <= 0 || src == FloorDefault {
		cfg.Floor = min(floor, DefaultConfig().Floor)
	}
	if src == FloorDefault {
		cfg.Floor = floor
	}
	p := New(cfg, func() float64 { return 0 })
	if src != FloorDefault {
		p.SetFloor(st.Host, floor, src)
	}
	p.Restore(st, now)
	o := Outlook{
		Delay: p.Delay(st.Host, now), Floor: floor, FloorSource: src,
		HalfLife: cfg.HalfLife, LearnedHalfLife: cfg.LearnedHalfLife,
		LearnedStored: st.SafeGap > 0 || st.RefusedGap > 0,
	}
	o.Backoff = clamp(Aged(st, floor, cfg.HalfLife, now), floor, cfg.Ceiling)
	o.Learned, o.HasLearned = LearnedAt(st, cfg.Start, cfg.LearnedHalfLife, now)
	o.Hold, o.Held = HoldAt(st, cfg.maxHold(), now)
	switch {
	case st.Delay <= 0 || st.SetAt.IsZero():
		o.From = BasisStart
	case o.Delay == o.Backoff && o.Backoff > floor:
		o.From = BasisBackoff
	case o.HasLearned && o.Delay == clamp(o.Learned.Start, floor, cfg.Ceiling) && !cfg.Plain:
		o.From = BasisLearned
	case o.Delay == floor:
		o.From = BasisFloor
	default:
		o.From = BasisStart
	}
	o.Decayed = st.Delay > floor && o.From != BasisBackoff
	return o
}
