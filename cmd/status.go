package cmd

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/pace"
	"github.com/polite-crawler/polite/store"
)

type statusOptions struct {
	JSON     bool
	Host     string
	Floor    time.Duration
	FloorSet bool // --floor was given
	HalfLife time.Duration
	Runs     int
	Job      string // --job: that job's frontier and dead URLs instead
	Now      func() time.Time
	Loc      *time.Location // where run start times are shown; time.Local when nil
}

func newStatusCmd(io IO, g *globals) *cobra.Command {
	opts := &statusOptions{Now: time.Now}
	def := pace.DefaultConfig()
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show what polite has learned about every host, and the last runs",
		Long: `Show every known host, slowest first: NEXT DELAY is the stored delay aged
by the half-life, where the next run starts, then in brackets the delay as
last set and when; FLOOR is the binding floor, as recorded with the host, and where it comes from (default,
floor-host, crawl-delay, request-rate, ratelimit); LAST SIGNAL is the last
congestion signal (429, 503, latency, slow-down, breaker); then the time to
first byte baseline and the age of the cached robots.txt. Below, the last
runs (polite runs lists them all).

Give --half-life (and --floor) when the crawls use other values, so that
the ageing shown is theirs. --job J shows that job's URLs by state and its
dead URLs with their reasons instead.`,
		Example: `  polite status
  polite status --host example.org
  polite status --runs 20
  polite status --json | jq '.hosts[] | select(.aged_delay_s > 5)'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return g.withDB(func(db *store.DB) error {
				opts.FloorSet = cmd.Flags().Changed("floor")
				if opts.Job != "" {
					return runJobStatus(io.Out, db, opts.Job, opts.JSON)
				}
				return runStatus(io.Out, db, opts)
			})
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.JSON, "json", false, "print JSON")
	f.StringVar(&opts.Host, "host", "", "only hosts containing this text")
	f.DurationVar(&opts.Floor, "floor", def.Floor, "default floor, as given to crawl")
	f.DurationVar(&opts.HalfLife, "half-life", def.HalfLife, "half-life, as given to crawl")
	f.IntVar(&opts.Runs, "runs", 5, "how many recent runs to list")
	f.StringVar(&opts.Job, "job", "", "show this job's frontier: URLs per state and the dead ones with their reasons")
	return cmd
}

// hostStatus is one row of polite status.
type hostStatus struct {
	Host        string    `json:"host"`
	AgedDelayS  float64   `json:"aged_delay_s"`
	StoredS     float64   `json:"stored_delay_s"`
	SetAt       time.Time `json:"set_at"`
	FloorS      float64   `json:"floor_s"`
	FloorSource string    `json:"floor_source"`
	LastSignal  string    `json:"last_signal,omitempty"`
	SignalAt    time.Time `json:"last_signal_at,omitzero"`
	RobotsAge   string    `json:"robots_age,omitempty"`
	RobotsAt    time.Time `json:"robots_fetched_at,omitzero"`
	BaselineMS  float64   `json:"latency_baseline_ms,omitempty"`
}

type runRow struct {
	ID        int64     `json:"id"`
	Job       string    `json:"job"`
	Started   time.Time `json:"started"`
	Ended     time.Time `json:"ended,omitzero"`
	ExitCode  int       `json:"exit_code"`
	DurationS float64   `json:"duration_s,omitempty"`
	Summary   string    `json:"summary"`
	Died      bool      `json:"died,omitempty"` // no end saved and no heartbeat for store.LockStale
}

// statusDB is what status reads.
type statusDB interface {
	States() ([]pace.State, error)
	RobotsCopies() ([]store.RobotsCopy, error)
	Runs(limit int) ([]store.Run, error)
}

func runStatus(w io.Writer, db statusDB, o *statusOptions) error {
	now := o.Now()
	states, err := db.States()
	if err != nil {
		return err
	}
	copies, err := db.RobotsCopies()
	if err != nil {
		return err
	}
	robotsAt := map[string]time.Time{}
	for _, c := range copies {
		robotsAt[c.Host] = c.FetchedAt
	}
	var rows []hostStatus
	for _, st := range states {
		if o.Host != "" && !strings.Contains(st.Host, o.Host) {
			continue
		}
		// The floor recorded with the state binds; --floor, when given,
		// replaces the default floor the crawl ran with.
		floor, src := st.Floor, st.FloorSource
		if src == "" || (o.FloorSet && (src == pace.FloorDefault || o.Floor > floor)) {
			floor, src = o.Floor, pace.FloorDefault
		}
		r := hostStatus{
			Host: st.Host, AgedDelayS: pace.Aged(st, floor, o.HalfLife, now).Seconds(),
			StoredS: st.Delay.Seconds(), SetAt: st.SetAt, FloorS: floor.Seconds(), FloorSource: string(src),
			LastSignal: st.LastSignal, SignalAt: st.CongestionAt, BaselineMS: float64(st.Baseline.Microseconds()) / 1000,
		}
		if t, ok := robotsAt[st.Host]; ok {
			r.RobotsAt, r.RobotsAge = t, ago(now.Sub(t))
		}
		rows = append(rows, r)
	}
	sort.SliceStable(rows, func(i, j int) bool {
		if rows[i].AgedDelayS != rows[j].AgedDelayS {
			return rows[i].AgedDelayS > rows[j].AgedDelayS
		}
		return rows[i].Host < rows[j].Host
	})
	rs, err := listRuns(db, "", o.Runs, now)
	if err != nil {
		return err
	}
	if o.JSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Hosts []hostStatus `json:"hosts"`
			Runs  []runRow     `json:"runs"`
		}{nonNil(rows), nonNil(rs)})
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if len(rows) == 0 {
		fmt.Fprintln(tw, "no hosts known yet")
	} else {
		known := "known"
		if o.Host != "" {
			known = fmt.Sprintf("matching %q", o.Host)
		}
		fmt.Fprintf(tw, "%d %s %s, slowest first; NEXT DELAY is where the next run starts (half-life %s)\n\n",
			len(rows), plural(len(rows), "host", "hosts"), known, shortDuration(o.HalfLife))
		fmt.Fprintln(tw, "HOST\tNEXT DELAY\tFLOOR\tLAST SIGNAL\tTTFB BASELINE\tROBOTS.TXT")
		for _, r := range rows {
			sig := "-"
			if r.LastSignal != "" {
				sig = r.LastSignal + ", " + ago(now.Sub(r.SignalAt))
			}
			base := "-"
			switch {
			case r.BaselineMS >= 10:
				base = fmt.Sprintf("%.0fms", r.BaselineMS)
			case r.BaselineMS > 0:
				base = fmt.Sprintf("%.1fms", r.BaselineMS)
			}
			rob := "-"
			if r.RobotsAge != "" {
				rob = "fetched " + r.RobotsAge
			}
			fmt.Fprintf(tw, "%s\t%s (from %s, set %s)\t%s (%s)\t%s\t%s\t%s\n",
				r.Host, crawl.HumanSeconds(r.AgedDelayS), crawl.HumanSeconds(r.StoredS), ago(now.Sub(r.SetAt)),
				crawl.HumanSeconds(r.FloorS), r.FloorSource, sig, base, rob)
		}
	}
	if len(rs) > 0 {
		fmt.Fprintln(tw)
		writeRuns(tw, rs, now, o.Loc)
	}
	return tw.Flush()
}

// shortDuration prints a flag's duration without trailing zero units:
// "10m", "1h30m", "90s".
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// ago renders an age the way a person says it: "just now", "42s ago",
// "5m ago", "2h ago", "3d ago".
func ago(d time.Duration) string {
	switch {
	case d < time.Second:
		return "just now"
	case d < time.Minute:
		return fmt.Sprintf("%ds ago", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}
