package cmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/report"
	"github.com/polite-crawler/polite/store"
)

// reportOptions are the flags of polite report.
type reportOptions struct {
	Run  string // run number, "last" or "" for the newest
	Job  string // with no run number: the newest run of this job
	JSON bool
	HTML string // file to write the page to, "-" for stdout
}

func newReportCmd(io IO, g *globals) *cobra.Command {
	opts := &reportOptions{}
	cmd := &cobra.Command{
		Use:   "report [RUN]",
		Short: "Show the report of a past run again",
		Long: `Show the report of a past run again, from the database: the short text
summary by default, report.json with --json, or the page report.html with
--html FILE (- for stdout). RUN is a run number as polite runs lists them;
without it, the newest finished run (of --job, when given).`,
		Example: `  polite report
  polite report 12
  polite report --job nightly --html /tmp/nightly.html
  polite report 12 --json | jq '.hosts[] | {host, "429": .["429"], delay_end_s}'`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Run = args[0]
			}
			return g.withDB(func(db appDB) error {
				if err := findJob(db, &opts.Job); err != nil {
					return err
				}
				return runReport(io.Out, db, opts)
			})
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.JSON, "json", false, "print report.json")
	f.StringVar(&opts.HTML, "html", "", "write the HTML report to this file (- for stdout)")
	f.StringVar(&opts.Job, "job", "", "without RUN: the newest run of this job")
	return cmd
}

// reportDB is what polite report reads.
type reportDB interface {
	Runs(limit int) ([]frontier.Run, error)
	GetRun(id int64) (frontier.Run, error)
}

func runReport(w io.Writer, db reportDB, o *reportOptions) error {
	if o.JSON && o.HTML == "-" {
		return fmt.Errorf("%w: --json and --html - both write to stdout; give --html a file", errUsage)
	}
	run, rep, err := runReportOf(db, o.Run, o.Job)
	if err != nil {
		return err
	}
	switch o.HTML {
	case "":
	case "-":
		return rep.WriteHTML(w)
	default:
		if err := writeFileAtomic(o.HTML, rep.WriteHTML); err != nil {
			return err
		}
	}
	if o.JSON {
		var b bytes.Buffer
		if err := json.Indent(&b, run.Report, "", "  "); err != nil {
			return fmt.Errorf("read the report of run %d: %w", run.ID, err)
		}
		b.WriteByte('\n')
		_, err := w.Write(b.Bytes())
		return err
	}
	if o.HTML != "" {
		_, err := fmt.Fprintf(w, "wrote %s (job %s, run %d)\n", o.HTML, run.Job, run.ID)
		return err
	}
	return rep.WriteText(w)
}

// findRun returns the run named by arg: a run number, or "" or "last" for
// the newest finished run (of job, when given).
func findRun(db reportDB, arg, job string) (frontier.Run, error) {
	if arg != "" && arg != "last" {
		id, err := strconv.ParseInt(arg, 10, 64)
		if err != nil || id < 1 {
			return frontier.Run{}, fmt.Errorf("%w: RUN must be a run number (see polite runs), got %q", errUsage, arg)
		}
		r, err := db.GetRun(id)
		if errors.Is(err, store.ErrNotFound) {
			return frontier.Run{}, fmt.Errorf("no run %d (polite runs lists them)", id)
		}
		return r, err
	}
	rs, err := listRuns(db, job, 0, time.Now())
	if err != nil {
		return frontier.Run{}, err
	}
	for _, r := range rs {
		if !r.Ended.IsZero() {
			return db.GetRun(r.ID)
		}
	}
	if job != "" {
		return frontier.Run{}, fmt.Errorf("no finished run of job %q yet", job)
	}
	return frontier.Run{}, errors.New("no finished run yet")
}

// writeFileAtomic writes a file through a temporary name in the same
// folder and renames it, so that the file is whole or absent.
func writeFileAtomic(name string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	defer os.Remove(f.Name())
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := os.Rename(f.Name(), name); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	return nil
}

// runReportOf finds the run runArg names (the newest finished one of job
// when runArg is ""), and reads its report.
func runReportOf(db reportDB, runArg, job string) (frontier.Run, *report.Report, error) {
	run, err := findRun(db, runArg, job)
	if err != nil {
		return run, nil, err
	}
	if len(run.Report) == 0 {
		return run, nil, fmt.Errorf("run %d of job %s has no report: it is still running, or it died before writing one", run.ID, run.Job)
	}
	rep := &report.Report{}
	if err := json.Unmarshal(run.Report, rep); err != nil {
		return run, nil, fmt.Errorf("read the report of run %d: %w", run.ID, err)
	}
	return run, rep, nil
}
