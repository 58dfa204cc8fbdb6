package report

import (
	"strings"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
)

func TestAttention(t *testing.T) {
	until := time.Date(2026, 12, 3, 4, 0, 0, 0, time.UTC)
	r := &Report{Stop: frontier.RunBudget, BudgetsBound: []frontier.Budget{frontier.BudgetMaxDuration},
		Totals: Totals{Waiting: 7},
		Hosts: []*HostStats{
			{Host: "fine.example", S2xx: 3, Stopped: frontier.StopDone},
			{Host: "held.example", S429: 1, Stopped: frontier.StopDeferred, StoppedReason: "deferred: Retry-After beyond --max-retry-after", RetryAt: until},
			{Host: "down.example", Errors: 3, Stopped: frontier.StopUnreachable, StoppedReason: "no answer to 3 requests (refused)"},
			{Host: "late.example", Stopped: frontier.StopBudget, StoppedReason: "run ended with URLs waiting"},
			{Host: "some.example", S2xx: 1, S429: 2, Stopped: frontier.StopDeferred},
			// The operator's own exclusion is no news to the operator.
			{Host: "excluded.example", Stopped: frontier.StopOperator, StoppedReason: "excluded by the operator: excluded.example"},
		},
		Dead: []DeadURL{{URL: "http://fine.example/a", Reason: "http-404"}, {URL: "http://fine.example/b", Reason: "http-404"},
			{URL: "http://fine.example/c", Reason: "http-410"}, {URL: "http://fine.example/d", Reason: "http-404"}},
		Changes: &Changes{Changed: 2, Gone: 1, GoneURLs: []string{"http://fine.example/old"}},
	}
	got := func(cut bool) string {
		var lines []string
		for _, n := range r.Attention(cut) {
			line := n.Msg
			for _, a := range n.Attrs {
				line += " " + a.String()
			}
			lines = append(lines, line)
		}
		return strings.Join(lines, "\n")
	}
	want := `host gave no page all run host=held.example why=deferred: Retry-After beyond --max-retry-after next_try=after 2026-12-03T04:00:00Z
host gave no page all run host=down.example why=no answer to 3 requests (refused) next_try=next run
dead URLs count=4 first=http://fine.example/a (http-404), http://fine.example/b (http-404), http://fine.example/c (http-410)
pages gone (404 or 410 where a page was) count=1 first=http://fine.example/old`
	if g := got(false); g != want {
		t.Errorf("Attention(false):\n%s\nwant:\n%s", g, want)
	}
	want += "\njob cut short 3 runs in a row by=max-duration waiting=7"
	if g := got(true); g != want {
		t.Errorf("Attention(true):\n%s\nwant:\n%s", g, want)
	}
}

// report.html tags a host that never answered unreachable, not dead: its
// tile of dead URLs says 0, and the tag must not contradict it.
func TestUnreachableIsItsOwnTrouble(t *testing.T) {
	r := &Report{
		Hosts: []*HostStats{
			{Host: "down.example", Requests: 3, Errors: 3, Stopped: frontier.StopUnreachable},
			{Host: "gone.example", Requests: 2, S4xx: 2, Stopped: frontier.StopDone},
			{Host: "fine.example", Requests: 2, S2xx: 2, Stopped: frontier.StopDone},
		},
		Dead: []DeadURL{{URL: "http://gone.example/a", Reason: "http-404"}},
	}
	var got []string
	for _, v := range r.hostsByTrouble() {
		got = append(got, v.Host+":"+v.Trouble.String())
	}
	if want := "gone.example:dead down.example:unreachable fine.example:"; strings.Join(got, " ") != want {
		t.Errorf("hosts by trouble %q, want %q", strings.Join(got, " "), want)
	}
}
