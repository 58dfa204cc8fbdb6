package pace

import (
	"fmt"
	"slices"
	"time"
)

// maxQuotaReset is the longest quota window taken seriously (a daily quota
// plus slack); a longer Reset is garbage and the whole Quota is ignored.
const maxQuotaReset = 25 * time.Hour

// Observe feeds the outcome of a request to host, answered at now, into the
// controller and returns what it means.
//
//   - 429 and 503 are congestion: the delay is multiplied (capped at the
//     ceiling), Raised is set and the host is held for max(delay, Retry-After).
//   - 2xx, 3xx and 4xx other than 429 are successes: the delay decreases
//     (slow start, careful approach or plain AIMD) unless the latency ratio
//     says otherwise; past the high knee it is congestion, held for the delay.
//   - Status 0 (network error, timeout), 500, 502, 504 and every other
//     status leave the delay alone: the caller retries with Backoff.
//   - SlowDown on a non-congestion status is a soft block: the delay is
//     multiplied by 1.5 and Raised is set, with no hold and no retry.
//
// A Retry-After on any status holds the host; one beyond MaxRetryAfter sets
// Defer and Hold stops at MaxRetryAfter, while the host stays held (in
// State, for later runs) until the end of Away. A Quota sets the ratelimit
// floor to Reset/Remaining (at most the ceiling), or, with nothing
// remaining, holds the host until Reset in the same way. Every hold is
// bounded by MaxHold; an absurd or unreadable value sets Capped.
func (p *Pacer) Observe(host string, now time.Time, o Outcome) Verdict {
	cfg := p.cfg
	h := p.started(host, now)
	aged := h.delayAt(cfg, now)
	req := flight{gap: aged} // an answer to a request never begun
	if k := h.match(now, o.TTFB); k >= 0 {
		req = h.flight[k]
		h.flight = slices.Delete(h.flight, k, k+1)
	}

	var v Verdict
	away, awayWhy := p.away(&v, o)
	hold, why := v.retryAfter(away, cfg.MaxRetryAfter), awayWhy
	switch {
	case o.Status == 429 || o.Status == 503:
		sig := Signal429
		if o.Status == 503 {
			sig = Signal503
		}
		d := h.congest(cfg, aged, req.gap, req.at, sig, cfg.Multiplier, now)
		h.set(d, now)
		v.Congestion, v.Raised, v.Signal = true, true, sig
		if d > hold {
			hold, why = d, HoldBackoff
		}
	case o.Status >= 200 && o.Status < 500 && o.SlowDown:
		d := h.congest(cfg, aged, req.gap, req.at, SignalSlowDown, slowDownFactor, now)
		h.set(d, now)
		v.Raised, v.Signal = true, SignalSlowDown
	case o.Status >= 200 && o.Status < 500:
		if d, w := p.success(h, &v, aged, req, o, now); d > hold {
			hold, why = d, w
		}
	}
	if q := o.Quota; q != nil {
		// After the status: a floor set by this answer binds from the next.
		reset, note := p.quota(h, *q)
		v.note(note)
		if reset > away {
			away, awayWhy, v.Away = reset, HoldQuota, reset
			if d := v.retryAfter(reset, cfg.MaxRetryAfter); d > hold {
				hold, why = d, HoldQuota
			}
		}
	}
	v.Hold = min(hold, cfg.maxHold())
	h.hold(cfg, now, hold, why)
	h.hold(cfg, now, away, awayWhy)
	return v
}

// away returns how long the server's Retry-After asked polite to stay
// away, bounded by MaxHold, and why; it sets Away, and Capped when the
// value was absurd or unreadable.
func (p *Pacer) away(v *Verdict, o Outcome) (time.Duration, HoldReason) {
	ra, note := p.cfg.bound(max(0, o.RetryAfter), "Retry-After")
	switch {
	case note != "":
		v.note(note)
	case o.RetryAfter < 0:
		v.note(fmt.Sprintf("negative Retry-After %s ignored", o.RetryAfter))
	case o.BadRetryAfter != "":
		v.note(fmt.Sprintf("Retry-After %q is neither seconds nor an HTTP date: ignored", clip(o.BadRetryAfter)))
	}
	v.Away = ra
	return ra, HoldRetryAfter
}

// note adds a line to Capped.
func (v *Verdict) note(s string) {
	switch {
	case s == "":
	case v.Capped == "":
		v.Capped = s
	default:
		v.Capped += "; " + s
	}
}

// clip shortens a server's text for a log line.
func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}

// retryAfter returns the part of a wait that is obeyed within the run,
// setting Defer when it is beyond maxRA.
func (v *Verdict) retryAfter(ra, maxRA time.Duration) time.Duration {
	if ra <= 0 {
		return 0
	}
	if ra > maxRA {
		v.Defer = true
		return maxRA
	}
	return ra
}

// success handles a response that was not refused, returning any hold and
// its reason.
func (p *Pacer) success(h *host, v *Verdict, aged time.Duration, req flight, o Outcome, now time.Time) (time.Duration, HoldReason) {
	cfg := p.cfg
	timed := o.Status < 400 && o.TTFB > 0
	shared := 1.0
	if timed {
		shared = p.shared.factor(h, now, cfg.HalfLife/10)
	}
	tripped, ratio := false, 0.0
	if timed {
		tripped, ratio = h.lat.breaker(o.TTFB, cfg.BreakerTrips, shared)
		if ratio > 0 {
			p.shared.add(h, now, ratio)
		}
	}
	if tripped {
		h.set(h.congest(cfg, aged, req.gap, req.at, SignalBreaker, cfg.Multiplier, now), now)
		v.Congestion, v.Raised, v.Signal = true, true, SignalBreaker
		if !cfg.Plain {
			h.lat.add(o.TTFB)
			h.lat.forgetSpike() // the pause answers the spike; after it, judge afresh
		}
		return cfg.BreakerCooldown, HoldBreaker
	}
	r, trusted := 1.0, false
	if timed && !cfg.Plain {
		r, trusted = h.lat.add(o.TTFB)
		r /= shared
	}
	if trusted && r >= cfg.HighKnee {
		d := h.congest(cfg, aged, req.gap, req.at, SignalLatency, cfg.Multiplier, now)
		h.set(d, now)
		h.lat.forgetSpike()
		v.Congestion, v.Raised, v.Signal = true, true, SignalLatency
		return d, HoldBackoff
	}
	if trusted && r > cfg.LowKnee {
		h.noSlowStart = true // latency rises: slow start ends (as HyStart ends TCP's)
	}
	d := h.calm(cfg, aged, req.gap, now)
	if trusted {
		// Past the low knee the delay grows towards what congestion would
		// set; for the answer to a request sent before the last raise, only
		// back up to the current delay (once per round trip, as above).
		congested := max(d, min(cfg.Ceiling, scale(aged, cfg.Multiplier)))
		if h.stale(req.at) {
			congested = max(d, aged)
		}
		d = transfer(d, congested, r, cfg.LowKnee, cfg.HighKnee)
		if d > aged {
			h.raisedAt = now
		}
	}
	if d > scale(h.d, 1+snapTolerance) {
		v.Raised = true // by more than noise: worth saving at once
		if trusted && r > cfg.LowKnee {
			v.Signal = SignalLatency
			h.lastSignal, h.signalAt = SignalLatency, now
		}
	}
	h.set(d, now)
	return 0, ""
}

// quota applies a server's announced quota: it returns the time to its
// reset when nothing remains (bounded by MaxHold), and otherwise sets the
// ratelimit floor to Reset/Remaining (at most the ceiling). Garbage
// (negative numbers, no window, a window over a day, more remaining than
// the limit) is ignored, with a note.
func (p *Pacer) quota(h *host, q Quota) (time.Duration, string) {
	if q.Remaining < 0 || q.Limit < 0 || q.Reset <= 0 || q.Reset > maxQuotaReset ||
		(q.Limit > 0 && q.Remaining > q.Limit) {
		return 0, fmt.Sprintf("RateLimit quota ignored: limit %d, remaining %d, reset %s", q.Limit, q.Remaining, q.Reset)
	}
	if q.Remaining == 0 {
		return p.cfg.bound(q.Reset, "RateLimit reset")
	}
	if h.floors == nil {
		h.floors = make(map[FloorSource]time.Duration)
	}
	h.floors[FloorRateLimit] = min(p.cfg.Ceiling, q.Reset/time.Duration(q.Remaining))
	return 0, ""
}
