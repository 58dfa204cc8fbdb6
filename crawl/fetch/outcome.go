package fetch

import (
	"time"

	"github.com/polite-crawler/polite/pace"
)

// Answered is the status of the answer, 0 when there was none.
func (r Response) Answered() int {
	if r.Err != nil {
		return 0
	}
	return r.Status
}

// Outcome is what the pacer learns from the answer, received at now: its
// status (0 for no answer), time to first byte, a soft block (slow: the
// body matched --slow-down-pattern), and the Retry-After (of a 429 or
// 503) and rate-limit quota it carries.
func (r Response) Outcome(slow bool, now time.Time) pace.Outcome {
	o := pace.Outcome{Status: r.Answered(), TTFB: r.TTFB, SlowDown: slow}
	if r.Header == nil {
		return o
	}
	if ra := r.Header.Get("Retry-After"); ra != "" && (r.Status == 429 || r.Status == 503) {
		if d, ok := pace.ParseRetryAfter(ra, now); ok {
			o.RetryAfter = d
		} else {
			o.BadRetryAfter = ra
		}
	}
	if q, ok := ParseRateLimit(r.Header, now); ok {
		o.Quota = q
	}
	return o
}
