package crawltest

import (
	"math"
	"net/http"
	"strconv"
	"time"
)

// admission is what the limits decided for one request: refuse it with
// status and Retry-After, or let it through after wait.
type admission struct {
	status     int // 429 or 503; 0 admits
	retryAfter int // seconds, for a refusal; 0 sends no Retry-After
	wait       time.Duration
}

// admit applies the token bucket, then the queue, to a request arriving at
// now. A request the bucket refuses never reaches the queue; one the queue
// refuses has spent its token, as behind a real rate limiter. o.mu is held.
func (o *Origin) admit(now time.Time) admission {
	a := o.admitLimits(now)
	if o.cfg.OmitRetryAfter {
		a.retryAfter = 0
	}
	return a
}

func (o *Origin) admitLimits(now time.Time) admission {
	if o.cfg.Rate > 0 {
		o.refill(now)
		if o.tokens < 1 {
			o.stats.OverLimit++
			ra := o.cfg.RetryAfter
			if ra <= 0 {
				ra = secondsDuration((1 - o.tokens) / o.cfg.Rate)
			}
			return admission{status: http.StatusTooManyRequests, retryAfter: ceilSeconds(ra)}
		}
		o.tokens--
	}
	if o.cfg.Capacity > 0 {
		return o.enqueue(now)
	}
	return admission{}
}

// enqueue models one server that serves Capacity requests per second in
// arrival order. A request waits for the backlog ahead of it, then takes
// 1/Capacity to serve, so latency rises with load; with QueueMax requests
// already waiting (beyond the one in service) it gets 503. A request whose
// client leaves while it waits keeps its slot: the server wasted it.
// o.mu is held.
func (o *Origin) enqueue(now time.Time) admission {
	service := secondsDuration(1 / o.cfg.Capacity)
	if service <= 0 {
		service = time.Nanosecond
	}
	if o.nextFree.Before(now) {
		o.nextFree = now
	}
	backlog := o.nextFree.Sub(now)
	inSystem := int((backlog + service - 1) / service)
	waiting := max(inSystem-1, 0)
	if waiting >= o.cfg.QueueMax {
		o.stats.QueueFull++
		return admission{status: http.StatusServiceUnavailable, retryAfter: 1}
	}
	o.nextFree = o.nextFree.Add(service)
	return admission{wait: o.nextFree.Sub(now)}
}

// burst is the bucket's size: Config.Burst, at least 1.
func (o *Origin) burst() float64 { return float64(max(o.cfg.Burst, 1)) }

// refill brings the bucket up to now. The bucket starts full. o.mu is held.
func (o *Origin) refill(now time.Time) {
	if o.refilled.IsZero() {
		o.tokens, o.refilled = o.burst(), now
		return
	}
	if el := now.Sub(o.refilled); el > 0 {
		o.tokens = math.Min(o.burst(), o.tokens+el.Seconds()*o.cfg.Rate)
		o.refilled = now
	}
}

// rateLimitHeaders describes the token bucket as of now. The window is
// Burst tokens refilled at Rate, so:
//
//	RateLimit-Limit       Burst
//	RateLimit-Remaining   whole tokens left
//	RateLimit-Reset       seconds (rounded up) until the bucket is full again
//	X-RateLimit-*         the same, with Reset as a Unix time
//	RateLimit-Policy      "bucket";q=Burst;w=Burst/Rate (structured draft form)
//	RateLimit             "bucket";r=remaining;t=reset (structured draft form)
//
// A client that spends Remaining over Reset seconds never meets a 429.
// o.mu is held.
func (o *Origin) rateLimitHeaders(h http.Header, now time.Time) {
	o.refill(now)
	limit := int(o.burst())
	remaining := int(math.Floor(o.tokens))
	reset := ceilSeconds(secondsDuration((o.burst() - o.tokens) / o.cfg.Rate))
	if o.tokens >= o.burst() {
		reset = 0
	}
	window := ceilSeconds(secondsDuration(o.burst() / o.cfg.Rate))
	h.Set("RateLimit-Limit", strconv.Itoa(limit))
	h.Set("RateLimit-Remaining", strconv.Itoa(remaining))
	h.Set("RateLimit-Reset", strconv.Itoa(reset))
	h.Set("X-RateLimit-Limit", strconv.Itoa(limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(remaining))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(now.Add(time.Duration(reset)*time.Second).Unix(), 10))
	h.Set("RateLimit-Policy", `"bucket";q=`+strconv.Itoa(limit)+";w="+strconv.Itoa(window))
	h.Set("RateLimit", `"bucket";r=`+strconv.Itoa(remaining)+";t="+strconv.Itoa(reset))
}

// refuse answers a request the limits turned away.
func refuse(w http.ResponseWriter, a admission) {
	body := "too many requests\n"
	if a.status == http.StatusServiceUnavailable {
		body = "server busy\n"
	}
	h := w.Header()
	if a.retryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(a.retryAfter))
	}
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(a.status)
	_, _ = w.Write([]byte(body))
}

// secondsDuration converts seconds to a Duration, saturating.
func secondsDuration(s float64) time.Duration {
	if s*float64(time.Second) >= math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(s * float64(time.Second))
}

// ceilSeconds rounds d up to whole seconds, at least 1.
func ceilSeconds(d time.Duration) int {
	if d > math.MaxInt64-time.Second {
		return int(d/time.Second) + 1
	}
	s := int((d + time.Second - 1) / time.Second)
	return max(s, 1)
}
