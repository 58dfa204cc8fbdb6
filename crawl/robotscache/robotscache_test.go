package robotscache

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/fetch"
	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/usage"
	"github.com/polite-crawler/polite/robots"
)

func answer(status int, hdr ...string) fetch.Response {
	h := http.Header{}
	for i := 0; i+1 < len(hdr); i += 2 {
		h.Set(hdr[i], hdr[i+1])
	}
	return fetch.Response{Status: status, Header: h, Body: []byte("User-agent: *\nDisallow: /x\n")}
}

func failed(reason frontier.Reason) fetch.Response {
	return fetch.Response{Err: errors.New(string(reason)), Reason: reason}
}

// TestChain is a script per case: the answers, in order, and where the
// fetch ends.
func TestChain(t *testing.T) {
	moved := func(loc string) fetch.Response { return answer(301, "Location", loc) }
	var loop []fetch.Response
	for range robots.MaxRedirects + 1 {
		loop = append(loop, moved("/again"))
	}
	tests := []struct {
		name       string
		answers    []fetch.Response
		wantURLs   []string // the URLs asked for after the first
		wantStatus int
		wantHops   int
		wantReason frontier.Reason
	}{
		{"200 at once", []fetch.Response{answer(200, "Cache-Control", "max-age=60")}, nil, 200, 0, ""},
		{"one redirect", []fetch.Response{moved("/elsewhere.txt"), answer(404)},
			[]string{"http://a.example/elsewhere.txt"}, 404, 1, ""},
		{"redirect to another host", []fetch.Response{moved("https://b.example/robots.txt"), answer(200)},
			[]string{"https://b.example/robots.txt"}, 200, 1, ""},
		{"redirects run out: the 3xx stays", loop, nil, 301, robots.MaxRedirects, ""},
		{"refused hop: the 3xx stays", []fetch.Response{moved("http://127.0.0.1/"), failed("private-address")},
			[]string{"http://127.0.0.1/"}, 301, 1, ""},
		{"network error", []fetch.Response{failed("timeout")}, nil, 0, 0, "timeout"},
		{"unparsable Location ends it", []fetch.Response{moved("http://[::1")}, nil, 301, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start, _ := url.Parse("http://a.example/robots.txt")
			ch := NewChain(start)
			var asked []string
			for i, a := range tt.answers {
				next := ch.Add(a)
				if next == nil {
					if i != len(tt.answers)-1 {
						t.Fatalf("step %d: the fetch ended early", i)
					}
					break
				}
				if got := ch.URL(); got != next {
					t.Errorf("step %d: URL() = %v, want the next URL %v", i, got, next)
				}
				asked = append(asked, next.String())
			}
			if tt.wantURLs != nil && strings.Join(asked, " ") != strings.Join(tt.wantURLs, " ") {
				t.Errorf("asked for %v, want %v", asked, tt.wantURLs)
			}
			if ch.Status != tt.wantStatus || ch.Hops != tt.wantHops || ch.Reason != tt.wantReason {
				t.Errorf("Status, Hops, Reason = %d, %d, %q; want %d, %d, %q", ch.Status, ch.Hops, ch.Reason, tt.wantStatus, tt.wantHops, tt.wantReason)
			}
			if ch.First.Status != tt.answers[0].Status || ch.First.Reason != tt.answers[0].Reason {
				t.Errorf("First = %d %q, want the first answer %d %q", ch.First.Status, ch.First.Reason, tt.answers[0].Status, tt.answers[0].Reason)
			}
		})
	}
}

func TestInterpret(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	young := &frontier.RobotsCopy{Host: "a.example", Status: 200, Body: []byte("User-agent: *\nDisallow: /old\n"), FetchedAt: now.Add(-time.Hour)}
	old := &frontier.RobotsCopy{Host: "a.example", Status: 200, Body: young.Body, FetchedAt: now.Add(-robots.MaxStale)}
	tests := []struct {
		name      string
		rr        Result
		cached    *frontier.RobotsCopy
		wantRules bool
		wantFresh bool
		wantHow   string
	}{
		{"200 parsed and cached", Result{Status: 200, Body: []byte("User-agent: *\nDisallow: /\n")}, nil, true, true, "200"},
		{"404 allows all, cached", Result{Status: 404}, young, true, true, "404"},
		{"503 with a young copy", Result{Status: 503}, young, true, false, "unreachable (503); using the copy of 2026-01-02T02:04:05Z"},
		{"timeout with a copy too old", Result{Reason: "timeout"}, old, false, false, "unreachable (timeout)"},
		{"network error, no reason, no copy", Result{}, nil, false, false, "unreachable (network error)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rb, how, fresh := Interpret("a.example", &tt.rr, tt.cached, time.Hour, now)
			if (rb != nil) != tt.wantRules || (fresh != nil) != tt.wantFresh || how != tt.wantHow {
				t.Errorf("rules %v, fresh %v, how %q; want rules %v, fresh %v, how %q", rb != nil, fresh != nil, how, tt.wantRules, tt.wantFresh, tt.wantHow)
			}
			if fresh != nil && !fresh.Expires.Equal(now.Add(time.Hour)) {
				t.Errorf("fresh copy expires %v, want %v", fresh.Expires, now.Add(time.Hour))
			}
		})
	}
}

// With a usage policy that declares a purpose, a chain asks for the
// origin's tdmrep.json once robots.txt has answered, and hands the answer
// to the policy; its Result stays robots.txt's. Not after an unreachable
// robots.txt, and never without a purpose.
func TestChainThenTDMRep(t *testing.T) {
	start, _ := url.Parse("https://a.test/robots.txt")
	ok := fetch.Response{Status: 200, Body: []byte("User-agent: *\nDisallow: /x\n")}
	p := usage.NewPolicy([]usage.Purpose{usage.TrainAI}, "polite")
	ch := NewChain(start).WithUsage(p)
	next := ch.Add(ok)
	if next == nil || next.String() != "https://a.test/.well-known/tdmrep.json" {
		t.Fatalf("after robots.txt: next %v, want the origin's tdmrep.json", next)
	}
	if got := ch.Add(fetch.Response{Status: 200, Body: []byte(`[{"location": "/*", "tdm-reservation": 1}]`)}); got != nil {
		t.Errorf("after tdmrep.json: next %v, want the end", got)
	}
	if ch.Status != 200 || string(ch.Body) != string(ok.Body) {
		t.Errorf("Result %d %q, want robots.txt's", ch.Status, ch.Body)
	}
	u, _ := url.Parse("https://a.test/page")
	if why := p.Before("a.test", u, ""); why == "" {
		t.Error("tdmrep.json's rule did not reach the policy")
	}
	if next := NewChain(start).WithUsage(p).Add(ok); next != nil {
		t.Errorf("second chain of the run asked for %v, want nothing: once a run", next)
	}
	other := usage.NewPolicy([]usage.Purpose{usage.TrainAI}, "polite")
	if next := NewChain(start).WithUsage(other).Add(fetch.Response{Status: 503}); next != nil {
		t.Errorf("after a 503 robots.txt: next %v, want none", next)
	}
	if next := NewChain(start).WithUsage(usage.NewPolicy(nil, "polite")).Add(ok); next != nil {
		t.Errorf("without a purpose: next %v, want none", next)
	}
}
