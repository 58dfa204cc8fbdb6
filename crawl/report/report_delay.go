package report

// HighestAfterStart is the highest delay a host reached after the run
// started it (its DelayMaxS): the highest after an answer. The start value
// is where the run began, not a height it climbed to, so a host started at
// a 3 s cold start that settled at 0.7 s and backed off to 2.15 s reads
// 2.15 s. A host with no answer never left its start.
func HighestAfterStart(h *HostStats) float64 {
	if len(h.Timeline) == 0 {
		return h.DelayStartS
	}
	hi := 0.0
	for _, p := range h.Timeline {
		hi = max(hi, p.DelayS)
	}
	return hi
}

// roseAfterStart reports whether the host's delay rose during the run
// above a low it had come down to, and above its floor: a backoff, though
// the delay stayed under a high cold start.
func roseAfterStart(h *HostStats) bool {
	low := h.DelayStartS
	for _, p := range h.Timeline {
		if p.DelayS > low*1.05+0.001 && p.DelayS > h.FloorS*1.05+0.001 {
			return true
		}
		low = min(low, p.DelayS)
	}
	return false
}
