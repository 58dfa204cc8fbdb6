package crawl

import (
	"fmt"
	"time"

	"github.com/polite-crawler/polite/crawl/fate"
	"github.com/polite-crawler/polite/crawl/fetch"
	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/pace"
)

// handle takes a finished request back into the run's state: the pacer
// and the host's statistics learn from the answer (observe), fate.Of says
// what it means for the entry, and apply carries that out.
func (sc *scheduler) handle(r result) {
	if r.listed != nil {
		sc.maps.list(r.entry, r.listed, sc.clock.Now())
		sc.ledger.addListed(sc.maps.take(), sc.hosts, r.taken)
		return
	}
	h := sc.hosts.byKey[r.host]
	sc.work.add(-1)
	h.grp.inflight--
	now := sc.clock.Now()
	if r.robots {
		sc.handleRobots(h, r, now)
		return
	}
	e := r.entry
	h.answeredIn = sc.ledger.gen + 1 // written by the next flush
	if r.resp.Reason == frontier.ReasonCanceled {
		// Cut by the end of the grace period: not the host's fault.
		e.Attempts--
		e.State = frontier.Queued
		sc.ledger.change(e)
		return
	}
	v, throttled := sc.hosts.observe(h, r, now)
	if throttled {
		sc.throttled++
	}
	if r.resp.Reason.TLS() {
		sc.hosts.refuseTLS(h, r.resp)
	}
	e.Revisit = sc.cfg.Revisit.Observe(e, r.resp.Status, r.sha, now) // before LastStatus: it reads the last one
	e.LastStatus = r.resp.Status
	if r.newest {
		e.WarcID, e.WarcDate, e.WarcDigest = r.capture.RecordID, r.capture.Date, r.capture.PayloadDigest
	}
	d := fate.Of(e, r.resp, r.werr, fate.Situation{
		MaxAttempts:  sc.cfg.MaxAttempts,
		RetryAllowed: sc.budget.retryAllowed(),
		Deferred:     v.Defer,
		HeldToResume: h.hold.leave == leaveResume && !h.hold.until.IsZero(),
	})
	sc.apply(h, e, r, d, v, now)
	if e.Kind.IsSitemap() && sc.maps != nil {
		sc.maps.fetched(e, r, d)
		sc.ledger.addListed(sc.maps.take(), sc.hosts, nil)
	}
}

// apply carries out what fate.Of made of an answer for entry e.
func (sc *scheduler) apply(h *hostRun, e frontier.Entry, r result, d fate.Decision, v pace.Verdict, now time.Time) {
	l := sc.ledger
	switch d.Kind {
	case fate.Unwritten:
		sc.fatal = fmt.Errorf("write body of %s: %w", e.URL, r.werr)
		sc.log.Error("stopping: cannot write bodies", "err", r.werr)
		e.State = frontier.Queued
		e.Attempts--
		l.change(e)
	case fate.NotModified:
		// The body on disk is still current: the entry keeps its file,
		// hash and size, and takes any validators the 304 sends.
		e.FetchedAt = now
		if et := r.resp.Header.Get("ETag"); et != "" {
			e.ETag = et
		}
		if lm := r.resp.Header.Get("Last-Modified"); lm != "" {
			e.LastModified = lm
		}
		sc.budget.successes++
		l.finish(&e, d.State, "")
		l.writeManifest(e, r.resp, r.delay, now)
		sc.links.Kept(e)
	case fate.Done:
		e.FetchedAt, e.File, e.SHA256, e.Bytes = now, r.file, r.sha, int64(len(r.resp.Body))
		e.ETag, e.LastModified = r.resp.Header.Get("ETag"), r.resp.Header.Get("Last-Modified")
		sc.budget.bytes += e.Bytes
		sc.budget.successes++
		l.finish(&e, d.State, "")
		l.writeManifest(e, r.resp, r.delay, now)
		sc.links.Kept(e)
		for _, ne := range sc.links.Found(e, r.links, now) {
			l.add(ne)
		}
	case fate.Redirect:
		e.FetchedAt = now
		sc.budget.successes++
		ne, refused := sc.links.Redirect(e, r.url, r.resp.Header.Get("Location"), now)
		if refused != "" {
			l.finish(&e, frontier.Dead, refused)
		} else {
			l.finish(&e, frontier.Done, "")
		}
		if ne != nil {
			l.add(*ne)
		}
		l.writeManifest(e, r.resp, r.delay, now)
	case fate.Dead:
		e.FetchedAt = now
		l.finish(&e, d.State, d.Reason)
		if d.Failed {
			l.writeManifest(e, fetch.Response{Status: e.LastStatus}, 0, now)
		} else {
			l.writeManifest(e, r.resp, r.delay, now)
		}
	case fate.Excluded:
		l.finish(&e, d.State, d.Reason)
	case fate.Held:
		// Not before the server's Retry-After, in this run or the next.
		e.State, e.Reason, e.NextAt = d.State, d.Reason, later(e.NextAt, h.hold.until)
		if d.State == frontier.Deferred {
			l.settle(e)
		} else {
			l.change(e)
		}
	case fate.RetrySpent:
		e.State, e.Reason = d.State, d.Reason
		l.settle(e)
		if sc.budget.bind(frontier.BudgetRetry) {
			sc.log.Info("retry budget spent: failures wait for the next run", "retries", sc.budget.retries)
		}
	case fate.Retry:
		sc.retry(h, e, d, v, now)
	}
}

// retry queues e again after a wait: the pacer's hold after a 429 or 503
// (its penalty and any Retry-After), else a backoff growing with the
// attempts.
func (sc *scheduler) retry(h *hostRun, e frontier.Entry, d fate.Decision, v pace.Verdict, now time.Time) {
	sc.budget.retries++
	h.stats.Retries++
	wait := v.Hold
	if !d.Congestion {
		base := retryBase(sc.cfg.Pace.Floor)
		wait = pace.Backoff(time.Duration(e.Attempts-1)*base, base, retryCap, sc.cfg.Rand)
	}
	e.State, e.Reason, e.NextAt = d.State, d.Reason, now.Add(wait)
	sc.ledger.change(e)
	h.queued++
	if h.nextAt.IsZero() || e.NextAt.Before(h.nextAt) || len(h.buf) == 0 && h.queued == 1 {
		h.nextAt = e.NextAt
	}
}

// retryCap bounds the backoff before a retry that carries no pacing
// penalty (5xx other than 503, timeouts, resets).
const retryCap = time.Minute

// retryBase is the first backoff before such a retry: twice the default
// floor (1 s with the defaults), at least 10 ms. Later attempts wait
// longer, with decorrelated jitter.
func retryBase(floor time.Duration) time.Duration {
	return max(2*floor, 10*time.Millisecond)
}

// later returns the later of two times.
func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// earlier returns the earlier of two wake times, zero being none.
func earlier(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}
