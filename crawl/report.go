package crawl

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// Report is what a run did, host by host. It is written as report.json and
// stored with the run.
type Report struct {
	RunID        int64          `json:"run_id"`
	Job          string         `json:"job"`
	Start        time.Time      `json:"start"`
	End          time.Time      `json:"end"`
	DurationS    float64        `json:"duration_s"`
	ExitCode     int            `json:"exit_code"`
	StopReason   string         `json:"stop_reason"`             // "done", "interrupted", or the budget that bound
	BudgetsBound []string       `json:"budgets_bound,omitempty"` // "max-requests", "max-duration", ...
	Totals       Totals         `json:"totals"`
	Hosts        []*HostStats   `json:"hosts"`
	Rejected     []Rejected     `json:"rejected_seeds,omitempty"`
	Dead         []DeadURL      `json:"dead,omitempty"`
	Frontier     map[string]int `json:"frontier"` // entries of the job by state at the end
}

// Totals sums the hosts.
type Totals struct {
	Requests    int   `json:"requests"`
	Done        int   `json:"done"`
	NotModified int   `json:"not_modified"`
	Excluded    int   `json:"excluded"`
	Dead        int   `json:"dead"`
	Waiting     int   `json:"waiting"` // queued or deferred for the next run
	Retries     int   `json:"retries"`
	Throttled   int   `json:"throttled"` // 429 + 503
	Bytes       int64 `json:"bytes"`
}

// DeadURL is a URL that failed for good.
type DeadURL struct {
	URL      string `json:"url"`
	Reason   string `json:"reason"`
	Attempts int    `json:"attempts"`
}

// HostStats is one host's share of a run.
type HostStats struct {
	Host         string  `json:"host"`
	Requests     int     `json:"requests"`
	S2xx         int     `json:"2xx"`
	S304         int     `json:"304"`
	S3xx         int     `json:"3xx"`
	S4xx         int     `json:"4xx"`
	S429         int     `json:"429"`
	S5xx         int     `json:"5xx"`
	S503         int     `json:"503"`
	Errors       int     `json:"errors"`
	Excluded     int     `json:"excluded_by_robots"`
	Retries      int     `json:"retries"`
	Bytes        int64   `json:"bytes"`
	P50MS        float64 `json:"p50_ms"`
	P95MS        float64 `json:"p95_ms"`
	MaxMS        float64 `json:"max_ms"`
	DelayStartS  float64 `json:"delay_start_s"`  // aged delay the run started from
	StoredStartS float64 `json:"stored_start_s"` // stored delay before ageing, 0 if new
	DelayEndS    float64 `json:"delay_end_s"`
	FloorS       float64 `json:"floor_s"`
	FloorSource  string  `json:"floor_source"`
	WaitS        float64 `json:"wait_s"` // time the host's URLs waited on pacing
	RetryAfters  int     `json:"retry_after_waits"`
	Robots       string  `json:"robots"` // what robots.txt said: "parsed", "none (404)", "unreachable", ...
	Stopped      string  `json:"stopped"`
	Timeline     []Point `json:"timeline,omitempty"`

	latencies []time.Duration
}

// Point is one request on a host's timeline.
type Point struct {
	AtS       float64 `json:"t"`       // seconds since the run started
	DelayS    float64 `json:"delay"`   // the host's delay after the response
	LatencyMS float64 `json:"latency"` // time to first byte
	Status    int     `json:"status"`  // 0 for a network error
}

func (h *HostStats) finish() {
	if len(h.latencies) == 0 {
		return
	}
	l := append([]time.Duration(nil), h.latencies...)
	sort.Slice(l, func(i, j int) bool { return l[i] < l[j] })
	q := func(p float64) float64 { return ms(l[int(p*float64(len(l)-1)+0.5)]) }
	h.P50MS, h.P95MS, h.MaxMS = q(0.5), q(0.95), ms(l[len(l)-1])
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
func secs(d time.Duration) float64 {
	return float64(d.Milliseconds()) / 1000
}

// WriteText writes the short summary a person reads at a glance.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	t := r.Totals
	fmt.Fprintf(&b, "polite: job %q run %d %s in %s\n", r.Job, r.RunID, r.StopReason, (time.Duration(r.DurationS*1000) * time.Millisecond).Round(100*time.Millisecond))
	fmt.Fprintf(&b, "  %d done, %d not modified, %d excluded, %d dead, %d waiting; %d requests, %d retries, %d throttled, %s\n",
		t.Done, t.NotModified, t.Excluded, t.Dead, t.Waiting, t.Requests, t.Retries, t.Throttled, humanBytes(t.Bytes))
	for _, h := range r.Hosts {
		line := fmt.Sprintf("  %-24s %4d req  delay %s -> %s  floor %s (%s)", h.Host, h.Requests,
			fmtSecs(h.DelayStartS), fmtSecs(h.DelayEndS), fmtSecs(h.FloorS), h.FloorSource)
		if h.S429+h.S503 > 0 {
			line += fmt.Sprintf("  %d throttled", h.S429+h.S503)
		}
		if h.Stopped != "" && h.Stopped != "done" {
			line += "  stopped: " + h.Stopped
		}
		b.WriteString(line + "\n")
	}
	for _, rj := range r.Rejected {
		fmt.Fprintf(&b, "  rejected seed %s\n", rj)
	}
	for i, d := range r.Dead {
		if i == 10 {
			fmt.Fprintf(&b, "  ... and %d more dead URLs (see report.json)\n", len(r.Dead)-10)
			break
		}
		fmt.Fprintf(&b, "  dead %s (%s, %d attempts)\n", d.URL, d.Reason, d.Attempts)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func fmtSecs(s float64) string { return fmt.Sprintf("%.2fs", s) }

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
