// Package fate decides what an answer means for the entry it answers:
// done, not modified, a redirect to follow, dead, excluded, held for a
// later run, or retried (after a backoff or the pacer's hold). It is a
// pure function of the entry, the answer and the run's situation, which
// the crawl's loop carries out.
package fate

import (
	"net/http"

	"github.com/polite-crawler/polite/crawl/fetch"
	"github.com/polite-crawler/polite/crawl/frontier"
)

// Kind is what an answer means for the entry it answers. (pace.Outcome is
// another thing: how the request went, which the pacer learns from.)
type Kind int

const (
	Unwritten   Kind = iota // the body could not be written: queued again, the attempt uncounted, the run stops
	NotModified             // 304: the body on disk is still current
	Done                    // 2xx: the body is kept and its links follow
	Redirect                // 3xx: the target goes into the frontier
	Dead                    // a final failure, or content usage preferences refuse: recorded, not kept
	Excluded                // polite refused the host's address
	Held                    // a Retry-After keeps it: deferred, or queued for the next run
	Retry                   // queued again after a backoff
	RetrySpent              // deferred: the run's retry budget is spent
)

// Situation is what Of needs to know beyond the answer itself.
type Situation struct {
	MaxAttempts  int
	RetryAllowed bool // the retry budget has room
	Deferred     bool // pace's verdict on this answer: a Retry-After beyond --max-retry-after
	HeldToResume bool // the host is held to the next run by a Retry-After past the run's end
}

// Decision is what Of makes of an answer.
type Decision struct {
	Kind       Kind
	State      frontier.State // the entry's state for now ("" for Redirect: the redirect decides)
	Reason     frontier.Reason
	Congestion bool // Retry after a 429 or 503: wait the pacer's hold, not a backoff
	Failed     bool // no usable answer (a network error, 429, 5xx): a dead entry's manifest line has only its status
}

// Of says what an answer means for its entry: e is the entry as sent
// (its Attempts counting this one), resp the answer, werr the failure to
// write its body. It reads no clock and touches no state.
func Of(e frontier.Entry, resp fetch.Response, werr error, s Situation) Decision {
	if werr != nil {
		return Decision{Kind: Unwritten, State: frontier.Queued}
	}
	switch st := resp.Status; {
	case resp.Err != nil:
		return failure(e, resp.Reason, false, s)
	case resp.Reason.Usage(): // a 2xx or 304 whose content the site refuses to the crawl's purpose
		return Decision{Kind: Dead, State: frontier.Excluded, Reason: resp.Reason}
	case st == http.StatusNotModified:
		return Decision{Kind: NotModified, State: frontier.NotModified}
	case st >= 200 && st < 300:
		return Decision{Kind: Done, State: frontier.Done}
	case st >= 300 && st < 400:
		return Decision{Kind: Redirect}
	case (st == 401 || st == 403) && resp.Credentials: // the operator's credentials, not the URL, are refused
		return Decision{Kind: Held, State: frontier.Deferred, Reason: frontier.HTTPReason(st)}
	case st == http.StatusTooManyRequests || st == http.StatusServiceUnavailable:
		return failure(e, frontier.HTTPReason(st), true, s)
	case st == 500 || st == 502 || st == 504:
		return failure(e, frontier.HTTPReason(st), false, s)
	default:
		return Decision{Kind: Dead, State: frontier.Dead, Reason: frontier.HTTPReason(st)}
	}
}

// failure decides between a hold, a retry and a dead letter for a failed
// request.
func failure(e frontier.Entry, reason frontier.Reason, congestion bool, s Situation) Decision {
	d := failureOf(e, reason, congestion, s)
	d.Failed = true
	return d
}

func failureOf(e frontier.Entry, reason frontier.Reason, congestion bool, s Situation) Decision {
	retryable := true
	switch reason {
	case frontier.ReasonTooLarge, frontier.ReasonBadURL, frontier.ReasonBadHeaders, frontier.ReasonBadEncoding:
		retryable = false // the same request fails the same way
	case frontier.ReasonTLS, frontier.ReasonTLSUnknownAuthority, frontier.ReasonTLSExpired, frontier.ReasonTLSNameMismatch,
		frontier.ReasonTLSAlert, frontier.ReasonTLSVersion:
		// The host's TLS, not the URL, is refused (its host stops for the
		// run): the URL waits for a run after the site or --ca-file changes.
		return Decision{Kind: Held, State: frontier.Deferred, Reason: reason}
	case frontier.ReasonPrivateAddress:
		return Decision{Kind: Excluded, State: frontier.Excluded, Reason: reason}
	case frontier.ReasonDNS, frontier.ReasonRefused, frontier.ReasonReset, frontier.ReasonTimeout,
		frontier.ReasonNetwork, frontier.ReasonCanceled:
		// The network or the host may recover: retried.
	case frontier.ReasonRobots, frontier.ReasonBadRedirect, frontier.ReasonRedirectScheme, frontier.ReasonRedirectLoop,
		frontier.ReasonTooManyRedirects, frontier.ReasonSitemapUnchanged, frontier.ReasonOperator:
		// Not a request's failure: no answer carries one. Retried, as
		// any reason not named above (an HTTP status) is.
	}
	switch {
	case s.Deferred:
		return Decision{Kind: Held, State: frontier.Deferred, Reason: reason}
	case s.HeldToResume:
		// The run's end holds it: the next run resumes it.
		return Decision{Kind: Held, State: frontier.Queued, Reason: reason}
	case !retryable || e.Attempts >= s.MaxAttempts:
		return Decision{Kind: Dead, State: frontier.Dead, Reason: reason}
	case !s.RetryAllowed:
		return Decision{Kind: RetrySpent, State: frontier.Deferred, Reason: reason.RetrySpent()}
	}
	return Decision{Kind: Retry, State: frontier.Queued, Reason: reason, Congestion: congestion}
}
