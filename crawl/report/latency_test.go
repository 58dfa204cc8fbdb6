package report

import (
	"math"
	"sort"
	"testing"
	"time"
)

// The report's percentiles of a long run stay within 1% of the exact
// ones while what a host keeps stops growing; a short run's are exact.
func TestLatencyPercentilesLongRunWithinOnePercent(t *testing.T) {
	for _, n := range []int{1, 7, latencyExact, latencyExact + 1, 200_000} {
		var l Latencies
		all := make([]time.Duration, n)
		for i := range n {
			// A spread from 0.2 ms to about 3 s, in no order.
			d := time.Duration(200+(i*7919)%3_000_000) * time.Microsecond
			all[i] = d
			l.Add(d)
		}
		sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
		var h HostStats
		h.Finish(&l)
		want := func(p float64) float64 { return Millis(all[int(p*float64(n-1)+0.5)]) }
		tol := 0.0
		if n > latencyExact {
			tol = 0.01
			if l.exact != nil || len(l.buckets) > 3000 {
				t.Errorf("n=%d: %d exact times and %d buckets kept, want none and a bounded few", n, len(l.exact), len(l.buckets))
			}
		}
		for _, c := range []struct {
			name      string
			got, want float64
		}{{"p50", h.P50MS, want(0.5)}, {"p95", h.P95MS, want(0.95)}, {"max", h.MaxMS, Millis(all[n-1])}} {
			if math.Abs(c.got-c.want) > tol*c.want {
				t.Errorf("n=%d: %s = %g ms, want %g ms (within %g%%)", n, c.name, c.got, c.want, 100*tol)
			}
		}
	}
}
