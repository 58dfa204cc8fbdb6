package crawl

import (
	"net/http"

	"github.com/polite-crawler/polite/crawl/fetch"
	"github.com/polite-crawler/polite/crawl/frontier"
)

// outcome is what an answer means for the entry it answers.
type outcome int

const (
	outUnwritten   outcome = iota // the body could not be written: queued again, the attempt uncounted, the run stops
	outNotModified                // 304: the body on disk is still current
	outDone                       // 2xx: the body is kept and its links follow
	outRedirect                   // 3xx: the target goes into the frontier
	outDead                       // a final failure
	outExcluded                   // polite refused the host's address
	outHeld                       // a Retry-After keeps it: deferred, or queued for the next run
	outRetry                      // queued again after a backoff
	outRetrySpent                 // deferred: the run's retry budget is spent
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
	outcome    outcome
	state      frontier.State // the entry's state for now ("" for outRedirect: the redirect decides)
	reason     frontier.Reason
	congestion bool // outRetry after a 429 or 503: wait the pacer's hold, not a backoff
	failed     bool // no usable answer (a network error, 429, 5xx): a dead entry's manifest line has only its status
}

// decide says what an answer means for its entry: e is the entry as sent
// (its Attempts counting this one), resp the answer, werr the failure to
// write its body. It reads no clock and touches no state.
func decide(e frontier.Entry, resp fetch.Response, werr error, s situation) decision {
	if werr != nil {
		return decision{outcome: outUnwritten, state: frontier.Queued}
	}
	switch st := resp.Status; {
	case resp.Err != nil:
		return failure(e, resp.Reason, false, s)
	case st == http.StatusNotModified:
		return decision{outcome: outNotModified, state: frontier.NotModified}
	case st >= 200 && st < 300:
		return decision{outcome: outDone, state: frontier.Done}
	case st >= 300 && st < 400:
		return decision{outcome: outRedirect}
	case st == http.StatusTooManyRequests || st == http.StatusServiceUnavailable:
		return failure(e, frontier.HTTPReason(st), true, s)
	case st == 500 || st == 502 || st == 504:
		return failure(e, frontier.HTTPReason(st), false, s)
	default:
		return decision{outcome: outDead, state: frontier.Dead, reason: frontier.HTTPReason(st)}
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
	case frontier.ReasonTooLarge, frontier.ReasonTLS, frontier.ReasonBadURL, frontier.ReasonBadHeaders, frontier.ReasonBadEncoding:
		retryable = false // the same request fails the same way
	case frontier.ReasonPrivateAddress:
		return decision{outcome: outExcluded, state: frontier.Excluded, reason: reason}
	case frontier.ReasonDNS, frontier.ReasonRefused, frontier.ReasonReset, frontier.ReasonTimeout,
		frontier.ReasonNetwork, frontier.ReasonCanceled:
		// The network or the host may recover: retried.
	case frontier.ReasonRobots, frontier.ReasonBadRedirect, frontier.ReasonRedirectScheme, frontier.ReasonRedirectLoop,
		frontier.ReasonTooManyRedirects, frontier.ReasonSitemapUnchanged:
		// Not a request's failure: no answer carries one. Retried, as
		// any reason not named above (an HTTP status) is.
	}
	switch {
	case s.deferred:
		return decision{outcome: outHeld, state: frontier.Deferred, reason: reason}
	case s.heldToResume:
		// The run's end holds it: the next run resumes it.
		return decision{outcome: outHeld, state: frontier.Queued, reason: reason}
	case !retryable || e.Attempts >= s.maxAttempts:
		return decision{outcome: outDead, state: frontier.Dead, reason: reason}
	case !s.retryAllowed:
		return decision{outcome: outRetrySpent, state: frontier.Deferred, reason: reason.RetrySpent()}
	}
	return decision{outcome: outRetry, state: frontier.Queued, reason: reason, congestion: congestion}
}
