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

	"polite/pace"
	"polite/store"
)

type statusOptions struct {
	JSON     bool
	Host     string
	Floor    time.Duration
	HalfLife time.Duration
	Runs     int
	Job      string // --job: that job's frontier and dead URLs instead
	Now      func() time.Time
}

func newStatusCmd(io IO, g *globals) *cobra.Command {
	opts := &statusOptions{Now: time.Now}
	def := pace.DefaultConfig()
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show what polite has learned about every host, and the last runs",
		Long: `Show every known host: the delay the next run will start from (the stored
delay aged by the half-life), the stored delay and when it was set, the
floor and where it comes from, the last congestion signal and the age of the
cached robots.txt; then the last runs.`,
		Example: `  polite status
  polite status --host example.org
  polite status --json | jq '.hosts[] | select(.aged_delay_s > 5)'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			db, err := g.openDB()
			if err != nil {
				return err
			}
			defer db.Close()
			if opts.Job != "" {
				return runJobStatus(io.Out, db, opts.Job, opts.JSON)
			}
			return runStatus(io.Out, db, opts)
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
	SignalAt    time.Time `json:"last_signal_at,omitempty"`
	RobotsAge   string    `json:"robots_age,omitempty"`
	RobotsAt    time.Time `json:"robots_fetched_at,omitempty"`
	BaselineMS  float64   `json:"latency_baseline_ms,omitempty"`
}

type runRow struct {
	ID       int64     `json:"id"`
	Job      string    `json:"job"`
	Started  time.Time `json:"started"`
	Ended    time.Time `json:"ended,omitempty"`
	ExitCode int       `json:"exit_code"`
	Summary  string    `json:"summary"`
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
		floor, src := st.Floor, st.FloorSource
		if floor < o.Floor || src == "" {
			floor, src = max(floor, o.Floor), pace.FloorDefault
			if st.Floor > o.Floor {
				src = st.FloorSource
			}
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
	runs, err := db.Runs(o.Runs)
	if err != nil {
		return err
	}
	var rs []runRow
	for _, r := range runs {
		rs = append(rs, runRow{ID: r.ID, Job: r.Job, Started: r.StartedAt, Ended: r.EndedAt, ExitCode: r.ExitCode, Summary: r.Summary})
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
		fmt.Fprintln(tw, "HOST\tNEXT DELAY\tFLOOR\tLAST SIGNAL\tROBOTS.TXT")
		for _, r := range rows {
			sig := "-"
			if r.LastSignal != "" {
				sig = r.LastSignal + ", " + ago(now.Sub(r.SignalAt))
			}
			rob := "-"
			if r.RobotsAge != "" {
				rob = "fetched " + r.RobotsAge
			}
			fmt.Fprintf(tw, "%s\t%.2fs (from %.2fs, set %s)\t%.2fs (%s)\t%s\t%s\n",
				r.Host, r.AgedDelayS, r.StoredS, ago(now.Sub(r.SetAt)), r.FloorS, r.FloorSource, sig, rob)
		}
	}
	if len(rs) > 0 {
		fmt.Fprintln(tw)
		fmt.Fprintln(tw, "RUN\tJOB\tSTARTED\tEXIT\tSUMMARY")
		for _, r := range rs {
			exit := fmt.Sprint(r.ExitCode)
			if r.Ended.IsZero() {
				exit = "-"
			}
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", r.ID, r.Job, ago(now.Sub(r.Started)), exit, r.Summary)
		}
	}
	return tw.Flush()
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
