package cmd

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/output"
	"github.com/polite-crawler/polite/crawl/wacz"
)

// waczOptions are the flags of polite wacz.
type waczOptions struct {
	Job string
	Out string
}

// waczDB is what polite wacz needs, and what a crawl records its WARC
// files in.
type waczDB interface {
	output.WarcFiles
	jobsDB
	WarcFiles(job string) ([]frontier.WarcFile, error)
	Runs(limit int) ([]frontier.Run, error)
}

func newWaczCmd(io IO, g *globals) *cobra.Command {
	opts := &waczOptions{}
	cmd := &cobra.Command{
		Use:   "wacz [--job JOB] -o FILE.wacz",
		Short: "Package a job's WARC files as one WACZ file",
		Long: `Package every WARC file a job's runs wrote (crawl --warc) as one WACZ 1.1.1
file: the WARC files, their CDXJ indexes merged, pages/pages.jsonl (each HTML
page captured, with its title and time) and datapackage.json with each
file's SHA-256. One file replays the job's whole history, a later run's
revisits resolved against the earlier runs' captures, in ReplayWeb.page or
any WACZ reader. Without --job, the job of the newest run.

A WARC file's index is written when its run ends: a run still going, or
killed, is an error naming the file.`,
		Example: `  polite wacz -o site.wacz
  polite wacz --job seeds.txt -o site.wacz`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Out == "" {
				return fmt.Errorf("%w: polite wacz needs -o FILE.wacz", errUsage)
			}
			return g.withDB(func(db appDB) error { return runWacz(io, db, opts, time.Now()) })
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Job, "job", "", "the job to package (default: the newest run's)")
	f.StringVarP(&opts.Out, "out", "o", "", "the WACZ `file` to write")
	return cmd
}

func runWacz(io IO, db waczDB, opts *waczOptions, now time.Time) error {
	job := opts.Job
	if err := findJob(db, &job); err != nil {
		return err
	}
	if job == "" {
		runs, err := db.Runs(1)
		if err != nil {
			return err
		}
		if len(runs) == 0 {
			return errors.New("no run yet: nothing to package")
		}
		job = runs[0].Job
	}
	title, err := jobTitle(db, job)
	if err != nil {
		return err
	}
	files, err := db.WarcFiles(job)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("job %q wrote no WARC files (crawl with --warc)", title)
	}
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	tmp, err := os.CreateTemp(filepath.Dir(opts.Out), ".wacz-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	err = wacz.Write(tmp, wacz.Package{Title: title, Software: "polite/" + Version, Created: now, WARCs: paths})
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), opts.Out)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", opts.Out, err)
	}
	fmt.Fprintf(io.Out, "%s: %d WARC files of job %s\n", opts.Out, len(paths), title)
	return nil
}

// jobTitle is the job's display name, or the short name its WARC files
// carry when it has none.
func jobTitle(db jobsDB, job string) (string, error) {
	js, err := db.Jobs()
	if err != nil {
		return "", err
	}
	for _, j := range js {
		if j.Key == job && j.Name != "" {
			return j.Name, nil
		}
	}
	return output.JobName(job), nil
}
