package pace

import (
	"slices"
	"time"
)

// Latency that rises on every host at once is ours, not theirs: a busy
// machine or a congested local link slows every answer. The Pacer keeps the
// latency of the last answers from all hosts, each as a ratio to its own
// host's rolling median; before judging one host's latency it divides by
// the median of the other hosts' recent ratios, when there are enough of
// them and that median is above 1. A single-host crawl is judged as is.
const (
	sharedSize = 32 // recent answers kept, across hosts
	sharedMin  = 8  // answers from other hosts needed to judge
)

// shared is the Pacer's view of latency across hosts.
type shared struct {
	ring [sharedSize]sharedAnswer
	n, i int
}

// sharedAnswer is one answer's latency relative to its host's usual.
type sharedAnswer struct {
	h     *host
	at    time.Time
	ratio float64
}

// add records an answer from h at at.
func (s *shared) add(h *host, at time.Time, ratio float64) {
	s.ring[s.i] = sharedAnswer{h: h, at: at, ratio: ratio}
	s.i = (s.i + 1) % sharedSize
	s.n = min(s.n+1, sharedSize)
}

// factor returns by how much every host is slower than usual, judging by
// the answers of hosts other than h within maxAge of now: the median of
// their ratios, at least 1; 1 when there are too few.
func (s *shared) factor(h *host, now time.Time, maxAge time.Duration) float64 {
	var rs []float64
	for _, a := range s.ring[:s.n] {
		if a.h != h && now.Sub(a.at) <= maxAge {
			rs = append(rs, a.ratio)
		}
	}
	if len(rs) < sharedMin {
		return 1
	}
	slices.Sort(rs)
	m := rs[len(rs)/2]
	if len(rs)%2 == 0 {
		m = (rs[len(rs)/2-1] + m) / 2
	}
	return max(1, m)
}
