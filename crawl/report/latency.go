package report

import (
	"math"
	"sort"
	"time"
)

// latencyExact is how many times to first byte a host's Latencies keeps
// as they are; past it they go into buckets 1% wide, so that what a host
// keeps stays the same size however many pages a run fetches.
const latencyExact = 1024

// latencyStep is the ratio of one bucket's lower bound to the previous.
var latencyStep = math.Log(1.01)

// Latencies are a host's times to first byte for the report's
// percentiles: exact for the first latencyExact answers, then to within
// 1% (the highest stays exact). The zero value is empty.
type Latencies struct {
	exact   []time.Duration
	buckets []int // answers by bucket, once past latencyExact
	n       int
	max     time.Duration
}

// Add counts one answer's time to first byte.
func (l *Latencies) Add(d time.Duration) {
	l.n++
	l.max = max(l.max, d)
	if l.buckets == nil && len(l.exact) < latencyExact {
		l.exact = append(l.exact, d)
		return
	}
	for _, e := range l.exact {
		l.bucket(e)
	}
	l.exact = nil
	l.bucket(d)
}

func (l *Latencies) bucket(d time.Duration) {
	i := int(math.Log1p(float64(max(d.Microseconds(), 0))) / latencyStep)
	if i >= len(l.buckets) {
		l.buckets = append(l.buckets, make([]int, i+1-len(l.buckets))...)
	}
	l.buckets[i]++
}

// quantile is the p-quantile (0 to 1) of what was added; l.n > 0.
func (l *Latencies) quantile(p float64) time.Duration {
	k := int(p*float64(l.n-1) + 0.5)
	if l.buckets == nil {
		return l.exact[k]
	}
	for i, c := range l.buckets {
		if k < c {
			return min(time.Duration(math.Expm1(float64(i)*latencyStep))*time.Microsecond, l.max)
		}
		k -= c
	}
	return l.max
}

// sorted sorts the exact times before quantile reads them.
func (l *Latencies) sorted() *Latencies {
	sort.Slice(l.exact, func(i, j int) bool { return l.exact[i] < l.exact[j] })
	return l
}
