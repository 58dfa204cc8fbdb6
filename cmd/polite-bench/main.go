// Command polite-bench measures polite against the project's throttling
// test origin on loopback and prints one table of ratios, each measured in
// the same run:
//
//	polite-bench [-polite bin/polite] [-scale 10] [-window 300s] [-only LIST]
//	             [-concurrency 16] [-colly bin/polite-colly] [-baseline BINARY]
//	             [-cpuprofile FILE [-cpuprofile-warc]]
//
// The pacing scenarios (a token bucket, a cold start over 40 s, a queueing
// host, a host that sends RateLimit headers, twenty hosts at once and over
// a long window, a second run straight after a throttled one, a
// nightly run 16 half-lives after one, and one server on ten ports paced
// by ip and by host) run polite's real pipeline in this process with crawl.Run, beside two
// baselines on identical fresh origins: plain AIMD (pace.Config.Plain) and a
// fixed 3 s delay. Every pacing duration is divided by -scale and every
// origin rate multiplied by it, so the ratios are those of the unscaled
// crawl in a tenth of the time. The figures are counted by the origins
// (crawltest.Stats), never taken from the crawler.
//
// The revisit scenario (-only revisit) crawls a 500-page site whose pages
// change at mixed rates (crawltest.Nights) for ten nights with crawl.Run
// in this process, the crawl's clock a day further each night (as the
// nightly run's), under --revisit always and --revisit adaptive with each
// rule crawl/revisit measures: requests against always's, and the changes
// caught the night they happened, within two nights, and, of pages the
// sitemap lists with lastmod, the same night, as the site counted them.
//
// The seeds scenario runs the binary over a 1,000,000-line seed file over
// 200 loopback origins with --max-requests 1, then again (a resume): peak
// RSS, and the load rate as seed lines over the time from the start of
// the process to the first request (every seed is in the frontier before
// the first request).
//
// The sitemaps scenario runs the binary with --sitemaps over an index of
// 12 sitemaps of 50,000 URLs each: its peak RSS beside an empty crawl's.
//
// The throughput scenario runs the real binary (-polite) as a child process
// against 200 unthrottled origins with floors at zero, and beside it a
// minimal net/http crawler over the same URLs as a reference, and colly
// (github.com/gocolly/colly/v2, built by make bench from the module of
// its own in the colly folder, so polite's go.mod never lists it) as
// its users configure it for speed, and a durable reference (this
// program again, as "polite-bench durable-reference": net/http, every body
// written through a rename and every fetch committed to SQLite), the
// least a crawler does to keep what polite keeps. -baseline runs another
// polite binary beside it, for a before/after ratio measured in the same
// run.
//
// It exits 0 whether or not the targets are met (it reports, it does not
// judge) and 1 when the pipeline itself fails. It listens and dials on
// loopback only.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if len(os.Args) > 1 && os.Args[1] == durableCommand {
		os.Exit(durableMain(os.Args[2:], os.Stdout, os.Stderr))
	}
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// options are the command line.
type options struct {
	polite        string        // the binary for the throughput scenario
	scale         float64       // time scale factor
	quotaScaleMax float64       // -ratelimit-scale: the RateLimit scenario's scale, at most scale
	windowLen     time.Duration // -window: unscaled length of a pacing run
	only          map[string]bool
	concurrency   int    // --concurrency of the throughput scenario
	hosts         int    // throughput origins
	pages         int    // pages per throughput origin
	warc          bool   // also run the throughput scenario's polite with --warc
	baseline      string // another polite binary measured beside -polite (before/after)
	colly         string // the colly crawler's binary
	scalePages    []int  // pages per origin of each run of the scale scenario
	cpuprofile    string
	profileWarc   bool // the -cpuprofile crawl writes WARC files too
}

// scenarioKeys are the names -only accepts, in the order they run.
var scenarioKeys = []string{"bucket", "cold", "queue", "ratelimit", "hosts", "hosts-long", "second", "nightly", "revisit", "sharedserver", "shared", "coordinator", "throughput", "seeds", "sitemaps", "scale"}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("polite-bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	var only string
	fs.StringVar(&o.polite, "polite", "bin/polite", "polite binary for the throughput scenario")
	fs.Float64Var(&o.scale, "scale", 10, "divide every pacing duration by this and multiply origin rates by it")
	fs.Float64Var(&o.quotaScaleMax, "ratelimit-scale", 6, "time scale of the RateLimit scenario (its headers count whole seconds)")
	fs.DurationVar(&o.windowLen, "window", 300*time.Second, "unscaled length of each pacing run")
	fs.StringVar(&only, "only", "", "comma-separated scenarios to run: "+strings.Join(scenarioKeys, ","))
	fs.IntVar(&o.concurrency, "concurrency", 16, "--concurrency of the throughput scenario (polite's default), of colly and of the reference")
	fs.IntVar(&o.hosts, "hosts", 200, "origins in the throughput scenario")
	fs.IntVar(&o.pages, "pages", 20, "pages per origin in the throughput scenario")
	fs.BoolVar(&o.warc, "warc", true, "also run polite with --warc in the throughput scenario")
	fs.StringVar(&o.baseline, "baseline", "", "another polite binary to run beside -polite in the throughput scenario (a before/after ratio)")
	fs.StringVar(&o.colly, "colly", "bin/polite-colly", "the colly crawler of the throughput scenario (make bench builds it; left out when missing)")
	var scalePages string
	fs.StringVar(&scalePages, "scale-pages", "250,1000", "pages per origin of each run of the scale scenario (-hosts origins), comma-separated")
	fs.StringVar(&o.cpuprofile, "cpuprofile", "", "also run the throughput scenario in process with crawl.Run and write its CPU profile here")
	fs.BoolVar(&o.profileWarc, "cpuprofile-warc", false, "the -cpuprofile crawl writes WARC files too, as --warc does")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	switch {
	case o.scale < 1 || o.quotaScaleMax < 1:
		return o, fmt.Errorf("-scale and -ratelimit-scale must be at least 1")
	case o.windowLen <= 0:
		return o, fmt.Errorf("-window must be positive")
	case o.concurrency < 1 || o.hosts < 1 || o.pages < 1:
		return o, fmt.Errorf("-concurrency, -hosts and -pages must be at least 1")
	}
	for _, f := range strings.Split(scalePages, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return o, fmt.Errorf("-scale-pages: %q is not a number of pages", f)
		}
		o.scalePages = append(o.scalePages, n)
	}
	o.only = map[string]bool{}
	for _, k := range strings.Split(only, ",") {
		if k = strings.TrimSpace(k); k == "" {
			continue
		}
		if !contains(scenarioKeys, k) {
			return o, fmt.Errorf("-only: unknown scenario %q (want %s)", k, strings.Join(scenarioKeys, ","))
		}
		o.only[k] = true
	}
	return o, nil
}

func (o options) runs(key string) bool { return len(o.only) == 0 || o.only[key] }

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// run runs the scenarios, prints the table and returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		fmt.Fprintln(stderr, "polite-bench:", err)
		return 2
	}
	b := &bench{opts: o, log: stderr}
	start := time.Now()
	if err := b.all(ctx); err != nil {
		fmt.Fprintln(stderr, "polite-bench:", err)
		return 1
	}
	b.print(stdout, o, time.Since(start))
	return 0
}

// bench runs the scenarios and keeps what they measured in its table.
type bench struct {
	opts options
	log  io.Writer // progress lines
	table
}

// table is what the scenarios measured: the pacing rows, the throughput
// and the seed loading figures; it prints them with the targets.
type table struct {
	rows       []row
	coord      []coordRow // the coordinator scenario, one row per claimer count
	throughput *throughputResult
	seeds      *seedsResult
	sitemaps   *sitemapsResult
	scale      []scaleRun
	revisit    []revisitRow // the revisit scenario, --revisit always first
}

func (b *bench) all(ctx context.Context) error {
	steps := []struct {
		key string
		run func(context.Context) error
	}{
		{"bucket", b.tokenBucket},
		{"cold", b.coldStart},
		{"queue", b.queueing},
		{"ratelimit", b.rateLimit},
		{"hosts", b.twentyHosts},
		{"hosts-long", b.twentyHostsLong},
		{"second", b.secondRun},
		{"nightly", b.nightly},
		{"revisit", b.revisits},
		{"sharedserver", b.sharedServer},
		{"shared", b.shared},
		{"coordinator", b.coordinator},
		{"throughput", b.runThroughput},
		{"seeds", b.runSeeds},
		{"sitemaps", b.runSitemaps},
		{"scale", b.runScale},
	}
	for _, s := range steps {
		if !b.opts.runs(s.key) {
			continue
		}
		if err := s.run(ctx); err != nil {
			return fmt.Errorf("%s: %w", s.key, err)
		}
	}
	return nil
}

func (b *bench) progress(format string, a ...any) {
	fmt.Fprintf(b.log, "polite-bench: "+format+"\n", a...)
}
