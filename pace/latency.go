package pace

import (
	"slices"
	"time"
)

// The latency signal. Each host keeps a fast and a slow exponentially
// weighted moving average of time to first byte, fed by successful responses
// (status below 400) only: error pages and refusals are served by other code
// paths at other speeds. Their ratio fast/slow says whether the host is
// getting slower than it usually is.
const (
	fastAlpha = 0.3  // weight of a new sample in the fast EWMA
	slowAlpha = 0.02 // weight of a new sample in the slow EWMA (the baseline)

	// warmUp is how many samples a run needs before the ratio is trusted:
	// the first warmUp-1 make the baseline the next ones are judged by.
	warmUp = 5

	// baselinePrior is how many samples a restored baseline is worth: the
	// slow EWMA starts from it but this run's first samples still move it
	// (alpha is max(slowAlpha, 1/(n+baselinePrior))), so a baseline from a
	// different network path is outvoted in a few dozen requests.
	baselinePrior = 20

	// baselineLife is how many half-lives a stored baseline stays usable;
	// an older one is forgotten and the run measures afresh.
	baselineLife = 6

	// latencyNoise is the smallest baseline the ratio and the breaker use:
	// on a LAN or loopback a 0.3 ms response that takes 30 ms because the
	// crawling machine is busy is noise, not a server in trouble, so a
	// response under twice this never signals anything.
	latencyNoise = 0.050 // seconds

	breakerWindow  = 21  // TTFBs in the breaker's rolling median
	breakerMin     = 5   // samples needed before the breaker judges anything
	breakerFactor  = 2.0 // a response this many times the median is slow
	latencyEpsilon = 1e-9
)

// latency is one host's latency state.
type latency struct {
	fast, slow float64 // EWMAs in seconds; 0 when no sample yet
	last       float64 // the latest sample in seconds
	n          int     // samples this run
	prior      float64 // weight of a restored baseline, in samples

	window  [breakerWindow]float64 // last TTFBs, a ring
	wn, wi  int                    // samples in the ring, next slot
	slowRun int                    // consecutive responses over breakerFactor x median
}

// restore starts the slow EWMA from a stored baseline.
func (l *latency) restore(baseline time.Duration) {
	if baseline <= 0 {
		return
	}
	l.slow = baseline.Seconds()
	l.prior = baselinePrior
}

// add feeds one TTFB into both EWMAs and returns the ratio of the fast
// EWMA to the baseline as it stood before this sample (never taken below
// latencyNoise), and whether it is trusted yet (from the warmUp-th sample
// of this run). The baseline is the median of the first samples (breaker
// must have recorded the sample first), then a slow EWMA; a restored
// baseline instead counts as baselinePrior samples averaged with them.
func (l *latency) add(ttfb time.Duration) (ratio float64, trusted bool) {
	x := ttfb.Seconds()
	base := l.slow
	l.last = x
	l.n++
	if l.n == 1 {
		l.fast = x
	} else {
		l.fast += fastAlpha * (x - l.fast)
	}
	switch {
	case l.n <= warmUp && l.prior == 0 && l.wn > 0:
		// Warming up: the median of the samples so far (the breaker's
		// window holds them), so that one quick robots.txt or one slow
		// first connection does not set the baseline.
		l.slow = l.median()
	case l.n <= warmUp:
		l.slow += max(slowAlpha, 1/(float64(l.n)+l.prior)) * (x - l.slow)
	default:
		l.slow += slowAlpha * (x - l.slow)
	}
	if l.n < warmUp || base <= latencyEpsilon {
		return 1, false
	}
	return l.fast / max(base, latencyNoise), true
}

// recent returns how long an answer takes lately: the larger of the fast
// EWMA and the latest sample (so one quick robots.txt does not speak for the
// pages after it); 0 when unknown.
func (l *latency) recent() time.Duration {
	if l.n == 0 {
		return 0
	}
	return scale(time.Second, max(l.fast, l.last))
}

// forgetSpike pulls the fast EWMA back to the baseline after the ratio was
// acted on as congestion, so one spike is one signal (as TCP reacts once per
// round trip) instead of one per response while the average catches up.
func (l *latency) forgetSpike() { l.fast = l.slow }

// baseline returns the slow EWMA as a duration, 0 when unknown.
func (l *latency) baseline() time.Duration {
	if l.slow <= 0 {
		return 0
	}
	return scale(time.Second, l.slow)
}

// breaker records one TTFB in the rolling window and reports whether it
// completes a run of trips consecutive responses over twice the median of
// the responses before it (or over twice latencyNoise, whichever is more).
// The run restarts after tripping and on any response that is not slow.
// trips <= 0 disables the breaker.
//
// Every host being slower by shared (see shared.go) raises the bar as much.
// It also returns the response's ratio to the median, 0 before there is one.
func (l *latency) breaker(ttfb time.Duration, trips int, shared float64) (tripped bool, ratio float64) {
	x := ttfb.Seconds()
	if l.wn >= breakerMin {
		ratio = x / max(l.median(), latencyNoise)
	}
	if ratio > breakerFactor*shared {
		l.slowRun++
		if trips > 0 && l.slowRun >= trips {
			tripped = true
			l.slowRun = 0
		}
	} else {
		l.slowRun = 0
	}
	l.window[l.wi] = x
	l.wi = (l.wi + 1) % breakerWindow
	l.wn = min(l.wn+1, breakerWindow)
	return tripped, ratio
}

// median returns the median of the window.
func (l *latency) median() float64 {
	s := slices.Clone(l.window[:l.wn])
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// transfer is the delay after a successful response whose latency ratio is
// r, given calm, the delay the controller would set with no latency signal,
// and congested, the delay a congestion signal would set (which must not be
// below calm). Up to the low knee it is calm; from the low knee to the high
// knee it rises as a quadratic in the ratio, flat at the low knee so that a
// ratio hovering there barely moves anything, and reaching congested exactly
// at the high knee, where the controller switches to the congestion rule.
// It is continuous and never decreasing in r.
func transfer(calm, congested time.Duration, r, low, high float64) time.Duration {
	if r <= low || high <= low || congested <= calm {
		return calm
	}
	s := 1.0
	if r < high {
		s = (r - low) / (high - low)
		s *= s
	}
	return calm + scale(congested-calm, s)
}
