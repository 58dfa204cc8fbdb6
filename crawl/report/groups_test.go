package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/polite-crawler/polite/crawl/report/reporttest"
)

// Hosts paced as one (--pace-by ip) are one group: its figures are theirs
// added up, its timeline theirs merged in time order; report.html names
// each host's group and draws the group's timeline beside the hosts'.
func TestPaceGroupsAndTheirTimeline(t *testing.T) {
	r := &Report{Job: "sites", DurationS: 10, PaceBy: "ip", Hosts: []*HostStats{
		{Host: "a.example", Group: "ip:203.0.113.5", Requests: 3, S2xx: 2, S429: 1, DelayStartS: 3, DelayEndS: 1.5, FloorS: 1, FloorSource: "crawl-delay",
			Timeline: []Point{{AtS: 1, DelayS: 2.1, Status: 200}, {AtS: 5, DelayS: 4.5, Status: 429}}},
		{Host: "b.example", Group: "ip:203.0.113.5", Requests: 2, S2xx: 2, DelayStartS: 2.1, DelayEndS: 1.5, FloorS: 1, FloorSource: "crawl-delay",
			Timeline: []Point{{AtS: 3, DelayS: 1.5, Status: 200}, {AtS: 8, DelayS: 1.5, Status: 200}}},
		{Host: "c.example", Requests: 1, S2xx: 1, DelayStartS: 3, Timeline: []Point{{AtS: 2, DelayS: 2.1, Status: 200}}},
	}}
	gs := r.PaceGroups()
	if len(gs) != 1 {
		t.Fatalf("groups %+v, want one", gs)
	}
	g := gs[0]
	var at []float64
	for _, p := range g.Stats.Timeline {
		at = append(at, p.AtS)
	}
	if g.Key != "ip:203.0.113.5" || strings.Join(g.Hosts, " ") != "a.example b.example" || g.Stats.Requests != 5 ||
		g.Stats.S429 != 1 || g.Stats.DelayStartS != 3 || g.Stats.DelayMaxS != 4.5 || g.Stats.FloorS != 1 ||
		len(at) != 4 || at[0] != 1 || at[1] != 3 || at[2] != 5 || at[3] != 8 {
		t.Errorf("group %+v, stats %+v; want a and b added up, their timelines merged in time order", g, *g.Stats)
	}
	var b bytes.Buffer
	if err := r.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	reporttest.CheckReportHTML(t, b.Bytes(), []string{"a.example", "b.example", "c.example", "ip:203.0.113.5"})
	page := b.String()
	for _, want := range []string{`<h2>Pace groups</h2>`, `id="group-0"`, `<a class="grp" href="#group-0">paced as ip:203.0.113.5</a>`,
		`<td class="l wrap">a.example, b.example</td>`} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %s", want)
		}
	}
	if n := strings.Count(page, `paced as ip:`); n != 4 { // a and b, in both host tables
		t.Errorf("report.html names a host's group %d times, want 4", n)
	}
}

// Paced by host, the summary and report.html say which names share an
// address, the most shared first.
func TestPaceAdvice(t *testing.T) {
	r := &Report{Job: "sites", PaceBy: "host", SharedAddrs: map[string][]string{
		"192.0.2.1":   {"x.example", "y.example"},
		"203.0.113.5": {"a.example", "b.example", "c.example"},
	}}
	want := []string{"3 hosts share 203.0.113.5; consider --pace-by ip", "2 hosts share 192.0.2.1; consider --pace-by ip"}
	if got := r.PaceAdvice(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("PaceAdvice = %q, want %q", got, want)
	}
	var text, page bytes.Buffer
	r.WriteText(&text)
	if !strings.Contains(text.String(), "\n  "+want[0]+"\n  "+want[1]+"\n") {
		t.Errorf("summary:\n%s\nwant the advice, most shared first", text.String())
	}
	if err := r.WriteHTML(&page); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), "<li>"+want[0]+"</li>") {
		t.Errorf("report.html lacks the advice")
	}
	if got := (&Report{PaceBy: "host"}).PaceAdvice(); len(got) != 0 {
		t.Errorf("advice %q without shared addresses", got)
	}
}
