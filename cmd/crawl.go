package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/revisit"
	"github.com/polite-crawler/polite/crawl/seeds"
	"github.com/polite-crawler/polite/crawl/urls"
	usepref "github.com/polite-crawler/polite/crawl/usage"
)

// crawlOptions are the flags and arguments of polite crawl.
type crawlOptions struct {
	Args            []string // seed file, - or URLs
	Strict          bool
	Job             string
	Contact         string
	FloorHosts      []string
	Headers         []string // --header 'Name: value'
	HostHeaders     []string // --header-host HOST='Name: value'
	HeaderFile      string   // --header-file FILE
	SlowDownPattern string
	Purpose         string // --purpose
	Progress        string
	Config          crawl.Config

	Now    func() time.Time    // names the jobs of stdin and URL arguments
	Getenv func(string) string // POLITE_CONTACT, POLITE_HEADERS, XDG_CONFIG_HOME, HOME

	source seedSource
}

func newCrawlCmd(io IO, g *globals) *cobra.Command {
	opts := &crawlOptions{Config: crawl.DefaultConfig(), Now: time.Now, Getenv: os.Getenv}
	cmd := &cobra.Command{
		Use:   "crawl SEEDS | - | URL...",
		Short: "Fetch the URLs of a seed file, stdin or the command line, politely",
		Long: `Fetch the URLs of a seed file, of stdin (-) or given as arguments (one or
more http or https URLs). A seed file has one URL per line, an optional
integer priority after it (higher first), blank lines and # comments
ignored. An argument that is no file but an http(s) URL is taken as a URL.

Without --job the job is the seed file's absolute path, so two seeds.txt in
two folders never share a frontier; URL arguments are one job, their sorted
set, so the same URLs crawled again are asked conditionally; stdin is a job
of its own each run (stdin@TIME): give --job to resume it. A job also has a
short display name (--job's, the seed file's base name or the first URL's
host, made unique in the database), which its WARC files, manifest and
reports carry; other commands find a job by --job as crawl named it, by its
seed file, or by its display name.

Every host is paced by a controller that starts at --start, speeds up while
the host answers well, backs off on 429, 503 and rising latency, obeys
Retry-After, robots.txt Crawl-delay and Request-rate and RateLimit headers,
and remembers what it learned in the database for the next run.

--pace-by domain or ip paces names together: those of one registrable
domain, or those that resolve to one server address (any port; each name
resolved once a run, and that address dialled). A group has one pace, one
hold and the strictest floor of its names; --per-host counts its requests
together; robots.txt stays each host's. Behind a CDN, unrelated sites
share addresses: ip is a choice, not a default. Paced by host, polite says
when several names resolved to one address.

Sizes take units: 10MB (10^6 bytes), 512KiB, 2GiB (2^30), or plain bytes.

stdout carries the run's summary; with -q, only when the run does not end
0. stderr carries the log and, under -q too, what needs a person: each host
that gave no page all run (with why and when it may be tried again), the
dead URLs, and a job cut short by a budget in each of its last 3 runs. With
--log-format json every line on stderr is JSON.`,
		Example: `  polite crawl seeds.txt
  polite crawl https://example.org/ https://example.org/about
  polite crawl --out /srv/mirror --max-duration 50m --job nightly seeds.txt
  polite crawl --floor-host api.example.org=5s --max-body 50MB seeds.txt
  polite crawl --pace-by ip --depth 1 department-sites.txt
  polite crawl --header 'Accept: application/json' --header-file ~/.config/polite/api.headers https://api.example.org/items
  grep -v '^#' urls.txt | polite crawl --job adhoc -`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return fmt.Errorf("%w: polite crawl needs its seeds: a seed file, - for stdin, or one or more http(s) URLs "+
					"(polite crawl seeds.txt; polite crawl https://example.org/; see polite help crawl)", errUsage)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Args = args
			return runCrawl(cmd.Context(), io, g, opts)
		},
	}
	crawlFlags(cmd.Flags(), opts)
	return cmd
}

// config completes the crawl configuration from the options; log gets the
// warning about a missing contact.
func (o *crawlOptions) config(log *slog.Logger) (crawl.Config, error) {
	c := o.Config
	src, err := parseSeedArgs(o.Args)
	if err != nil {
		return c, err
	}
	o.source = src
	c.Job = o.Job
	if c.Job == "" {
		c.Job = src.job(o.Now())
	}
	if src.stdin && o.Job == "" {
		log.Warn("stdin without --job is a job of its own: nothing of this run will be resumed, "+
			"and its URLs will not be fetched conditionally next time", "job", c.Job, "fix", "give --job NAME")
	}
	if len(src.urls) > 0 {
		// URLs named on the command line are always asked for
		// (conditionally): the run revisits every URL of its job, as
		// --revisit always does, and --revisit-min does not hold them back.
		c.Revisit.Mode, c.Revisit.Min = revisit.Always, 0
	}
	purposes, err := usepref.ParsePurposes(o.Purpose)
	if err != nil {
		return c, fmt.Errorf("%w: --purpose: %v", errUsage, err)
	}
	if c.UserAgent == "" {
		contact, from, err := resolveContact(o.Contact, o.Getenv)
		if err != nil {
			return c, err
		}
		if from == "" {
			log.Warn("no contact set: the User-Agent names polite's project, not you", "contact", contact,
				"fix", "set POLITE_CONTACT, or write your page or mail address to "+contactPath(o.Getenv))
		}
		c.UserAgent = fmt.Sprintf("polite/%s (+%s%s)", Version, contact, purposeNote(purposes))
	}
	c.Usage = usepref.NewPolicy(purposes, crawl.RobotsAgent(c))
	c.Software = "polite/" + Version
	if c.Requisites == "" && c.Warc {
		c.Requisites = urls.RequisitesAnyHost // an archive replays whole
	}
	if c.FloorHosts, err = parseFloorHosts(o.FloorHosts); err != nil {
		return c, err
	}
	if c.Headers, err = o.headers(); err != nil {
		return c, err
	}
	if c.Follow.MaxNext < 1 {
		return c, fmt.Errorf("%w: --max-next must be at least 1, got %d", errUsage, c.Follow.MaxNext)
	}
	re, err := crawl.CompileSlowDown(o.SlowDownPattern)
	if err != nil {
		return c, err
	}
	c.SlowDown = re
	switch o.Progress {
	case "auto", "always", "never":
	default:
		return c, fmt.Errorf("%w: --progress must be auto, always or never, got %q", errUsage, o.Progress)
	}
	return c, c.Validate()
}

// purposeNote announces the declared purposes in the default
// User-Agent's comment: "; purpose: train-ai,research".
func purposeNote(ps []usepref.Purpose) string {
	if len(ps) == 0 {
		return ""
	}
	return "; purpose: " + usepref.Join(ps)
}

// parseFloorHosts reads the --floor-host HOST=DURATION flags.
func parseFloorHosts(fhs []string) (map[string]time.Duration, error) {
	m := map[string]time.Duration{}
	for _, fh := range fhs {
		host, dur, ok := strings.Cut(fh, "=")
		d, err := time.ParseDuration(strings.TrimSpace(dur))
		if !ok || strings.TrimSpace(host) == "" || err != nil {
			return nil, fmt.Errorf("%w: --floor-host %q: want HOST=DURATION, e.g. example.org=3s", errUsage, fh)
		}
		if d < 0 || d > time.Hour {
			return nil, fmt.Errorf("%w: --floor-host %q: the delay must be between 0s and 1h", errUsage, fh)
		}
		key, err := urls.HostKey(host)
		if err != nil {
			return nil, fmt.Errorf("%w: --floor-host %q: %v", errUsage, fh, err)
		}
		m[key] = d
	}
	return m, nil
}

// openSeeds makes the crawl's seed source, giving up when ctx ends first:
// a signal while stdin is still open ends polite at once, before any run
// is recorded. Stdin is copied to a temporary file first, which cleanup
// removes. With --strict the whole source is checked here, a line at a
// time, before anything is enqueued.
func (o *crawlOptions) openSeeds(ctx context.Context, log *slog.Logger, in io.Reader) (src seeds.Source, cleanup func(), err error) {
	cleanup = func() {}
	type opened struct {
		src     seeds.Source
		cleanup func()
		err     error
	}
	tmp, err := o.source.stdinCopy()
	if err != nil {
		return src, cleanup, err
	}
	done := make(chan opened, 1)
	go func() {
		src, cleanup, err := o.source.open(ctx, in, tmp)
		if err == nil && o.Strict {
			err = checkSeeds(ctx, log, src)
		}
		done <- opened{src, cleanup, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			r.cleanup()
			return src, cleanup, r.err
		}
		return r.src, r.cleanup, nil
	case <-ctx.Done():
		// The copy of stdin may still be blocked on a read, and polite
		// ends before that returns: its file goes now (the copy goes on
		// into a file with no name, freed when it closes or polite ends).
		if tmp != nil {
			os.Remove(tmp.Name())
		}
		return src, cleanup, context.Cause(ctx)
	}
}

// checkSeeds reads the whole seed source as --strict wants it.
func checkSeeds(ctx context.Context, log *slog.Logger, src seeds.Source) error {
	r := io.Reader(strings.NewReader(strings.Join(src.Lines, "\n")))
	if src.Path != "" {
		f, err := os.Open(src.Path)
		if err != nil {
			return fmt.Errorf("%w: seed file: %v", errUsage, err)
		}
		defer f.Close()
		r = f
	}
	_, err := seeds.Check(src.Name, ctxReader{ctx, r})
	var se *seeds.Error
	if errors.As(err, &se) {
		seeds.WarnRejected(log, se.Rejected)
	}
	return err
}

// ctxReader stops reading once ctx ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if c.ctx.Err() != nil {
		return 0, context.Cause(c.ctx)
	}
	return c.r.Read(p)
}

func runCrawl(ctx context.Context, io IO, g *globals, o *crawlOptions) error {
	// --quiet wins over --progress always; log lines go above the bar;
	// JSON logs keep stderr for JSON alone unless --progress always.
	tty := io.IsTTY != nil && io.IsTTY()
	showBar := !g.Quiet && (o.Progress == "always" || (o.Progress == "auto" && tty && g.LogFormat != "json"))
	bar := newProgress(io.ErrOut, showBar)
	logger, err := g.logger(pipeWatch{bar.logWriter()}, false)
	if err != nil {
		return err
	}
	signalLog.Store(logger)
	defer signalLog.Store(nil)
	cfg, err := o.config(logger)
	if err != nil {
		return err
	}
	seeds, cleanup, err := o.openSeeds(ctx, logger, io.In)
	defer cleanup()
	if err != nil {
		return err
	}
	cfg.Seeds = seeds
	cfg.Logger = logger
	if showBar {
		cfg.Progress = bar.update
	}
	db, err := g.openDB()
	if err != nil {
		return err
	}
	defer db.Close()
	cfg.Shared, cfg.SeedTx, cfg.Trim, cfg.Wake, cfg.WarcFiles = db.shared, db.seedTx, db.trim, db.wake, db.appDB
	if cfg.JobName, err = db.NameJob(cfg.Job, o.source.displayName(cfg.Job, o.Job)); err != nil {
		return err
	}

	rep, err := crawl.Run(ctx, db.appDB, cfg)
	bar.finish(rep)
	if rep != nil {
		tellAttention(logger, db, cfg.Job, rep)
	}
	if rep != nil && !(g.Quiet && err == nil && rep.ExitCode == 0) {
		// A reader that went away (polite crawl ... | head -1) is no failure.
		if werr := rep.WriteText(io.Out); werr != nil && err == nil && !errors.Is(werr, syscall.EPIPE) {
			err = werr
		}
	}
	if err != nil {
		return err
	}
	if rep.ExitCode != crawl.ExitOK {
		return &exitError{code: rep.ExitCode}
	}
	return nil
}
