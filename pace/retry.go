package pace

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// maxRetryAfter caps an absurd Retry-After (ten years), well inside a
// time.Duration; anything that long defers the host anyway.
const maxRetryAfter = 10 * 365 * 24 * time.Hour

// Backoff returns the next retry wait with decorrelated jitter:
// min(cap, uniform(base, prev*3)). prev is the previous wait (0 for the first).
// A prev below base counts as base; nil rnd means math/rand/v2. The result
// is never negative and never above cap.
func Backoff(prev, base, cap time.Duration, rnd func() float64) time.Duration {
	if rnd == nil {
		rnd = rand.Float64
	}
	base = max(base, 0)
	prev = max(prev, base)
	u := rnd()
	if !(u >= 0) {
		u = 0
	}
	u = min(u, 1)
	hi := 3 * float64(prev)
	w := float64(base) + u*(hi-float64(base))
	if w >= float64(cap) || w >= math.MaxInt64 {
		return max(cap, 0)
	}
	return time.Duration(w)
}

// httpDateFormats are the three forms net/http.ParseTime accepts.
var httpDateFormats = []string{
	"Mon, 02 Jan 2006 15:04:05 GMT", // RFC 7231 IMF-fixdate (http.TimeFormat)
	time.RFC850,                     // obsolete RFC 850
	time.ANSIC,                      // asctime
}

// ParseRetryAfter reads a Retry-After value, in delay-seconds or HTTP-date
// form, as a wait from now. ok is false for a value that is neither; a date
// in the past is a zero wait. Negative or absurd values never panic.
//
// Delay-seconds is one or more digits and nothing else (no sign, no
// fraction); a value beyond ten years is capped there.
func ParseRetryAfter(v string, now time.Time) (wait time.Duration, ok bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if strings.Trim(v, "0123456789") == "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil || n > uint64(maxRetryAfter/time.Second) {
			return maxRetryAfter, true // only digits: too many of them
		}
		return time.Duration(n) * time.Second, true
	}
	for _, f := range httpDateFormats {
		t, err := time.Parse(f, v)
		if err != nil {
			continue
		}
		wait := t.Sub(now)
		if wait < 0 {
			return 0, true
		}
		return min(wait, maxRetryAfter), true
	}
	return 0, false
}
