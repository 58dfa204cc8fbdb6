package cmd

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/report"
)

// runsOptions are the flags of polite runs.
type runsOptions struct {
	JSON  bool
	Job   string
	Limit int
	Now   func() time.Time
	Loc   *time.Location // where start times are shown; time.Local when nil
}

func newRunsCmd(io IO, g *globals) *cobra.Command {
	opts := &runsOptions{Now: time.Now}
	cmd := &cobra.Command{
		Use:   "runs",
		Short: "List past runs, newest first",
		Long: `List past runs, newest first: the run number that polite report takes, the
job, when it started and how long it took, its exit code and what became of
its URLs. A run without an end is running while its crawl refreshes its
heartbeat (every 30s); one silent for longer than 90s died without saving
its end and is shown as died.`,
		Example: `  polite runs
  polite runs --job nightly --limit 5
  polite runs --json | jq '.[] | select(.exit_code != 0) | .id'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return g.withDB(func(db appDB) error {
				if err := findJob(db, &opts.Job); err != nil {
					return err
				}
				return runRuns(io.Out, db, opts)
			})
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.JSON, "json", false, "print JSON")
	f.StringVar(&opts.Job, "job", "", "only the runs of this job")
	f.IntVarP(&opts.Limit, "limit", "n", 20, "how many runs to list (0: all)")
	return cmd
}

// runsDB is what polite runs reads.
type runsDB interface {
	Runs(limit int) ([]frontier.Run, error)
}

// runJSON is a run as polite runs --json prints it: the row, its state,
// and the counts of its report as numbers.
type runJSON struct {
	runRow
	State        string            `json:"state"` // "ended", "running" or "died"
	Stop         frontier.RunStop  `json:"stop,omitempty"`
	Totals       *report.Totals    `json:"totals,omitempty"`
	BudgetsBound []frontier.Budget `json:"budgets_bound,omitempty"`
	Unreachable  []string          `json:"unreachable,omitempty"` // hosts no request reached
}

// runsJSON adds to each run what its report says, read from db when it
// can give reports.
func runsJSON(db runsDB, rs []runRow) ([]runJSON, error) {
	out := make([]runJSON, 0, len(rs))
	reports, _ := db.(interface {
		GetRun(int64) (frontier.Run, error)
	})
	for _, r := range rs {
		j := runJSON{runRow: r, State: "ended"}
		switch {
		case r.Died:
			j.State = "died"
		case r.Ended.IsZero():
			j.State = "running"
		}
		if reports != nil && j.State == "ended" {
			full, err := reports.GetRun(r.ID)
			if err != nil {
				return nil, err
			}
			var rep report.Report
			if json.Unmarshal(full.Report, &rep) == nil {
				j.Stop, j.Totals, j.BudgetsBound = rep.Stop, &rep.Totals, rep.BudgetsBound
				for _, h := range rep.Unreachable() {
					j.Unreachable = append(j.Unreachable, h.Host)
				}
			}
		}
		out = append(out, j)
	}
	return out, nil
}

func runRuns(w io.Writer, db runsDB, o *runsOptions) error {
	if o.Limit < 0 {
		return fmt.Errorf("%w: --limit must not be negative", errUsage)
	}
	rs, err := listRuns(db, o.Job, o.Limit, o.Now())
	if err != nil {
		return err
	}
	if o.JSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		js, err := runsJSON(db, rs)
		if err != nil {
			return err
		}
		return enc.Encode(js)
	}
	if len(rs) == 0 {
		if o.Job != "" {
			_, err := fmt.Fprintf(w, "no runs of job %q yet\n", o.Job)
			return err
		}
		_, err := fmt.Fprintln(w, "no runs yet")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	writeRuns(tw, rs, o.Now(), o.Loc)
	return tw.Flush()
}

// listRuns returns the newest runs first, of one job when job is not "",
// at most limit (0: all).
func listRuns(db runsDB, job string, limit int, now time.Time) ([]runRow, error) {
	n := limit
	if job != "" {
		n = 0
	}
	runs, err := db.Runs(n)
	if err != nil {
		return nil, err
	}
	names := map[string]string{}
	if jdb, ok := db.(jobsDB); ok {
		js, err := jdb.Jobs()
		if err != nil {
			return nil, err
		}
		for _, j := range js {
			names[j.Key] = j.Name
		}
	}
	var rs []runRow
	for _, r := range runs {
		if job != "" && r.Job != job {
			continue
		}
		if limit > 0 && len(rs) == limit {
			break
		}
		row := runRow{ID: r.ID, Job: r.Job, Name: names[r.Job], Started: r.StartedAt, Ended: r.EndedAt, ExitCode: r.ExitCode, Summary: r.Summary,
			Died: r.Died(now), PaceBy: r.PaceBy}
		if !r.EndedAt.IsZero() {
			row.DurationS = r.EndedAt.Sub(r.StartedAt).Seconds()
		}
		rs = append(rs, row)
	}
	return rs, nil
}

// writeRuns writes the runs as table rows, header first.
func writeRuns(tw *tabwriter.Writer, rs []runRow, now time.Time, loc *time.Location) {
	if loc == nil {
		loc = time.Local
	}
	fmt.Fprintln(tw, "RUN\tJOB\tSTARTED\tTOOK\tEXIT\tSUMMARY")
	for _, r := range rs {
		took, exit, sum := report.HumanDuration(r.DurationS), fmt.Sprint(r.ExitCode), r.Summary
		switch {
		case r.Died:
			took, exit, sum = "-", "-", "died (no end saved, no heartbeat for "+report.HumanDuration(frontier.Stale.Seconds())+")"
		case r.Ended.IsZero():
			took, exit, sum = "-", "-", "running"
		}
		if r.PaceBy != "" && r.PaceBy != "host" {
			sum = "paced by " + r.PaceBy + "; " + sum
		}
		fmt.Fprintf(tw, "%d\t%s\t%s (%s)\t%s\t%s\t%s\n", r.ID, cmp.Or(r.Name, r.Job),
			r.Started.In(loc).Format("2006-01-02 15:04"), ago(now.Sub(r.Started)), took, exit, sum)
	}
}
