package crawl

import (
	"time"

	"github.com/polite-crawler/polite/crawl/fetch"
	"github.com/polite-crawler/polite/crawl/report"
	"github.com/polite-crawler/polite/pace"
)

// sentAt is when r's request left (after any dial), on the run's clock:
// the client notes Start and Sent on its own clock (the wall's, whatever
// clock paces the run), so the dial's share is carried over to the
// request's start as the run saw it. Zero when it never left.
func sentAt(r result) time.Time {
	if r.resp.Sent.IsZero() || r.resp.Start.IsZero() {
		return time.Time{}
	}
	return r.start.Add(r.resp.Sent.Sub(r.resp.Start))
}

// observe feeds an answer into the host's pacer, counts it in the host's
// statistics and holds the host when the answer keeps it away. throttled
// says the answer was a 429 or 503.
func (s *hostSet) observe(h *hostRun, r result, now time.Time) (v pace.Verdict, throttled bool) {
	resp := r.resp
	s.pacer.Sent(h.pace(), r.start, sentAt(r))
	o := resp.Outcome(r.slow, now)
	v = s.pacer.Observe(h.pace(), now, o)
	if v.Capped != "" {
		s.log.Warn("absurd wait from the server", "host", h.key, "status", resp.Status, "note", v.Capped)
	}
	if v.Raised {
		s.saveState(h.pace(), now)
	}
	if v.Signal == pace.SignalBreaker {
		h.stats.MarkHold(report.HoldMarkBreaker, s.start, now, v.Hold)
	}
	switch {
	case v.Congestion:
		h.backingOff = true
		s.log.Info("host backing off", "host", h.key, "status", resp.Status, "signal", v.Signal,
			"delay", fmtDur(s.pacer.Delay(h.pace(), now)), "hold", fmtDur(v.Hold))
	case resp.Err == nil && resp.Status < 400:
		h.backingOff = false
	}
	throttled = h.count(resp, o.RetryAfter > 0)
	h.stats.Timeline = append(h.stats.Timeline, report.Point{
		AtS:         now.Sub(s.start).Seconds(),
		DelayS:      s.pacer.Delay(h.pace(), now).Seconds(),
		LatencyMS:   report.Millis(resp.TTFB),
		Status:      resp.Answered(),
		RetryAfterS: o.RetryAfter.Seconds(),
	})
	s.log.Debug("fetch", "url", r.url.String(), "status", resp.Status, "ttfb", fmtDur(resp.TTFB),
		"delay", fmtDur(s.pacer.Delay(h.pace(), now)), "err", resp.Reason)
	// How long the server asked polite to stay away (bounded by
	// --max-hold), as a time that the host's entries keep across runs.
	wait := v.Away
	switch {
	case v.Defer:
		s.deferral(h, now, now.Add(wait), causeVerdict)
	case o.RetryAfter > 0:
		s.deferral(h, now, now.Add(wait), causeRunEnd)
	}
	if !h.hold.until.IsZero() {
		// The next run honours it too: the pacer keeps it in the state.
		s.pacer.Hold(h.pace(), now, h.hold.until, pace.HoldRetryAfter)
		s.saveState(h.pace(), now)
	}
	return v, throttled
}

// count adds an answer to the host's statistics; it reports whether the
// answer was a throttle (429 or 503).
func (h *hostRun) count(resp fetch.Response, retryAfter bool) (throttled bool) {
	if resp.Err == nil {
		h.latencies = append(h.latencies, resp.TTFB)
	}
	return h.stats.Count(resp.Status, resp.Err != nil, resp.Reason, len(resp.Body), retryAfter)
}
