// Package column is what the SQLite and the PostgreSQL store share about
// how polite's values sit in their columns: times as Unix nanoseconds in
// UTC (the zero time as 0), durations as nanoseconds, and the columns of
// a host's pace state, in one order for both.
package column

import (
	"math"
	"time"

	"github.com/polite-crawler/polite/pace"
)

// Nanos is t as stored: Unix nanoseconds, 0 for the zero time. A time
// past 2262-04-11 or before 1677-09-21 (a server's year 9999 or 0001)
// is stored as the latest or earliest instant an int64 holds, never
// wrapped around to another century.
func Nanos(t time.Time) int64 {
	switch {
	case t.IsZero():
		return 0
	case t.After(maxTime):
		return math.MaxInt64
	case t.Before(minTime):
		return math.MinInt64
	}
	return t.UnixNano()
}

// The instants Nanos stores as they are.
var minTime, maxTime = time.Unix(0, math.MinInt64), time.Unix(0, math.MaxInt64)

// Time is a stored time read back, in UTC; 0 is the zero time.
func Time(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// State lists the columns of a pace.State in table host_state, in the
// order of StateArgs and ScanState.
const State = `host, delay_ns, set_at, baseline_ns, congestion_ns, congestion_at, last_signal, floor_ns, floor_source, hold_until,
	half_life_ns, signal_at, safe_gap_ns, refused_gap_ns, learned_at, learned_half_life_ns, hold_reason`

// StateUpdate is the SET list of an upsert of State: every column but the
// host from the row proposed (excluded).
const StateUpdate = `delay_ns = excluded.delay_ns, set_at = excluded.set_at,
	baseline_ns = excluded.baseline_ns,
	congestion_ns = excluded.congestion_ns, congestion_at = excluded.congestion_at,
	last_signal = excluded.last_signal,
	floor_ns = excluded.floor_ns, floor_source = excluded.floor_source,
	hold_until = excluded.hold_until, hold_reason = excluded.hold_reason,
	half_life_ns = excluded.half_life_ns, signal_at = excluded.signal_at,
	safe_gap_ns = excluded.safe_gap_ns, refused_gap_ns = excluded.refused_gap_ns,
	learned_at = excluded.learned_at, learned_half_life_ns = excluded.learned_half_life_ns`

// StateArgs is st as the values of State's columns.
func StateArgs(st pace.State) []any {
	return []any{st.Host, int64(st.Delay), Nanos(st.SetAt), int64(st.Baseline),
		int64(st.CongestionDelay), Nanos(st.CongestionAt), st.LastSignal,
		int64(st.Floor), string(st.FloorSource), Nanos(st.HoldUntil),
		int64(st.HalfLife), Nanos(st.SignalAt), int64(st.SafeGap), int64(st.RefusedGap),
		Nanos(st.LearnedAt), int64(st.LearnedHalfLife), string(st.HoldReason)}
}

// ScanState reads a row of State's columns with scan (a row's Scan).
func ScanState(scan func(dest ...any) error) (pace.State, error) {
	var (
		st                                         pace.State
		delay, setAt, base, cDelay, cAt, flo, hold int64
		halfLife, sigAt, safe, refused, learnedAt  int64
		learnedHalfLife                            int64
		source, reason                             string
	)
	err := scan(&st.Host, &delay, &setAt, &base, &cDelay, &cAt, &st.LastSignal, &flo, &source, &hold,
		&halfLife, &sigAt, &safe, &refused, &learnedAt, &learnedHalfLife, &reason)
	if err != nil {
		return pace.State{}, err
	}
	st.Delay = time.Duration(delay)
	st.SetAt = Time(setAt)
	st.HalfLife = time.Duration(halfLife)
	st.Baseline = time.Duration(base)
	st.CongestionDelay = time.Duration(cDelay)
	st.CongestionAt = Time(cAt)
	st.SignalAt = Time(sigAt)
	st.SafeGap = time.Duration(safe)
	st.RefusedGap = time.Duration(refused)
	st.LearnedAt = Time(learnedAt)
	st.LearnedHalfLife = time.Duration(learnedHalfLife)
	st.Floor = time.Duration(flo)
	st.FloorSource = pace.FloorSource(source)
	st.HoldUntil = Time(hold)
	st.HoldReason = pace.HoldReason(reason)
	return st, nil
}
