package report

import (
	"fmt"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// Finish fills in the host's figures known at the end of the run: its
// highest delay after the start and, from latencies, the times to first
// byte of its answers.
func (h *HostStats) Finish(l *Latencies) {
	h.DelayMaxS = HighestAfterStart(h)
	if l == nil || l.n == 0 {
		return
	}
	l.sorted()
	h.P50MS, h.P95MS, h.MaxMS = Millis(l.quantile(0.5)), Millis(l.quantile(0.95)), Millis(l.max)
}

// MarkHold records a pause of the host that began at at, start being the
// run's start.
func (h *HostStats) MarkHold(kind HoldKind, start, at time.Time, span time.Duration) {
	if span <= 0 {
		return
	}
	h.Holds = append(h.Holds, HoldMark{Kind: kind, AtS: at.Sub(start).Seconds(), SpanS: span.Seconds()})
}

// ShortDuration is d as a person reads a short wait: "250ms", "1.5s".
func ShortDuration(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%dms", d.Milliseconds())
	}
	return d.Round(10 * time.Millisecond).String()
}

// Millis is d in milliseconds, as the report's latencies are given.
func Millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// Seconds is d in seconds, to the millisecond, as the report's delays are
// given.
func Seconds(d time.Duration) float64 { return float64(d.Milliseconds()) / 1000 }

// Count adds an answer to the host's figures: its status (0 for none,
// with the failure's reason), its body's size, and whether it carried a
// Retry-After. It reports whether the answer was a throttle (429 or 503).
func (h *HostStats) Count(status int, reason frontier.Reason, bytes int, retryAfter bool) (throttled bool) {
	if retryAfter {
		h.RetryAfters++
	}
	switch {
	case status == 0:
		h.Errors++
		h.LastError = reason
	case status == 304:
		h.S304++
	case status < 300:
		h.S2xx++
	case status < 400:
		h.S3xx++
	case status == 429:
		h.S429++
		throttled = true
	case status < 500:
		h.S4xx++
	default:
		h.S5xx++
		if status == 503 {
			h.S503++
			throttled = true
		}
	}
	h.Bytes += int64(bytes)
	return throttled
}

// RefusedAll reports whether the host refused polite's credentials: it
// was stopped for it (frontier.StopAuth), or it answered 401 or 403 to
// credentials and gave no page all run (a harvest of fewer than
// MaxRefusing URLs with a token gone stale).
func (h *HostStats) RefusedAll() bool {
	return h.Stopped == frontier.StopAuth || h.AuthRefused > 0 && h.S2xx+h.S304 == 0
}

// MaxRefusing is how many 401 or 403 answers in a row, with no 2xx, stop
// a host for the run (frontier.StopAuth): the credentials or the access
// will not change within the run, and each request is one more refused.
const MaxRefusing = 5

// Refusing counts an answer (its status, 0 for none) in the host's run of
// 401 and 403 answers; challenged says the request carried credentials
// or the server asked for them (WWW-Authenticate). At the MaxRefusing-th
// in a row it says why the host stops: "authentication failed" or
// "refused (403)"; otherwise "". Any other answer ends the run of them; a
// network error does not.
func (h *HostStats) Refusing(status int, challenged bool) string {
	switch {
	case status == 0:
		return ""
	case status != 401 && status != 403:
		h.refusing = 0
		return ""
	case challenged:
		h.AuthRefused++
	}
	h.refusing++
	if h.refusing < MaxRefusing {
		return ""
	}
	if challenged || status == 401 {
		return fmt.Sprintf("authentication failed (%d answers %d in a row)", h.refusing, status)
	}
	return fmt.Sprintf("refused (403) %d requests in a row", h.refusing)
}
