package crawl

import (
	"errors"
	"net/http"
	"testing"

	"github.com/polite-crawler/polite/crawl/fetch"
	"github.com/polite-crawler/polite/crawl/frontier"
)

// TestDecide covers what an answer means for its entry, with no server
// and no clock: one named case per branch of handle and failed as they
// were before decide took them over.
func TestDecide(t *testing.T) {
	t.Parallel()
	netErr := errors.New("connection reset")
	ok := situation{maxAttempts: 3, retryAllowed: true}
	tests := []struct {
		name     string
		attempts int
		resp     fetch.Response
		werr     error
		s        situation
		want     decision
	}{
		{"body not written", 1, fetch.Response{Status: 200}, errors.New("disk full"), ok,
			decision{fate: fateUnwritten, state: frontier.Queued}},
		{"200 done", 1, fetch.Response{Status: 200}, nil, ok,
			decision{fate: fateDone, state: frontier.Done}},
		{"204 done", 1, fetch.Response{Status: 204}, nil, ok,
			decision{fate: fateDone, state: frontier.Done}},
		{"304 not modified", 1, fetch.Response{Status: 304}, nil, ok,
			decision{fate: fateNotModified, state: frontier.NotModified}},
		{"200 refused by usage: excluded", 1, fetch.Response{Status: 200, Reason: frontier.UsageRefused("train-ai refused by x")}, nil, ok,
			decision{fate: fateDead, state: frontier.Excluded, reason: frontier.UsageRefused("train-ai refused by x")}},
		{"304 refused by usage: excluded, not kept as current", 1, fetch.Response{Status: 304, Reason: frontier.UsageRefused("train-ai refused by x")}, nil, ok,
			decision{fate: fateDead, state: frontier.Excluded, reason: frontier.UsageRefused("train-ai refused by x")}},
		{"301 redirect", 1, fetch.Response{Status: 301}, nil, ok,
			decision{fate: fateRedirect}},
		{"404 dead at once", 1, fetch.Response{Status: 404}, nil, ok,
			decision{fate: fateDead, state: frontier.Dead, reason: "http-404"}},
		{"401 to credentials deferred: the token, not the URL", 1, fetch.Response{Status: 401, Credentials: true}, nil, ok,
			decision{fate: fateHeld, state: frontier.Deferred, reason: "http-401"}},
		{"403 to credentials deferred", 1, fetch.Response{Status: 403, Credentials: true}, nil, ok,
			decision{fate: fateHeld, state: frontier.Deferred, reason: "http-403"}},
		{"401 without credentials dead", 1, fetch.Response{Status: 401, Header: http.Header{"Www-Authenticate": {"Basic"}}}, nil, ok,
			decision{fate: fateDead, state: frontier.Dead, reason: "http-401"}},
		{"410 dead even with attempts left", 1, fetch.Response{Status: 410}, nil, ok,
			decision{fate: fateDead, state: frontier.Dead, reason: "http-410"}},
		{"500 retried", 1, fetch.Response{Status: 500}, nil, ok,
			decision{fate: fateRetry, state: frontier.Queued, reason: "http-500", failed: true}},
		{"502 dead after the last attempt", 3, fetch.Response{Status: 502}, nil, ok,
			decision{fate: fateDead, state: frontier.Dead, reason: "http-502", failed: true}},
		{"429 retried on the pacer's hold", 1, fetch.Response{Status: 429}, nil, ok,
			decision{fate: fateRetry, state: frontier.Queued, reason: "http-429", congestion: true, failed: true}},
		{"503 retried on the pacer's hold", 2, fetch.Response{Status: 503}, nil, ok,
			decision{fate: fateRetry, state: frontier.Queued, reason: "http-503", congestion: true, failed: true}},
		{"503 beyond --max-retry-after deferred", 1, fetch.Response{Status: 503}, nil,
			situation{maxAttempts: 3, retryAllowed: true, deferred: true},
			decision{fate: fateHeld, state: frontier.Deferred, reason: "http-503", failed: true}},
		{"429 past the run's end left queued", 1, fetch.Response{Status: 429}, nil,
			situation{maxAttempts: 3, retryAllowed: true, heldToResume: true},
			decision{fate: fateHeld, state: frontier.Queued, reason: "http-429", failed: true}},
		{"held even on the last attempt", 3, fetch.Response{Status: 429}, nil,
			situation{maxAttempts: 3, heldToResume: true},
			decision{fate: fateHeld, state: frontier.Queued, reason: "http-429", failed: true}},
		{"timeout retried", 1, fetch.Response{Err: netErr, Reason: "timeout"}, nil, ok,
			decision{fate: fateRetry, state: frontier.Queued, reason: "timeout", failed: true}},
		{"retry budget spent", 1, fetch.Response{Err: netErr, Reason: "reset"}, nil,
			situation{maxAttempts: 3},
			decision{fate: fateRetrySpent, state: frontier.Deferred, reason: "reset (retry budget spent)", failed: true}},
		{"last attempt dead before the budget counts", 3, fetch.Response{Err: netErr, Reason: "reset"}, nil,
			situation{maxAttempts: 3},
			decision{fate: fateDead, state: frontier.Dead, reason: "reset", failed: true}},
		{"too large never retried", 1, fetch.Response{Err: netErr, Reason: "too-large"}, nil, ok,
			decision{fate: fateDead, state: frontier.Dead, reason: "too-large", failed: true}},
		{"TLS refused: deferred for a later run, never dead", 1, fetch.Response{Err: netErr, Reason: "tls-expired"}, nil, ok,
			decision{fate: fateHeld, state: frontier.Deferred, reason: "tls-expired", failed: true}},
		{"TLS refused on the last attempt: still deferred", 3, fetch.Response{Err: netErr, Reason: "tls-unknown-authority"}, nil, ok,
			decision{fate: fateHeld, state: frontier.Deferred, reason: "tls-unknown-authority", failed: true}},
		{"TLS refused with the retry budget spent: deferred as refused", 1, fetch.Response{Err: netErr, Reason: "tls"}, nil,
			situation{maxAttempts: 3},
			decision{fate: fateHeld, state: frontier.Deferred, reason: "tls", failed: true}},
		{"TLS handshake timed out: retried", 1, fetch.Response{Err: netErr, Reason: "timeout"}, nil, ok,
			decision{fate: fateRetry, state: frontier.Queued, reason: "timeout", failed: true}},
		{"bad headers never retried", 1, fetch.Response{Err: netErr, Reason: "bad-headers"}, nil, ok,
			decision{fate: fateDead, state: frontier.Dead, reason: "bad-headers", failed: true}},
		{"private address excluded", 1, fetch.Response{Err: netErr, Reason: "private-address"}, nil,
			situation{maxAttempts: 3, deferred: true},
			decision{fate: fateExcluded, state: frontier.Excluded, reason: "private-address", failed: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := frontier.Entry{URL: "http://a.test/", Attempts: tt.attempts}
			if tt.resp.Status != 0 {
				tt.resp.Header = http.Header{}
			}
			got := decide(e, tt.resp, tt.werr, tt.s)
			if got != tt.want {
				t.Errorf("decide = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestHoldLeftover: the state a held host's URLs are left in comes from the
// hold's leaveKind alone, whatever its reason says.
func TestHoldLeftover(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		h    hold
		want frontier.State
	}{
		{"no hold", hold{}, frontier.Queued},
		{"max-per-host resumes", hold{leave: leaveResume, reason: "max-per-host budget"}, frontier.Queued},
		{"run's end resumes", hold{leave: leaveResume, reason: "waiting: Retry-After beyond the end of the run"}, frontier.Queued},
		{"site deferral", hold{leave: leaveDeferred, reason: "deferred: Retry-After beyond --max-retry-after"}, frontier.Deferred},
		{"refused address", hold{leave: leaveRefused, reason: "private-address"}, frontier.Excluded},
		{"refused, worded otherwise", hold{leave: leaveRefused, reason: "refused: loopback"}, frontier.Excluded},
		{"deferred, worded like a refusal", hold{leave: leaveDeferred, reason: "private-address"}, frontier.Deferred},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.h.leave.leftover(); got != tt.want {
				t.Errorf("leftover = %s, want %s", got, tt.want)
			}
		})
	}
}
