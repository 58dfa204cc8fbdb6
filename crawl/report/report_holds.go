package report

// HoldKind names a pause a host took during a run that report.html draws
// on its timeline.
type HoldKind string

// The pauses drawn. A Retry-After wait is drawn from the answer that asked
// for it (Point.RetryAfterS).
const (
	HoldMarkBreaker     HoldKind = "breaker"      // the latency breaker's cooldown
	HoldMarkRobotsRetry HoldKind = "robots-retry" // robots.txt unreachable: the host waits to ask again
)

// HoldMark is one pause on a host's timeline: from AtS for SpanS seconds.
type HoldMark struct {
	Kind  HoldKind `json:"kind"`
	AtS   float64  `json:"t"`    // seconds since the run started
	SpanS float64  `json:"span"` // how long, in seconds
}

// hasHold reports whether the host took a pause of kind.
func (s *HostStats) hasHold(kind HoldKind) bool {
	for _, m := range s.Holds {
		if m.Kind == kind {
			return true
		}
	}
	return false
}
