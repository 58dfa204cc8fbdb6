package cmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/polite-crawler/polite/crawl"
)

// crawlOptions are the flags of polite crawl.
type crawlOptions struct {
	Seeds           string
	Strict          bool
	Job             string
	Contact         string
	FloorHosts      []string
	SlowDownPattern string
	Progress        string
	Config          crawl.Config
}

func newCrawlCmd(io IO, g *globals) *cobra.Command {
	opts := &crawlOptions{Config: crawl.DefaultConfig()}
	c := &opts.Config
	cmd := &cobra.Command{
		Use:   "crawl SEEDS",
		Short: "Fetch the URLs of a seed file, politely",
		Long: `Fetch the URLs of a seed file (- for stdin): one URL per line, an optional
integer priority after it (higher first), blank lines and # comments ignored.

Every host is paced by a controller that starts at --start, speeds up while
the host answers well, backs off on 429, 503 and rising latency, obeys
Retry-After, robots.txt Crawl-delay and Request-rate and RateLimit headers,
and remembers what it learned in the database for the next run.

Exit codes: 0 every URL fetched, unchanged or excluded by the site's rules
(URLs left waiting by a budget are not a failure); 1 some URLs failed for
good; 2 usage or input error; 3 another crawl holds the database;
130/143 interrupted by SIGINT/SIGTERM after saving state.`,
		Example: `  polite crawl seeds.txt
  polite crawl --out /srv/mirror --max-duration 50m --job nightly seeds.txt
  polite crawl --floor-host api.example.org=5s --max-per-host 1000 seeds.txt
  grep -v '^#' urls.txt | polite crawl --job adhoc -`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Seeds = args[0]
			return runCrawl(cmd.Context(), io, g, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Job, "job", "", "job name (default: the seed file's base name)")
	f.BoolVar(&opts.Strict, "strict", false, "refuse the whole seed file if any line is bad")
	f.StringVarP(&c.OutDir, "out", "o", c.OutDir, "folder for bodies, manifest.jsonl and the reports")
	f.StringVar(&c.UserAgent, "user-agent", "", "User-Agent to send (default \"polite/VERSION (+CONTACT)\")")
	f.StringVar(&opts.Contact, "contact", ProjectURL, "URL or address named in the default User-Agent")
	f.StringVar(&c.RobotsAgent, "robots-agent", "", "product token for robots.txt groups (default: from the User-Agent)")
	f.IntVar(&c.Concurrency, "concurrency", c.Concurrency, "requests in flight at once, all hosts together")
	f.IntVar(&c.PerHost, "per-host", c.PerHost, "requests in flight at once per host")
	f.DurationVar(&c.Pace.Floor, "floor", c.Pace.Floor, "shortest delay between requests to a host")
	f.DurationVar(&c.Pace.Start, "start", c.Pace.Start, "delay for a host never seen")
	f.DurationVar(&c.Pace.Ceiling, "ceiling", c.Pace.Ceiling, "longest delay between requests to a host")
	f.DurationVar(&c.Pace.Decrease, "decrease", c.Pace.Decrease, "delay taken off per success")
	f.Float64Var(&c.Pace.Multiplier, "multiplier", c.Pace.Multiplier, "delay multiplied by this on 429/503")
	f.DurationVar(&c.Pace.HalfLife, "half-life", c.Pace.HalfLife, "half-life of a stored delay between runs")
	f.DurationVar(&c.Pace.MaxRetryAfter, "max-retry-after", c.Pace.MaxRetryAfter, "a longer Retry-After leaves the host for the next run")
	f.DurationVar(&c.Pace.LearnedHalfLife, "learned-half-life", c.Pace.LearnedHalfLife, "half-life of a host's learned limit (168h: a week), where a run starts once the backoff has decayed")
	f.DurationVar(&c.Pace.MaxHold, "max-hold", c.Pace.MaxHold, "longest hold of a host (Retry-After, spent quota, breaker); a longer one is cut and logged")
	f.StringArrayVar(&opts.FloorHosts, "floor-host", nil, "per-host floor, HOST=DURATION (repeatable)")
	f.DurationVar(&c.MaxCrawlDelay, "max-crawl-delay", c.MaxCrawlDelay, "skip hosts whose robots.txt Crawl-delay is longer")
	f.DurationVar(&c.RobotsTTL, "robots-ttl", c.RobotsTTL, "how long a fetched robots.txt is used")
	f.Int64Var(&c.MaxBody, "max-body", c.MaxBody, "largest body kept, in bytes, after decoding")
	f.DurationVar(&c.Timeout, "timeout", c.Timeout, "whole-request deadline")
	f.DurationVar(&c.ConnectTimeout, "connect-timeout", c.ConnectTimeout, "connect (and TLS handshake) deadline")
	f.DurationVar(&c.HeaderTimeout, "header-timeout", c.HeaderTimeout, "deadline for the response headers")
	f.IntVar(&c.MaxRequests, "max-requests", 0, "stop after this many requests (0: no limit)")
	f.IntVar(&c.MaxPerHost, "max-per-host", 0, "at most this many requests per host (0: no limit)")
	f.DurationVar(&c.MaxDuration, "max-duration", 0, "hard stop after this long; the rest stays queued (0: no limit)")
	f.Int64Var(&c.MaxBytes, "max-bytes", 0, "stop after this many body bytes (0: no limit)")
	f.IntVar(&c.MaxAttempts, "max-attempts", c.MaxAttempts, "attempts before a URL is dead")
	f.IntVar(&c.RetryBase, "retry-base", c.RetryBase, "retries always allowed in a run")
	f.Float64Var(&c.RetryRatio, "retry-ratio", c.RetryRatio, "retries allowed per success, on top of --retry-base")
	f.DurationVar(&c.Refresh, "refresh", 0, "skip URLs fetched within this long (0: re-check all, conditionally)")
	f.IntVar(&c.Depth, "depth", 0, "follow links this many levels from the seeds")
	f.StringVar((*string)(&c.Scope), "scope", string(c.Scope), "links followed: host, domain or any")
	f.BoolVar(&c.AllowPrivate, "allow-private", false, "let links and redirects reach loopback and private addresses")
	f.StringVar(&opts.SlowDownPattern, "slow-down-pattern", "", "regexp: a 200 body matching it counts as a request to slow down")
	f.StringVar(&opts.Progress, "progress", "auto", "progress bar on stderr: auto (when a terminal), always or never")
	return cmd
}

// config completes the crawl configuration from the options.
func (o *crawlOptions) config() (crawl.Config, error) {
	c := o.Config
	if c.UserAgent == "" {
		c.UserAgent = fmt.Sprintf("polite/%s (+%s)", Version, o.Contact)
	}
	c.Job = o.Job
	if c.Job == "" {
		c.Job = strings.TrimSuffix(filepath.Base(o.Seeds), filepath.Ext(o.Seeds))
		if o.Seeds == "-" {
			c.Job = "stdin"
		}
	}
	c.FloorHosts = map[string]time.Duration{}
	for _, fh := range o.FloorHosts {
		host, dur, ok := strings.Cut(fh, "=")
		d, err := time.ParseDuration(strings.TrimSpace(dur))
		if !ok || strings.TrimSpace(host) == "" || err != nil {
			return c, fmt.Errorf("%w: --floor-host %q: want HOST=DURATION, e.g. example.org=3s", errUsage, fh)
		}
		if d < 0 {
			return c, fmt.Errorf("%w: --floor-host %q: negative duration", errUsage, fh)
		}
		key, err := crawl.HostKey(host)
		if err != nil {
			return c, fmt.Errorf("%w: --floor-host %q: %v", errUsage, fh, err)
		}
		c.FloorHosts[key] = d
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

// readSeedsOrStop reads the seeds, giving up when ctx ends first: a
// signal while stdin is still open ends polite at once, before any run
// is recorded.
func (o *crawlOptions) readSeedsOrStop(ctx context.Context, in io.Reader) ([]crawl.Seed, []crawl.Rejected, error) {
	type read struct {
		seeds    []crawl.Seed
		rejected []crawl.Rejected
		err      error
	}
	done := make(chan read, 1)
	go func() {
		s, r, err := o.readSeeds(in)
		done <- read{s, r, err}
	}()
	select {
	case r := <-done:
		return r.seeds, r.rejected, r.err
	case <-ctx.Done():
		return nil, nil, context.Cause(ctx)
	}
}

// readSeeds reads the seed file or stdin.
func (o *crawlOptions) readSeeds(in io.Reader) ([]crawl.Seed, []crawl.Rejected, error) {
	name := o.Seeds
	if name == "-" {
		return crawl.ReadSeeds("stdin", in, o.Strict)
	}
	fi, err := os.Stat(name)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: seed file: %v", errUsage, err)
	}
	if fi.IsDir() {
		return nil, nil, fmt.Errorf("%w: seed file %s is a folder", errUsage, name)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: seed file: %v", errUsage, err)
	}
	defer f.Close()
	return crawl.ReadSeeds(name, f, o.Strict)
}

func runCrawl(ctx context.Context, io IO, g *globals, o *crawlOptions) error {
	cfg, err := o.config()
	if err != nil {
		return err
	}
	seeds, rejected, err := o.readSeedsOrStop(ctx, io.In)
	for _, r := range rejected {
		fmt.Fprintf(io.ErrOut, "polite: skipped %s\n", r)
	}
	if err != nil {
		return err
	}
	cfg.Seeds, cfg.Rejected = seeds, rejected

	// --quiet wins over --progress always; log lines go above the bar.
	showBar := !g.Quiet && (o.Progress == "always" || (o.Progress == "auto" && io.IsTTY != nil && io.IsTTY()))
	bar := newProgress(io.ErrOut, showBar)
	logger, err := g.logger(bar.logWriter(), false)
	if err != nil {
		return err
	}
	cfg.Logger = logger
	if showBar {
		cfg.Progress = bar.update
	}
	db, err := g.openDB()
	if err != nil {
		return err
	}
	defer db.Close()

	rep, err := crawl.Run(ctx, db, cfg)
	bar.finish()
	if rep != nil {
		if werr := rep.WriteText(io.Out); werr != nil && err == nil {
			err = werr
		}
	}
	if err != nil {
		return err
	}
	if rep.ExitCode != 0 {
		return &exitError{code: rep.ExitCode}
	}
	return nil
}
