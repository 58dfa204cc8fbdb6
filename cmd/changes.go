package cmd

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/polite-crawler/polite/crawl/report"
)

// changesOptions are the flags of polite changes.
type changesOptions struct {
	Run  string // run number, "last" or "" for the newest
	Job  string // with no run number: the newest run of this job
	JSON bool
}

func newChangesCmd(io IO, g *globals) *cobra.Command {
	opts := &changesOptions{}
	cmd := &cobra.Command{
		Use:   "changes [RUN]",
		Short: "Show what a past run found changed",
		Long: `Show what a run's fetches found against the fetches before them, from
the database: how many pages were new, changed, unchanged or gone and how
many URLs were not due (not asked for), then the changed and gone pages
(the first 20 of each). RUN is a run number as polite runs lists them;
without it, the newest finished run (of --job, when given).

The text is empty when the run found nothing new, changed or gone, so a
cron line mails only when something changed. --json prints the counts
and URLs as report.json's changes, always.`,
		Example: `  polite changes --job nightly
  polite changes 12 --json | jq -r '.changes.changed_urls[]'
  # cron: mail only when a page changed
  30 2 * * *  polite crawl -q --job nightly seeds.txt && polite changes --job nightly`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Run = args[0]
			}
			return g.withDB(func(db appDB) error {
				if err := findJob(db, &opts.Job); err != nil {
					return err
				}
				return runChanges(io.Out, db, opts)
			})
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.JSON, "json", false, "print the changes as JSON")
	f.StringVar(&opts.Job, "job", "", "without RUN: the newest run of this job")
	return cmd
}

// changesJSON is what polite changes --json prints.
type changesJSON struct {
	Job     string          `json:"job"`
	Run     int64           `json:"run"`
	Start   time.Time       `json:"start"`
	Changes *report.Changes `json:"changes"`
}

func runChanges(w io.Writer, db reportDB, o *changesOptions) error {
	run, rep, err := runReportOf(db, o.Run, o.Job)
	if err != nil {
		return err
	}
	job := cmp.Or(rep.Job, run.Job) // the job's display name, when the report has it
	c := rep.Changes
	if c == nil {
		c = &report.Changes{} // a run before revisits, or one that fetched nothing
	}
	if o.JSON {
		b, _ := json.MarshalIndent(changesJSON{Job: job, Run: run.ID, Start: run.StartedAt.UTC(), Changes: c}, "", "  ")
		_, err := fmt.Fprintf(w, "%s\n", b)
		return err
	}
	if c.New+c.Changed+c.Gone == 0 {
		return nil
	}
	fmt.Fprintf(w, "job %q, run %d (%s): %s\n", job, run.ID, run.StartedAt.UTC().Format(time.RFC3339), c.Line())
	for _, u := range c.ChangedURLs {
		fmt.Fprintf(w, "changed  %s\n", u)
	}
	for _, u := range c.GoneURLs {
		fmt.Fprintf(w, "gone     %s\n", u)
	}
	if more := c.Changed - len(c.ChangedURLs); more > 0 {
		fmt.Fprintf(w, "... and %d more changed (the report names the first %d)\n", more, report.MaxChangedURLs)
	}
	if more := c.Gone - len(c.GoneURLs); more > 0 {
		fmt.Fprintf(w, "... and %d more gone (the report names the first %d)\n", more, report.MaxChangedURLs)
	}
	return nil
}
