package report

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/report/reporttest"
	"github.com/polite-crawler/polite/crawl/seeds"
)

// sampleReport is a run with every kind of host the reports show: one
// throttled with Retry-After, one calm, one slow with network errors and
// one whose robots.txt never answered; with dead URLs and rejected seeds.
func sampleReport() *Report {
	start := time.Date(2026, 3, 14, 2, 0, 0, 0, time.UTC)
	r := &Report{
		RunID: 7, Job: "nightly", Start: start, End: start.Add(95 * time.Second), DurationS: 95,
		ExitCode: 1, StopReason: "stopped by max-duration", BudgetsBound: []frontier.Budget{frontier.BudgetMaxDuration},
		OutDir: "/srv/crawl/nightly",
		Totals: Totals{Requests: 141, Done: 120, NotModified: 6, Excluded: 3, Dead: 7, Waiting: 12, Retries: 9, Throttled: 6, Bytes: 3 << 20},
		Rejected: []seeds.Rejected{
			{File: "seeds.txt", Line: 4, Text: "ftp://files.example.org/", Reason: `scheme "ftp" is not http or https`},
			{File: "seeds.txt", Line: 9, Text: "http://docs.example.org/x 1e3", Reason: `bad priority "1e3"`},
		},
		Frontier: map[string]int{"done": 120, "not_modified": 6, "excluded": 3, "dead": 7, "queued": 12},
	}
	for i := range 7 {
		r.Dead = append(r.Dead, DeadURL{URL: fmt.Sprintf("https://slow.example.net/item/%d?<&>", i), Reason: "timeout", Attempts: 5})
	}
	api := &HostStats{
		Host: "api.example.org", Requests: 61, S2xx: 52, S304: 3, S429: 5, S5xx: 1, S503: 1, Retries: 6,
		Bytes: 2 << 20, P50MS: 120, P95MS: 480, MaxMS: 950, DelayStartS: 3, DelayEndS: 4.5, StoredEndS: 4.5,
		FloorS: 0.5, FloorSource: "default", WaitS: 80, RetryAfters: 6, Robots: "parsed (200)", Stopped: "done",
	}
	d := 3.0
	for i := range 61 {
		p := Point{AtS: float64(i) * 1.5, LatencyMS: 100 + float64(i%7)*20, Status: 200}
		switch {
		case i == 20 || i == 21 || i == 40 || i == 41 || i == 42:
			p.Status, p.RetryAfterS, d = 429, 2, min(d*3, 12)
		case i == 50:
			p.Status, p.RetryAfterS, d = 503, 5, min(d*3, 12)
		default:
			d = max(d-0.25, 0.5)
		}
		p.DelayS = d
		api.Timeline = append(api.Timeline, p)
	}
	docs := &HostStats{
		Host: "docs.example.org", Requests: 60, S2xx: 57, S3xx: 1, S4xx: 1, Excluded: 3,
		Bytes: 1 << 20, P50MS: 40, P95MS: 60, MaxMS: 70, DelayStartS: 1, StoredStartS: 4, DelayEndS: 1, StoredEndS: 1,
		FloorS: 1, FloorSource: "crawl-delay", WaitS: 30, Robots: "parsed (200)", Stopped: "done",
	}
	for i := range 60 {
		docs.Timeline = append(docs.Timeline, Point{AtS: float64(i) * 1.55, DelayS: 1, LatencyMS: 40 + float64(i%3)*10, Status: 200})
	}
	slow := &HostStats{
		Host: "slow.example.net", Requests: 19, S2xx: 10, Errors: 9, Retries: 3,
		P50MS: 2100, P95MS: 4000, MaxMS: 4200, DelayStartS: 3, DelayEndS: 7.5, StoredEndS: 7.5,
		FloorS: 0.5, FloorSource: "default", WaitS: 60, Robots: "no restrictions (404)", Stopped: "run ended with URLs waiting",
	}
	d = 3
	for i := range 19 {
		p := Point{AtS: 2 + float64(i)*4.8, LatencyMS: 1500 + float64(i)*150, Status: 200}
		if i%2 == 1 {
			p.Status, p.LatencyMS = 0, 0
		}
		d = min(d*1.05, 7.5)
		p.DelayS = d
		slow.Timeline = append(slow.Timeline, p)
	}
	never := &HostStats{
		Host: "never.example.com:8443", Requests: 1, Errors: 1, DelayStartS: 3, DelayEndS: 3, StoredEndS: 3,
		FloorS: 0.5, FloorSource: "default", Robots: "unreachable (refused): host waits, retry in 9.5s",
		Stopped: "run ended with URLs waiting",
		Holds:   []HoldMark{{Kind: HoldMarkRobotsRetry, AtS: 0.1, SpanS: 5.2}, {Kind: HoldMarkRobotsRetry, AtS: 5.4, SpanS: 9.5}},
	}
	slow.Holds = []HoldMark{{Kind: HoldMarkBreaker, AtS: 40, SpanS: 30}}
	r.Hosts = []*HostStats{api, docs, slow, never}
	for _, h := range r.Hosts {
		h.DelayMaxS = HighestAfterStart(h) // as the end of a run sets it
	}
	return r
}

func TestWriteText(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := sampleReport().WriteText(&b); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	tests := []struct {
		name   string
		want   string
		absent bool
	}{
		{name: "headline", want: `polite: job "nightly", run 7: stopped by max-duration after 1m35s, exit 1` + "\n"},
		{name: "what became of the URLs", want: "  120 done, 6 not modified, 3 excluded, 7 dead, 12 waiting for the next run\n"},
		{name: "requests", want: "  141 requests to 4 hosts (1.5/s), 9 retries, 6 throttled (429/503), 3.0 MiB\n"},
		{name: "budget", want: "  budgets reached: max-duration\n"},
		{name: "throttled host and how far", want: "    api.example.org   3.00s -> 12.0s -> 4.50s  (5 x 429, 1 x 503, 6 Retry-After waits)\n"},
		{name: "slower host", want: "    slow.example.net  3.00s -> 7.50s -> 7.50s  (latency)\n"},
		{name: "calm host not backed off", want: "docs.example.org ", absent: true},
		{name: "stopped hosts grouped", want: "  2 hosts stopped (run ended with URLs waiting): slow.example.net, never.example.com:8443\n"},
		{name: "first dead URL", want: "  dead: https://slow.example.net/item/0?<&> (timeout, 5 attempts)\n"},
		{name: "dead URLs capped", want: "  ... and 2 more dead URLs\n"},
		{name: "sixth dead URL left out", want: "item/5", absent: true},
		{name: "rejected seed", want: "  rejected seed: seeds.txt:4: scheme \"ftp\" is not http or https\n"},
		{name: "where the files are", want: "  details: /srv/crawl/nightly (report.html, report.json, manifest.jsonl)\n"},
		{name: "no lease error", want: "lease", absent: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if has := strings.Contains(got, tt.want); has == tt.absent {
				t.Errorf("summary contains %q = %v, want %v; summary:\n%s", tt.want, has, !tt.absent, got)
			}
		})
	}
	if n := strings.Count(got, "\n"); n > 20 {
		t.Errorf("summary is %d lines, want a few (at most 20):\n%s", n, got)
	}
}

// Entries a shared crawl's worker recorded after their lease had gone to
// another worker are an error the summary states.
func TestWriteTextLeaseLost(t *testing.T) {
	t.Parallel()
	r := sampleReport()
	r.LeaseLost = 2
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if want := "  error: 2 entries recorded after the lease had gone to another worker (dropped)\n"; !strings.Contains(b.String(), want) {
		t.Errorf("summary lacks %q:\n%s", want, b.String())
	}
}

func TestBackedOff(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		h    HostStats
		want bool
	}{
		{"calm", HostStats{DelayStartS: 3, DelayMaxS: 3, FloorS: 0.5}, false},
		{"a 429", HostStats{DelayStartS: 3, DelayMaxS: 3, S429: 1}, true},
		{"a 503", HostStats{DelayStartS: 3, DelayMaxS: 3, S503: 1}, true},
		{"a Retry-After alone", HostStats{DelayStartS: 1, DelayMaxS: 1, RetryAfters: 1}, true},
		{"delay rose on latency", HostStats{DelayStartS: 0.5, DelayMaxS: 2, FloorS: 0.5}, true},
		{"floor raised by Crawl-delay", HostStats{DelayStartS: 0.5, DelayMaxS: 5, FloorS: 5}, false},
		{"rounding noise", HostStats{DelayStartS: 0.5, DelayMaxS: 0.501, FloorS: 0.5}, false},
		{"rose on latency under a cold start", HostStats{DelayStartS: 3, DelayMaxS: 2.15, FloorS: 0.5,
			Timeline: []Point{{DelayS: 0.7}, {DelayS: 0.7}, {DelayS: 2.15}, {DelayS: 1.6}}}, true},
		{"came down from a cold start", HostStats{DelayStartS: 3, DelayMaxS: 2, FloorS: 0.5,
			Timeline: []Point{{DelayS: 2}, {DelayS: 1}, {DelayS: 0.5}}}, false},
		{"floor raised by Crawl-delay after the cold start", HostStats{DelayStartS: 0.5, DelayMaxS: 5, FloorS: 5,
			Timeline: []Point{{DelayS: 0.5}, {DelayS: 5}, {DelayS: 5}}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.h.BackedOff(); got != tt.want {
				t.Errorf("BackedOff() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestHumanDuration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		secs float64
		want string
	}{
		{0, "0ms"}, {0.85, "850ms"}, {4.24, "4.2s"}, {59.97, "1m00s"}, {252, "4m12s"},
		{3720, "1h02m"}, {47 * 3600, "47h00m"}, {76 * 3600, "3d04h"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := HumanDuration(tt.secs); got != tt.want {
				t.Errorf("HumanDuration(%v) = %q, want %q", tt.secs, got, tt.want)
			}
		})
	}
}

func TestHumanSeconds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		secs float64
		want string
	}{
		{0.5, "0.50s"}, {0.844, "0.84s"}, {12, "12.0s"}, {125, "2m05s"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := HumanSeconds(tt.secs); got != tt.want {
				t.Errorf("HumanSeconds(%v) = %q, want %q", tt.secs, got, tt.want)
			}
		})
	}
}

func TestNiceTicks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		hi      float64
		n       int
		wantTop float64
		want    int // ticks
	}{
		{"seconds", 95, 10, 100, 11},
		{"fractions", 0.37, 4, 0.4, 5},
		{"exact", 4, 4, 4, 5},
		{"tiny", 0.001, 4, 0.001, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ticks, top := niceTicks(tt.hi, tt.n)
			if diff := top - tt.wantTop; diff > 1e-9 || diff < -1e-9 || len(ticks) != tt.want {
				t.Errorf("niceTicks(%v, %d) = %v, top %v; want %d ticks up to %v", tt.hi, tt.n, ticks, top, tt.want, tt.wantTop)
			}
		})
	}
}

// The page requisites a run fetched are counted apart, in report.html as
// in the summary ("7 requisites from 2 hosts"); a run without any says
// nothing of them.
func TestRequisitesCounted(t *testing.T) {
	t.Parallel()
	for _, n := range []int{7, 0} {
		r := sampleReport()
		r.Totals.Requisites, r.Totals.RequisiteHosts = n, 2
		var page, text bytes.Buffer
		if err := r.WriteHTML(&page); err != nil {
			t.Fatal(err)
		}
		r.WriteText(&text)
		html := strings.Contains(page.String(), "<li><b>7</b><span>requisites from 2 hosts</span></li>")
		summary := strings.Contains(text.String(), "of them 7 requisites from 2 hosts")
		if html != (n > 0) || summary != (n > 0) || n == 0 && (strings.Contains(page.String(), "requisite") || strings.Contains(text.String(), "requisite")) {
			t.Errorf("%d requisites: report.html counts them: %v, the summary: %v; want %v", n, html, summary, n > 0)
		}
	}
}

func TestWriteHTML(t *testing.T) {
	t.Parallel()
	r := sampleReport()
	var b bytes.Buffer
	if err := r.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	order := []string{"api.example.org", "slow.example.net", "never.example.com:8443", "docs.example.org"}
	reporttest.CheckReportHTML(t, b.Bytes(), order)
	page := b.String()
	for _, part := range []string{`<table id="answers">`, `<table id="pacing">`, `<h2>Timelines</h2>`} {
		if got := reporttest.HostOrder(page, part); !slices.Equal(got, order) {
			t.Errorf("hosts after %s in order %q, want by trouble %q", part, got, order)
		}
	}
	for _, want := range []string{
		"item/6?&lt;&amp;&gt;",     // dead URLs, escaped
		"seeds.txt:9",              // rejected seeds
		"Retry-After 2.00s at",     // a Retry-After wait, explained on hover
		"429 at 30.0s",             // a 429 mark
		"no responses in this run", // a host with no timeline still gets its chart
		"floor 1.00s (crawl-delay)",
		`<td class="l never" colspan="3">never answered</td>`, // no "TTFB p50 0 ms"
		`<span class="tag">throttled</span>`, `<span class="tag">dead</span>`,
		"<dt>waited</dt>", "<dt>errors</dt>", "<dt>stopped</dt>", // columns explained
		"robots.txt retry wait", // the never host's robots.txt waits, drawn

		"delay (s)", "TTFB (ms)", "time since the run started", // axis titles
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}

// TestWriteHTMLEscapesHostText: what a host or its answers put in the
// page (a name, robots.txt's gist, why it stopped, its pace group) is
// escaped in its table rows and its section, as html/template escapes text
// and quoted attributes; the page stays well formed.
func TestWriteHTMLEscapesHostText(t *testing.T) {
	t.Parallel()
	r := sampleReport()
	h := r.Hosts[0]
	h.Host, h.Group = `x+y&<b>"'.example`, `ip:<i>`
	h.Robots, h.StoppedReason, h.FloorSource = `parsed <script>alert(1)</script>`, `quota "spent" & more`, `crawl-delay<`
	var b bytes.Buffer
	if err := r.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		`data-host="x&#43;y&amp;&lt;b&gt;&#34;&#39;.example"`,
		`>x&#43;y&amp;&lt;b&gt;&#34;&#39;.example</a>`,
		`<h3>x&#43;y&amp;&lt;b&gt;&#34;&#39;.example`,
		`paced as ip:&lt;i&gt;</a>`,
		`<td class="l wrap">parsed &lt;script&gt;alert(1)&lt;/script&gt;</td>`,
		`<td class="l wrap">quota &#34;spent&#34; &amp; more</td>`,
		`(crawl-delay&lt;)`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	for _, raw := range []string{"<script>", "y&<b>", "ip:<i>", `"spent"`, "crawl-delay<"} {
		if strings.Contains(page, raw) {
			t.Errorf("report.html has %q unescaped", raw)
		}
	}
}
