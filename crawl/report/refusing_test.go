package report

import (
	"strings"
	"testing"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// The run of 401 and 403 answers: MaxRefusing in a row stop the host, as
// an authentication failure when credentials went or were asked for, as
// a refusal otherwise; any other answer ends the run, a network error
// does not.
func TestRefusing(t *testing.T) {
	tests := []struct {
		name       string
		statuses   []int
		challenged bool
		want       string // what the last answer says
	}{
		{"five 401", []int{401, 401, 401, 401, 401}, false, "authentication failed (5 answers 401 in a row)"},
		{"five 403 with credentials", []int{403, 403, 403, 403, 403}, true, "authentication failed (5 answers 403 in a row)"},
		{"five 403, no credentials", []int{403, 403, 403, 403, 403}, false, "refused (403) 5 requests in a row"},
		{"four", []int{401, 401, 401, 401}, true, ""},
		{"a 2xx between", []int{401, 401, 200, 401, 401, 401}, true, ""},
		{"a 404 between", []int{403, 403, 403, 404, 403, 403}, false, ""},
		{"network errors do not end it", []int{401, 0, 401, 0, 401, 401, 401}, true, "authentication failed (5 answers 401 in a row)"},
	}
	for _, tt := range tests {
		h := &HostStats{}
		got := ""
		for i, s := range tt.statuses {
			got = h.Refusing(s, tt.challenged)
			if got != "" && i < len(tt.statuses)-1 {
				t.Errorf("%s: stopped at answer %d", tt.name, i+1)
			}
		}
		if got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// A host stopped for refusing fails the run, is in the summary and on
// stderr even when it gave pages before, with when to try again.
func TestRefusingHostNeedsAPerson(t *testing.T) {
	r := &Report{Hosts: []*HostStats{
		{Host: "api.example.org", S2xx: 40, S4xx: 5, Stopped: frontier.StopAuth, StoppedReason: "authentication failed (5 answers 401 in a row): URLs wait for the next run"},
		{Host: "fine.example", S2xx: 3, Stopped: frontier.StopDone},
	}, ExitCode: exitFailure}
	if !r.HostFailed() || len(r.Refusing()) != 1 {
		t.Errorf("HostFailed %v, Refusing %d; want the host failing the run", r.HostFailed(), len(r.Refusing()))
	}
	if s := r.Summary(); !strings.Contains(s, "1 host refusing (401, 403)") {
		t.Errorf("summary %q does not count the refusing host", s)
	}
	if o := r.Outcome(); !strings.Contains(o, "refused polite's requests") {
		t.Errorf("outcome %q", o)
	}
	ns := r.Attention(false)
	if len(ns) != 1 {
		t.Fatalf("notices %+v, want one", ns)
	}
	line := ns[0].Msg
	for _, a := range ns[0].Attrs {
		line += " " + a.String()
	}
	for _, want := range []string{"host=api.example.org", "authentication failed", "--header-file"} {
		if !strings.Contains(line, want) {
			t.Errorf("notice %q does not say %q", line, want)
		}
	}
}

// A host that refused credentials and gave no page fails the run even
// when it had fewer URLs than MaxRefusing; one that gave a page does not.
func TestRefusedAllWithFewURLs(t *testing.T) {
	stale := &HostStats{Host: "api.example.org", S4xx: 2, Stopped: frontier.StopDone}
	stale.Refusing(401, true)
	stale.Refusing(401, true)
	some := &HostStats{Host: "site.example", S2xx: 3, S4xx: 1, Stopped: frontier.StopDone}
	some.Refusing(401, true)
	plain := &HostStats{Host: "plain.example", S4xx: 1, Stopped: frontier.StopDone}
	plain.Refusing(403, false)
	r := &Report{Hosts: []*HostStats{stale, some, plain}}
	if got := r.Refusing(); len(got) != 1 || got[0] != stale || !r.HostFailed() {
		t.Errorf("Refusing = %v; want only the host that gave nothing", got)
	}
	ns := r.Attention(false)
	if len(ns) != 1 || ns[0].Attrs[1].Value.String() != "authentication failed (2 answers 401 or 403, no page)" {
		t.Errorf("notices %+v", ns)
	}
}
