package crawl

import (
	"cmp"
	"fmt"
	"net/url"
	"time"

	"github.com/polite-crawler/polite/crawl/fetch"
	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/report"
	"github.com/polite-crawler/polite/crawl/robotscache"
	"github.com/polite-crawler/polite/robots"
)

// leaveKind says why a host gets no more requests this run, and so how it
// leaves its URLs not served: it, never the hold's message nor its
// stopped value, decides the state saved (leftover). (report.HoldKind is
// another thing: a pause drawn on a host's timeline.)
type leaveKind int

const (
	leaveNone     leaveKind = iota
	leaveResume             // a budget or the run's end: the URLs stay queued, to resume
	leaveDeferred           // the site's own answers keep it back: deferred for a later run
	leaveRefused            // polite refused its address: the URLs are excluded
)

// hold is a host's stop for the rest of the run.
type hold struct {
	leave  leaveKind     // what becomes of its URLs
	code   frontier.Stop // the report's stopped value: StopDeferred, StopBudget, ...
	reason string        // as the report and the URLs' reason word it
	until  time.Time     // a Retry-After (or exhausted quota) the host's URLs keep, across runs; zero for none
}

// entryReason is the reason the URLs the hold leaves keep: its sentence,
// as free text.
func (h hold) entryReason() frontier.Reason { return frontier.Reason(h.reason) }

// leftover is the state a held host's URLs not served this run are left
// in: queued to resume (no hold, a budget, the end of the run), excluded
// (polite refused its address), or deferred (the site's own answers kept
// them back: robots.txt unreachable, a long Retry-After, a Crawl-delay over
// the limit), which a next run tries again without counting this pass as
// cut short.
func (k leaveKind) leftover() frontier.State {
	switch k {
	case leaveRefused:
		return frontier.Excluded
	case leaveDeferred:
		return frontier.Deferred
	}
	return frontier.Queued
}

// paceGroup is what the hosts paced under one key share in a run (one
// host's, or a --pace-by group's): the requests in flight (--per-host
// caps them), and in a shared database the pace's ownership.
type paceGroup struct {
	key        string
	hosts      []*hostRun
	inflight   int
	ownedUntil time.Time // until when this process owns the pace (see Shared)
}

// hostRun is one host's state during a run. Only the loop goroutine
// touches it.
type hostRun struct {
	key    string
	at     int        // its place in the hosts' ring
	grp    *paceGroup // the pace it shares
	stats  *report.HostStats
	queued int       // queued entries as last known
	nextAt time.Time // earliest eligible time of those
	buf    []frontier.Entry

	latencies report.Latencies // its answers' times to first byte, for the report's percentiles

	requests   int
	answeredIn int64 // the ledger's flush that writes its last answer (ledger.gen)

	rb            *robots.Robots     // nil until known
	robotsBusy    bool               // a robots.txt request is in flight
	robots        *robotscache.Chain // the robots.txt fetch under way
	robotsNext    *url.URL           // its redirect, waiting on its host's pace
	robotsRetryAt time.Time
	robotsWait    time.Duration
	robotsCopy    *frontier.RobotsCopy // cached copy, possibly stale

	hold         hold      // set once the host gets no more requests this run
	waitingSince time.Time // when it last had work but had to wait
	backingOff   bool
	refused      int // connections refused in a row (maxRefused)
}

// pace is the key the host is paced under: its own, or its group's.
func (h *hostRun) pace() string { return h.grp.key }

func (h *hostRun) hasWork() bool { return len(h.buf) > 0 || h.queued > 0 }

// held reports whether the host gets no more requests this run.
func (h *hostRun) held() bool { return h.hold.leave != leaveNone }

// stop holds the host for the rest of the run. Every stop goes through it.
func (h *hostRun) stop(leave leaveKind, code frontier.Stop, reason string, until time.Time) {
	h.hold = hold{leave: leave, code: code, reason: reason, until: until}
}

// begin counts a request to h starting at now, and the time h waited
// for it.
func (h *hostRun) begin(now time.Time) {
	h.grp.inflight++
	h.requests++
	h.stats.Requests++
	if !h.waitingSince.IsZero() {
		h.stats.WaitS += now.Sub(h.waitingSince).Seconds()
		h.waitingSince = time.Time{}
	}
}

// active reports whether the host has work it may still be given.
func (h *hostRun) active() bool { return h.hasWork() && !h.held() }

// stopped says why the host got no more requests, as the report's
// stopped value and a sentence: a host that never answered is
// unreachable whatever else held it (unless polite refused its address
// or its TLS);
// one with URLs left and no hold of its own stopped with the run (runStop).
func (h *hostRun) stopped(runStop frontier.Stop) (code frontier.Stop, reason string) {
	switch {
	case h.hold.leave == leaveRefused, h.hold.code == frontier.StopTLS:
		return h.hold.code, h.hold.reason
	case h.stats.NeverAnswered():
		return frontier.StopUnreachable, fmt.Sprintf("no answer to %d %s (%s)", h.stats.Requests,
			report.Plural(h.stats.Requests, "request", "requests"), h.stats.LastError)
	case h.held():
		return h.hold.code, h.hold.reason
	case h.hasWork():
		return runStop, "run ended with URLs waiting"
	}
	return frontier.StopDone, "done"
}

// refuseTLS stops h for the run at its first refused TLS handshake
// (frontier.Reason.TLS): the same handshake fails the same way until the
// site or polite's trust changes, so its URLs wait for a later run.
func (s *hostSet) refuseTLS(h *hostRun, resp fetch.Response) {
	why := cmp.Or(resp.Detail, resp.Reason.String())
	h.stop(leaveDeferred, frontier.StopTLS, why+": URLs wait for the next run", time.Time{})
	s.log.Info("TLS refused: host left for the next run", "host", h.key, "reason", resp.Reason, "detail", why)
}

// deferCause says where a Retry-After that keeps a host away came from.
type deferCause int

const (
	causeEarlierRun deferCause = iota // the frontier or pace state an earlier run left
	causeVerdict                      // this response: pace found it beyond --max-retry-after
	causeRunEnd                       // this response: it lasts past the run's --max-duration
)

// deferral is the one Retry-After rule: a host kept away until until
// either waits for it within this run (false) or is held for a later run
// (true), in which case its URLs keep until unless the hold came from an
// earlier run's state (the frontier already has it).
func (s *hostSet) deferral(h *hostRun, now, until time.Time, cause deferCause) bool {
	at := until.UTC().Format(time.RFC3339)
	switch cause {
	case causeEarlierRun:
		until = s.boundEarlierWait(h, now, until)
		at = until.UTC().Format(time.RFC3339)
		if until.Sub(now) <= s.maxRetryAfter {
			return false
		}
		h.stop(leaveDeferred, frontier.StopDeferred, "deferred: Retry-After until "+at, time.Time{})
		s.log.Info("host deferred to a later run", "host", h.key, "until", at)
	case causeVerdict:
		h.stop(leaveDeferred, frontier.StopDeferred, "deferred: Retry-After beyond --max-retry-after", until)
		s.log.Info("host deferred to a later run", "host", h.key, "retry_after_s", report.Seconds(until.Sub(now)))
	case causeRunEnd:
		if s.maxDuration <= 0 || !until.After(s.start.Add(s.maxDuration)) {
			return false
		}
		// The run ends before the server wants to hear from polite again:
		// stop asking, and leave the host's URLs queued for the next run
		// to resume, not before the Retry-After.
		h.stop(leaveResume, frontier.StopDeferred, "waiting: Retry-After beyond the end of the run", until)
		s.log.Info("host waits for the next run", "host", h.key, "retry_after_s", report.Seconds(until.Sub(now)))
	}
	return true
}
