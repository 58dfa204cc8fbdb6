package fate

import (
	"errors"
	"net/http"
	"testing"

	"github.com/polite-crawler/polite/crawl/fetch"
	"github.com/polite-crawler/polite/crawl/frontier"
)

// TestOf covers what an answer means for its entry, with no server
// and no clock: one named case per branch of handle and failed as they
// were before decide took them over.
func TestOf(t *testing.T) {
	t.Parallel()
	netErr := errors.New("connection reset")
	ok := Situation{MaxAttempts: 3, RetryAllowed: true}
	tests := []struct {
		name     string
		attempts int
		resp     fetch.Response
		werr     error
		s        Situation
		want     Decision
	}{
		{"body not written", 1, fetch.Response{Status: 200}, errors.New("disk full"), ok,
			Decision{Kind: Unwritten, State: frontier.Queued}},
		{"200 done", 1, fetch.Response{Status: 200}, nil, ok,
			Decision{Kind: Done, State: frontier.Done}},
		{"204 done", 1, fetch.Response{Status: 204}, nil, ok,
			Decision{Kind: Done, State: frontier.Done}},
		{"304 not modified", 1, fetch.Response{Status: 304}, nil, ok,
			Decision{Kind: NotModified, State: frontier.NotModified}},
		{"200 refused by usage: excluded", 1, fetch.Response{Status: 200, Reason: frontier.UsageRefused("train-ai refused by x")}, nil, ok,
			Decision{Kind: Dead, State: frontier.Excluded, Reason: frontier.UsageRefused("train-ai refused by x")}},
		{"304 refused by usage: excluded, not kept as current", 1, fetch.Response{Status: 304, Reason: frontier.UsageRefused("train-ai refused by x")}, nil, ok,
			Decision{Kind: Dead, State: frontier.Excluded, Reason: frontier.UsageRefused("train-ai refused by x")}},
		{"301 redirect", 1, fetch.Response{Status: 301}, nil, ok,
			Decision{Kind: Redirect}},
		{"404 dead at once", 1, fetch.Response{Status: 404}, nil, ok,
			Decision{Kind: Dead, State: frontier.Dead, Reason: "http-404"}},
		{"401 to credentials Deferred: the token, not the URL", 1, fetch.Response{Status: 401, Credentials: true}, nil, ok,
			Decision{Kind: Held, State: frontier.Deferred, Reason: "http-401"}},
		{"403 to credentials deferred", 1, fetch.Response{Status: 403, Credentials: true}, nil, ok,
			Decision{Kind: Held, State: frontier.Deferred, Reason: "http-403"}},
		{"401 without credentials dead", 1, fetch.Response{Status: 401, Header: http.Header{"Www-Authenticate": {"Basic"}}}, nil, ok,
			Decision{Kind: Dead, State: frontier.Dead, Reason: "http-401"}},
		{"410 dead even with attempts left", 1, fetch.Response{Status: 410}, nil, ok,
			Decision{Kind: Dead, State: frontier.Dead, Reason: "http-410"}},
		{"500 retried", 1, fetch.Response{Status: 500}, nil, ok,
			Decision{Kind: Retry, State: frontier.Queued, Reason: "http-500", Failed: true}},
		{"502 dead after the last attempt", 3, fetch.Response{Status: 502}, nil, ok,
			Decision{Kind: Dead, State: frontier.Dead, Reason: "http-502", Failed: true}},
		{"429 retried on the pacer's hold", 1, fetch.Response{Status: 429}, nil, ok,
			Decision{Kind: Retry, State: frontier.Queued, Reason: "http-429", Congestion: true, Failed: true}},
		{"503 retried on the pacer's hold", 2, fetch.Response{Status: 503}, nil, ok,
			Decision{Kind: Retry, State: frontier.Queued, Reason: "http-503", Congestion: true, Failed: true}},
		{"503 beyond --max-retry-after deferred", 1, fetch.Response{Status: 503}, nil,
			Situation{MaxAttempts: 3, RetryAllowed: true, Deferred: true},
			Decision{Kind: Held, State: frontier.Deferred, Reason: "http-503", Failed: true}},
		{"429 past the run's end left queued", 1, fetch.Response{Status: 429}, nil,
			Situation{MaxAttempts: 3, RetryAllowed: true, HeldToResume: true},
			Decision{Kind: Held, State: frontier.Queued, Reason: "http-429", Failed: true}},
		{"held even on the last attempt", 3, fetch.Response{Status: 429}, nil,
			Situation{MaxAttempts: 3, HeldToResume: true},
			Decision{Kind: Held, State: frontier.Queued, Reason: "http-429", Failed: true}},
		{"timeout retried", 1, fetch.Response{Err: netErr, Reason: "timeout"}, nil, ok,
			Decision{Kind: Retry, State: frontier.Queued, Reason: "timeout", Failed: true}},
		{"retry budget spent", 1, fetch.Response{Err: netErr, Reason: "reset"}, nil,
			Situation{MaxAttempts: 3},
			Decision{Kind: RetrySpent, State: frontier.Deferred, Reason: "reset (retry budget spent)", Failed: true}},
		{"last attempt dead before the budget counts", 3, fetch.Response{Err: netErr, Reason: "reset"}, nil,
			Situation{MaxAttempts: 3},
			Decision{Kind: Dead, State: frontier.Dead, Reason: "reset", Failed: true}},
		{"too large never retried", 1, fetch.Response{Err: netErr, Reason: "too-large"}, nil, ok,
			Decision{Kind: Dead, State: frontier.Dead, Reason: "too-large", Failed: true}},
		{"TLS refused: deferred for a later run, never dead", 1, fetch.Response{Err: netErr, Reason: "tls-expired"}, nil, ok,
			Decision{Kind: Held, State: frontier.Deferred, Reason: "tls-expired", Failed: true}},
		{"TLS refused on the last attempt: still deferred", 3, fetch.Response{Err: netErr, Reason: "tls-unknown-authority"}, nil, ok,
			Decision{Kind: Held, State: frontier.Deferred, Reason: "tls-unknown-authority", Failed: true}},
		{"TLS refused with the retry budget spent: deferred as refused", 1, fetch.Response{Err: netErr, Reason: "tls"}, nil,
			Situation{MaxAttempts: 3},
			Decision{Kind: Held, State: frontier.Deferred, Reason: "tls", Failed: true}},
		{"TLS handshake timed out: retried", 1, fetch.Response{Err: netErr, Reason: "timeout"}, nil, ok,
			Decision{Kind: Retry, State: frontier.Queued, Reason: "timeout", Failed: true}},
		{"bad headers never retried", 1, fetch.Response{Err: netErr, Reason: "bad-headers"}, nil, ok,
			Decision{Kind: Dead, State: frontier.Dead, Reason: "bad-headers", Failed: true}},
		{"private address excluded", 1, fetch.Response{Err: netErr, Reason: "private-address"}, nil,
			Situation{MaxAttempts: 3, Deferred: true},
			Decision{Kind: Excluded, State: frontier.Excluded, Reason: "private-address", Failed: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := frontier.Entry{URL: "http://a.test/", Attempts: tt.attempts}
			if tt.resp.Status != 0 {
				tt.resp.Header = http.Header{}
			}
			got := Of(e, tt.resp, tt.werr, tt.s)
			if got != tt.want {
				t.Errorf("Of = %+v, want %+v", got, tt.want)
			}
		})
	}
}
