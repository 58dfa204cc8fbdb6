package crawl

import (
	"net/http"

	"github.com/polite-crawler/polite/crawl/fetch"
	"github.com/polite-crawler/polite/crawl/frontier"
)

// fate is what an answer means for the entry it answers. (pace.Outcome is
// another thing: how the request went, which the pacer learns from.)
type fate int

const (
	fateUnwritten   fate = iota // the body could not be written: queued again, the attempt uncounted, the run stops
	fateNotModified             // 304: the body on disk is still current
	fateDone                    // 2xx: the body is kept and its links follow
	fateRedirect                // 3xx: the target goes into the frontier
	fateDead                    // a final failure, or content usage preferences refuse: recorded, not kept
	fateExcluded                // polite refused the host's address
	fateHeld                    // a Retry-After keeps it: deferred, or queued for the next run
	fateRetry                   // queued again after a backoff
	fateRetrySpent              // deferred: the run's retry budget is spent
)

// situation is what decide needs to know beyond the answer itself.
type situation struct {
	maxAttempts  int
	retryAllowed bool // the retry budget has room
	deferred     bool // pace's verdict on this answer: a Retry-After beyond --max-retry-after
	heldToResume bool // the host is held to the next run by a Retry-After past the run's end
}

// decision is what decide makes of an answer.
type decision struct {
	fate       fate
	state      frontier.State // the entry's state for now ("" for fateRedirect: the redirect decides)
	reason     frontier.Reason
	congestion bool // fateRetry after a 429 or 503: wait the pacer's hold, not a backoff
	failed     bool // no usable answer (a network error, 429, 5xx): a dead entry's manifest line has only its status
}

// decide says what an answer means for its entry: e is the entry as sent
// (its Attempts counting this one), resp the answer, werr the failure to
// write its body. It reads no clock and touches no state.
func decide(e frontier.Entry, resp fetch.Response, werr error, s situation) decision {
	if werr != nil {
		return decision{fate: fateUnwritten, state: frontier.Queued}
	}
	switch st := resp.Status; {
	case resp.Err != nil:
		return failure(e, resp.Reason, false, s)
	case resp.Reason.Usage(): // a 2xx or 304 whose content the site refuses to the crawl's purpose
		return decision{fate: fateDead, state: frontier.Excluded, reason: resp.Reason}
	case st == http.StatusNotModified:
		return decision{fate: fateNotModified, state: frontier.NotModified}
	case st >= 200 && st < 300:
		return decision{fate: fateDone, state: frontier.Done}
	case st >= 300 && st < 400:
		return decision{fate: fateRedirect}
	case (st == 401 || st == 403) && resp.Credentials: // the operator's credentials, not the URL, are refused
		return decision{fate: fateHeld, state: frontier.Deferred, reason: frontier.HTTPReason(st)}
	case st == http.StatusTooManyRequests || st == http.StatusServiceUnavailable:
		return failure(e, frontier.HTTPReason(st), true, s)
	case st == 500 || st == 502 || st == 504:
		return failure(e, frontier.HTTPReason(st), false, s)
	default:
		return decision{fate: fateDead, state: frontier.Dead, reason: frontier.HTTPReason(st)}
	}
}

// failure decides between a hold, a retry and a dead letter for a failed
// request.
func failure(e frontier.Entry, reason frontier.Reason, congestion bool, s situation) decision {
	d := failureOf(e, reason, congestion, s)
	d.failed = true
	return d
}

func failureOf(e frontier.Entry, reason frontier.Reason, congestion bool, s situation) decision {
	retryable := true
	switch reason {
	case frontier.ReasonTooLarge, frontier.ReasonBadURL, frontier.ReasonBadHeaders, frontier.ReasonBadEncoding:
		retryable = false // the same request fails the same way
	case frontier.ReasonTLS, frontier.ReasonTLSUnknownAuthority, frontier.ReasonTLSExpired, frontier.ReasonTLSNameMismatch,
		frontier.ReasonTLSAlert, frontier.ReasonTLSVersion:
		// The host's TLS, not the URL, is refused (its host stops for the
		// run): the URL waits for a run after the site or --ca-file changes.
		return decision{fate: fateHeld, state: frontier.Deferred, reason: reason}
	case frontier.ReasonPrivateAddress:
		return decision{fate: fateExcluded, state: frontier.Excluded, reason: reason}
	case frontier.ReasonDNS, frontier.ReasonRefused, frontier.ReasonReset, frontier.ReasonTimeout,
		frontier.ReasonNetwork, frontier.ReasonCanceled:
		// The network or the host may recover: retried.
	case frontier.ReasonRobots, frontier.ReasonBadRedirect, frontier.ReasonRedirectScheme, frontier.ReasonRedirectLoop,
		frontier.ReasonTooManyRedirects, frontier.ReasonSitemapUnchanged, frontier.ReasonOperator:
		// Not a request's failure: no answer carries one. Retried, as
		// any reason not named above (an HTTP status) is.
	}
	switch {
	case s.deferred:
		return decision{fate: fateHeld, state: frontier.Deferred, reason: reason}
	case s.heldToResume:
		// The run's end holds it: the next run resumes it.
		return decision{fate: fateHeld, state: frontier.Queued, reason: reason}
	case !retryable || e.Attempts >= s.maxAttempts:
		return decision{fate: fateDead, state: frontier.Dead, reason: reason}
	case !s.retryAllowed:
		return decision{fate: fateRetrySpent, state: frontier.Deferred, reason: reason.RetrySpent()}
	}
	return decision{fate: fateRetry, state: frontier.Queued, reason: reason, congestion: congestion}
}
