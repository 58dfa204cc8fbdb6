// Package report holds what a run did, host by host, and writes it as the
// text summary, report.json and report.html; it knows nothing of the crawl
// that fills it.
package report

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/polite-crawler/polite/crawl/exclude"
	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/output"
	"github.com/polite-crawler/polite/crawl/seeds"
	"github.com/polite-crawler/polite/crawl/usage"
)

// Report is what a run did, host by host. It is written as report.json and
// stored with the run, so that a past run can be rendered again as text
// (WriteText) or as a page (WriteHTML).
type Report struct {
	RunID        int64             `json:"run_id"`
	Job          string            `json:"job"`
	Start        time.Time         `json:"start"`
	End          time.Time         `json:"end"`
	DurationS    float64           `json:"duration_s"`
	ExitCode     int               `json:"exit_code"`
	Stop         frontier.RunStop  `json:"stop"`                    // why the run ended: RunDone, RunBudget, RunInterrupted or RunError
	StopReason   string            `json:"stop_reason"`             // the same for a person: "done", "interrupted", "stopped by max-duration"
	BudgetsBound []frontier.Budget `json:"budgets_bound,omitempty"` // "max-requests", "max-duration", ...
	OutDir       string            `json:"out_dir,omitempty"`       // where the bodies, manifest.jsonl and the latest reports are
	RunDir       string            `json:"run_dir,omitempty"`       // this run's own reports and manifest lines (OutDir/runs/RUN)
	Unwritten    bool              `json:"-"`                       // report.json and report.html could not be written (a full disk): the summary names neither
	Totals       Totals            `json:"totals"`
	Hosts        []*HostStats      `json:"hosts"`
	Rejected     []seeds.Rejected  `json:"rejected_seeds,omitempty"`
	Dead         []DeadURL         `json:"dead,omitempty"`
	Frontier     map[string]int    `json:"frontier"`                       // entries of the job by state at the end
	Sitemaps     *Sitemaps         `json:"sitemaps,omitempty"`             // with --sitemaps
	ExcludedBy   []exclude.Hits    `json:"excluded_by_operator,omitempty"` // what each rule of polite exclude kept from the run
	Usage        []usage.HostUsage `json:"usage,omitempty"`                // what each host said about use, and what it excluded (--purpose)
	Purpose      string            `json:"purpose,omitempty"`              // the declared --purpose, comma-separated
	Changes      *Changes          `json:"changes,omitempty"`              // what the fetches showed against the last ones (--revisit)

	// PaceBy is what owned a pace (--pace-by): "host", "domain" or "ip";
	// hosts paced together name their group (HostStats.Group).
	PaceBy string `json:"pace_by,omitempty"`
	// SharedAddrs are, in a run paced by host, the addresses several host
	// names resolved to, with the names (see PaceAdvice).
	SharedAddrs map[string][]string `json:"shared_addresses,omitempty"`
	// LeaseLost is how many changes to entries a worker of a shared
	// crawl recorded after their lease had gone to another worker: an
	// error (its heartbeat came too late), the changes dropped.
	LeaseLost int `json:"lease_lost,omitempty"`
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
	// Requisites are the page requisites fetched (done or not modified)
	// and RequisiteHosts their hosts (--requisites).
	Requisites     int `json:"requisites,omitempty"`
	RequisiteHosts int `json:"requisite_hosts,omitempty"`
}

// DeadURL is a URL that failed for good.
type DeadURL struct {
	URL      string          `json:"url"`
	Reason   frontier.Reason `json:"reason"`
	Attempts int             `json:"attempts"`
}

// HostStats is one host's share of a run.
type HostStats struct {
	Host          string          `json:"host"`
	Group         string          `json:"group,omitempty"` // the pace it shared with other hosts (--pace-by domain or ip): "ip:203.0.113.5"
	Requests      int             `json:"requests"`        // robots.txt included
	S2xx          int             `json:"2xx"`
	S304          int             `json:"304"`
	S3xx          int             `json:"3xx"` // 304 not included
	S4xx          int             `json:"4xx"` // 429 not included
	S429          int             `json:"429"`
	S5xx          int             `json:"5xx"` // 503 included
	S503          int             `json:"503"`
	Errors        int             `json:"errors"` // network errors and timeouts
	Excluded      int             `json:"excluded_by_robots"`
	Retries       int             `json:"retries"`
	Bytes         int64           `json:"bytes"`
	P50MS         float64         `json:"p50_ms"` // time to first byte
	P95MS         float64         `json:"p95_ms"`
	MaxMS         float64         `json:"max_ms"`
	DelayStartS   float64         `json:"delay_start_s"`  // aged delay the run started from
	StoredStartS  float64         `json:"stored_start_s"` // stored delay before ageing, 0 if new
	DelayEndS     float64         `json:"delay_end_s"`    // aged delay at the end of the run
	StoredEndS    float64         `json:"stored_end_s"`   // delay as saved at the end of the run
	DelayMaxS     float64         `json:"delay_max_s"`    // highest delay after the start (the start's own when no answer came)
	FloorS        float64         `json:"floor_s"`
	FloorSource   string          `json:"floor_source"`
	WaitS         float64         `json:"wait_s"` // time the host's URLs waited on pacing
	RetryAfters   int             `json:"retry_after_waits"`
	Robots        string          `json:"robots"`               // what robots.txt said: "parsed", "none (404)", "unreachable", ...
	Stopped       frontier.Stop   `json:"stopped"`              // why it got no more requests: one of the frontier.Stop values
	StoppedReason string          `json:"stopped_reason"`       // the same for a person
	LastError     frontier.Reason `json:"last_error,omitempty"` // the last network error: "refused", "timeout", "dns", ...
	RetryAt       time.Time       `json:"retry_at,omitzero"`    // the host asked for no request before it (Retry-After, a spent quota); zero for none
	Timeline      []Point         `json:"timeline,omitempty"`   // at most timelineMax points (AddPoint)

	Holds []HoldMark `json:"holds,omitempty"` // pauses drawn on the timeline: breaker cooldowns, robots.txt retry waits

	AuthRefused int `json:"auth_refused,omitempty"` // 401 and 403 answers to credentials sent or asked for (WWW-Authenticate)

	per, inLast int // responses each point of Timeline stands for, and the last one so far (AddPoint)
	refusing    int // 401 and 403 answers in a row (Refusing)
}

// Point is one response on a host's timeline.
type Point struct {
	AtS         float64 `json:"t"`                     // seconds since the run started
	DelayS      float64 `json:"delay"`                 // the host's delay after the response
	LatencyMS   float64 `json:"latency"`               // time to first byte
	Status      int     `json:"status"`                // 0 for a network error
	RetryAfterS float64 `json:"retry_after,omitempty"` // Retry-After the response asked for
}

// Budgets lists the budgets that bound, as the summaries word them:
// "max-duration, retry-budget".
func (r *Report) Budgets() string {
	names := make([]string, len(r.BudgetsBound))
	for i, b := range r.BudgetsBound {
		names[i] = b.String()
	}
	return strings.Join(names, ", ")
}

// NeverAnswered reports whether polite sent the host requests and none
// got an answer: each was refused, timed out or found no address.
func (h *HostStats) NeverAnswered() bool {
	return h.Requests > 0 && h.Errors > 0 && h.answers() == 0
}

// Unreachable lists the hosts no request of the run reached.
func (r *Report) Unreachable() []*HostStats {
	var hs []*HostStats
	for _, h := range r.Hosts {
		if h.Stopped == frontier.StopUnreachable {
			hs = append(hs, h)
		}
	}
	return hs
}

// TLSRefused lists the hosts whose TLS handshake polite refused (or the
// server did): a certificate not trusted, expired or for another name, an
// alert, no common version. They failed the run as an unreachable host
// does, and their URLs wait for the next one.
func (r *Report) TLSRefused() []*HostStats {
	var hs []*HostStats
	for _, h := range r.Hosts {
		if h.Stopped == frontier.StopTLS {
			hs = append(hs, h)
		}
	}
	return hs
}

// Refusing lists the hosts that refused polite's credentials
// (HostStats.RefusedAll): their URLs wait for the next run, and they
// fail the run as an unreachable host does.
func (r *Report) Refusing() []*HostStats {
	var hs []*HostStats
	for _, h := range r.Hosts {
		if h.RefusedAll() {
			hs = append(hs, h)
		}
	}
	return hs
}

// Throttled is the host's 429 and 503 answers.
func (h *HostStats) Throttled() int { return h.S429 + h.S503 }

// BackedOff reports whether the host was asked to slow down during the run:
// a 429 or 503, a Retry-After, or a delay that rose above where it started,
// or above a low it had come down to, and above its floor (a floor raised
// by robots.txt is not a backoff).
func (h *HostStats) BackedOff() bool {
	return h.Throttled() > 0 || h.RetryAfters > 0 || h.DelayMaxS > max(h.DelayStartS, h.FloorS)*1.05+0.001 || roseAfterStart(h)
}

// textLimit is how many lines of one kind (hosts, dead URLs, rejected
// seeds) the text summary shows before it points to the reports.
const textLimit = 5

// WriteText writes the short summary a person reads at a glance: what
// became of the URLs, the hosts that backed off and how far, the hosts that
// stopped early, and the first dead URLs and rejected seed lines.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	t := r.Totals
	fmt.Fprintf(&b, "polite: job %q, run %d: %s after %s, exit %d\n", r.Job, r.RunID, r.StopReason, HumanDuration(r.DurationS), r.ExitCode)
	fmt.Fprintf(&b, "  %d done, %d not modified, %d excluded, %d dead, %d waiting for the next run\n",
		t.Done, t.NotModified, t.Excluded, t.Dead, t.Waiting)
	if t.Requisites > 0 {
		fmt.Fprintf(&b, "  of them %d %s from %d %s (images, stylesheets, scripts...)\n", t.Requisites,
			Plural(t.Requisites, "requisite", "requisites"), t.RequisiteHosts, Plural(t.RequisiteHosts, "host", "hosts"))
	}
	rate := 0.0
	if r.DurationS > 0 {
		rate = float64(t.Requests) / r.DurationS
	}
	fmt.Fprintf(&b, "  %d %s to %d %s (%.1f/s), %d %s, %d throttled (429/503), %s\n",
		t.Requests, Plural(t.Requests, "request", "requests"), len(r.Hosts), Plural(len(r.Hosts), "host", "hosts"),
		rate, t.Retries, Plural(t.Retries, "retry", "retries"), t.Throttled, HumanBytes(t.Bytes))
	if len(r.BudgetsBound) > 0 {
		fmt.Fprintf(&b, "  budgets reached: %s\n", r.Budgets())
	}

	if r.LeaseLost > 0 {
		fmt.Fprintf(&b, "  error: %d %s recorded after the lease had gone to another worker (dropped)\n",
			r.LeaseLost, Plural(r.LeaseLost, "entry", "entries"))
	}
	r.Sitemaps.writeText(&b)
	r.Changes.writeText(&b)
	r.writeGroups(&b)
	r.writeBackedOff(&b)
	r.writeStopped(&b)
	r.writeUsage(&b)
	for _, x := range r.ExcludedBy { // the hosts it covered whole are among those stopped
		if x.URLs > 0 {
			fmt.Fprintf(&b, "  %d %s excluded by the operator: %s\n", x.URLs, Plural(x.URLs, "URL", "URLs"), x.Rule)
		}
	}
	for i, d := range r.Dead {
		if i == textLimit {
			fmt.Fprintf(&b, "  ... and %d more dead URLs\n", len(r.Dead)-textLimit)
			break
		}
		fmt.Fprintf(&b, "  dead: %s (%s, %d %s)\n", d.URL, d.Reason, d.Attempts, Plural(d.Attempts, "attempt", "attempts"))
	}
	for i, rj := range r.Rejected {
		if i == textLimit {
			fmt.Fprintf(&b, "  ... and %d more rejected seed lines\n", len(r.Rejected)-textLimit)
			break
		}
		fmt.Fprintf(&b, "  rejected seed: %s\n", rj)
	}
	switch {
	case r.Unwritten:
		fmt.Fprintf(&b, "  details: report.json and report.html could not be written in %s; polite report %d shows them from the database\n", r.OutDir, r.RunID)
	case r.RunDir != "":
		fmt.Fprintf(&b, "  details: %s (report.html, report.json); every body: %s\n",
			r.RunDir, filepath.Join(r.OutDir, output.ManifestName))
	case r.OutDir != "":
		fmt.Fprintf(&b, "  details: %s (report.html, report.json, manifest.jsonl)\n", r.OutDir)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeBackedOff lists the hosts that backed off, the furthest first.
func (r *Report) writeBackedOff(b *strings.Builder) {
	var backed []*HostStats
	for _, h := range r.Hosts {
		if h.BackedOff() {
			backed = append(backed, h)
		}
	}
	sort.SliceStable(backed, func(i, j int) bool { return backed[i].DelayMaxS > backed[j].DelayMaxS })
	if len(backed) > 0 {
		fmt.Fprintf(b, "  backed off (delay at start -> highest -> end):\n")
		width := 0
		for i, h := range backed {
			if i < textLimit {
				width = max(width, len(h.Host))
			}
		}
		for i, h := range backed {
			if i == textLimit {
				fmt.Fprintf(b, "    ... and %d more\n", len(backed)-textLimit)
				break
			}
			fmt.Fprintf(b, "    %-*s  %s -> %s -> %s%s\n", width, h.Host,
				HumanSeconds(h.DelayStartS), HumanSeconds(h.DelayMaxS), HumanSeconds(h.DelayEndS), backoffWhy(h))
		}
	}

}

// writeStopped lists the hosts that stopped before their work was done,
// grouped by why.
func (r *Report) writeStopped(b *strings.Builder) {
	for i, h := range r.Unreachable() {
		if i == textLimit {
			fmt.Fprintf(b, "  ... and %d more unreachable hosts\n", len(r.Unreachable())-textLimit)
			break
		}
		fmt.Fprintf(b, "  unreachable all run: %s (%s)\n", h.Host, h.StoppedReason)
	}
	stopped := map[string][]string{}
	var reasons []string
	for _, h := range r.Hosts {
		why := h.StoppedReason
		if why == "" { // a report of an older polite: the reason was in Stopped
			why = h.Stopped.String()
		}
		if !stoppedEarly(h.Stopped) {
			continue
		}
		if stopped[why] == nil {
			reasons = append(reasons, why)
		}
		stopped[why] = append(stopped[why], h.Host)
	}
	sort.Strings(reasons)
	for _, why := range reasons {
		hs := stopped[why]
		names := strings.Join(hs[:min(len(hs), 3)], ", ")
		if len(hs) > 3 {
			names += fmt.Sprintf(" and %d more", len(hs)-3)
		}
		fmt.Fprintf(b, "  %d %s stopped (%s): %s\n", len(hs), Plural(len(hs), "host", "hosts"), why, names)
	}

}

// stoppedEarly reports whether a host that stopped for s is listed as
// stopped before its work was done: not when its work was done, nor when
// it was unreachable (listed apart), nor when no stop was recorded.
func stoppedEarly(s frontier.Stop) bool {
	switch s {
	case "", frontier.StopDone, frontier.StopUnreachable:
		return false
	case frontier.StopPrivate, frontier.StopRobots, frontier.StopCrawlDelay, frontier.StopTLS, frontier.StopDeferred,
		frontier.StopBudget, frontier.StopInterrupted, frontier.StopError, frontier.StopOperator, frontier.StopAuth:
		return true
	}
	return true // a report of an older polite: its sentence
}

// Summary is the report in one line, as the runs table keeps it.
func (r *Report) Summary() string {
	var sum strings.Builder
	t := r.Totals
	fmt.Fprintf(&sum, "%d done, %d not modified, %d excluded, %d dead, %d waiting", t.Done, t.NotModified, t.Excluded, t.Dead, t.Waiting)
	if n := len(r.Unreachable()); n > 0 {
		fmt.Fprintf(&sum, ", %d %s unreachable", n, Plural(n, "host", "hosts"))
	}
	if n := len(r.TLSRefused()); n > 0 {
		fmt.Fprintf(&sum, ", %d %s TLS refused", n, Plural(n, "host's", "hosts'"))
	}
	if n := len(r.Refusing()); n > 0 {
		fmt.Fprintf(&sum, ", %d %s refusing (401, 403)", n, Plural(n, "host", "hosts"))
	}
	if len(r.BudgetsBound) > 0 {
		fmt.Fprintf(&sum, " (%s)", r.Budgets())
	}
	return sum.String()
}
