package crawl

import (
	"fmt"
	"time"

	"github.com/polite-crawler/polite/crawl/fetch"
	"github.com/polite-crawler/polite/crawl/frontier"
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
			"delay_s", report.Seconds(s.pacer.Delay(h.pace(), now)), "hold_s", report.Seconds(v.Hold))
	case resp.Err == nil && resp.Status < 400:
		h.backingOff = false
	}
	throttled = h.count(resp, o.RetryAfter > 0)
	s.refusals(h, resp)
	h.stats.AddPoint(report.Point{
		AtS:         now.Sub(s.start).Seconds(),
		DelayS:      s.pacer.Delay(h.pace(), now).Seconds(),
		LatencyMS:   report.Millis(resp.TTFB),
		Status:      resp.Answered(),
		RetryAfterS: o.RetryAfter.Seconds(),
	})
	s.log.Debug("fetch", "url", r.url.String(), "status", resp.Status, "ttfb_ms", report.Millis(resp.TTFB),
		"delay_s", report.Seconds(s.pacer.Delay(h.pace(), now)), "err", resp.Reason)
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

// maxRefused is how many connections in a row a host may refuse before it
// gets no more requests this run: a closed port does not open in a
// minute, and each try is one more for nothing.
const maxRefused = 3

// refusedWait bounds the wait before robots.txt is asked again of a host
// that refused the connection, so that its maxRefused tries take at most
// 2 x refusedWait.
const refusedWait = 10 * time.Second

// refusals counts the connections h refused in a row and stops it at
// maxRefused, and the 401 and 403 answers in a row (HostStats.Refusing):
// its URLs wait for the next run.
func (s *hostSet) refusals(h *hostRun, resp fetch.Response) {
	if why := h.stats.Refusing(resp.Answered(), resp.Challenged()); why != "" && !h.held() {
		h.stop(leaveResume, frontier.StopAuth, why+": URLs wait for the next run", time.Time{})
	}
	switch {
	case resp.Reason == frontier.ReasonRefused:
		h.refused++
	case resp.Err == nil:
		h.refused = 0
	}
	if h.refused < maxRefused || h.held() {
		return
	}
	h.stop(leaveDeferred, frontier.StopDeferred, fmt.Sprintf("refused %d connections in a row: URLs wait for the next run", h.refused), time.Time{})
	s.log.Info("host refuses connections: left for the next run", "host", h.key, "refused", h.refused)
}

// count adds an answer to the host's statistics; it reports whether the
// answer was a throttle (429 or 503).
func (h *hostRun) count(resp fetch.Response, retryAfter bool) (throttled bool) {
	if resp.Err == nil {
		h.latencies.Add(resp.TTFB)
	}
	return h.stats.Count(resp.Answered(), resp.Reason, len(resp.Body), retryAfter)
}
