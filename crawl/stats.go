package crawl

import (
	"sort"
	"time"

	"github.com/polite-crawler/polite/crawl/report"
)

// finishStats fills in the host's figures known at the end of the run:
// its highest delay after the start and, from latencies, the times to
// first byte of its answers.
func finishStats(h *report.HostStats, latencies []time.Duration) {
	h.DelayMaxS = report.HighestAfterStart(h)
	if len(latencies) == 0 {
		return
	}
	l := append([]time.Duration(nil), latencies...)
	sort.Slice(l, func(i, j int) bool { return l[i] < l[j] })
	q := func(p float64) float64 { return ms(l[int(p*float64(len(l)-1)+0.5)]) }
	h.P50MS, h.P95MS, h.MaxMS = q(0.5), q(0.95), ms(l[len(l)-1])
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
func secs(d time.Duration) float64 {
	return float64(d.Milliseconds()) / 1000
}

// markHold records a pause of the host that began at at, start being the
// run's start.
func markHold(s *report.HostStats, kind report.HoldKind, start, at time.Time, span time.Duration) {
	if span <= 0 {
		return
	}
	s.Holds = append(s.Holds, report.HoldMark{Kind: kind, AtS: at.Sub(start).Seconds(), SpanS: span.Seconds()})
}
