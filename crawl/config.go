// Package crawl runs a polite crawl: it reads the frontier of a job, checks
// robots.txt, waits on each host's pacer, fetches, writes bodies, follows
// redirects and links through the frontier, and reports what it did.
package crawl

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"regexp"
	"time"

	"github.com/polite-crawler/polite/crawl/clock"
	"github.com/polite-crawler/polite/crawl/discover"
	"github.com/polite-crawler/polite/crawl/fetch"
	"github.com/polite-crawler/polite/crawl/hostgroup"
	"github.com/polite-crawler/polite/crawl/output"
	"github.com/polite-crawler/polite/crawl/revisit"
	"github.com/polite-crawler/polite/crawl/seeds"
	"github.com/polite-crawler/polite/crawl/urls"
	"github.com/polite-crawler/polite/crawl/usage"
	"github.com/polite-crawler/polite/crawl/warc"
	"github.com/polite-crawler/polite/pace"
)

// Config is everything one crawl run is told: its settings, which the
// command line's flags fill (DefaultConfig has their defaults), and the
// Deps it is given.
type Config struct {
	Job     string
	JobName string // the job's display name, for its WARC files, manifest and report; "" is Job
	Seeds   seeds.Source
	OutDir  string

	UserAgent   string // sent on every request
	RobotsAgent string // product token for robots.txt; "" means from UserAgent

	Concurrency int          // global in-flight cap
	PerHost     int          // in-flight cap per pace (a host, or a --pace-by group)
	PaceBy      hostgroup.By // what owns a pace: each host (""), its domain or its server's address

	Pace          pace.Config
	FloorHosts    map[string]time.Duration // --floor-host host=DUR
	MaxCrawlDelay time.Duration            // a Crawl-delay above it skips the host
	RobotsTTL     time.Duration
	// RobotsRetry is the first wait before an unreachable robots.txt is
	// asked again in the same run (growing with jitter after that); 0
	// means 5s. The fetch is tried at most MaxAttempts times a run, and
	// at most 3 times of a host that refuses the connection.
	RobotsRetry time.Duration

	MaxBody        int64
	Timeout        time.Duration // whole request
	ConnectTimeout time.Duration
	HeaderTimeout  time.Duration // until the response headers
	CAFile         string        // PEM certificates trusted beside the system's roots (--ca-file)
	Headers        fetch.Headers // the operator's request headers, each sent only where it may go

	MaxRequests int           // 0: no limit
	MaxPerHost  int           // 0: no limit
	MaxDuration time.Duration // 0: no limit
	MaxBytes    int64         // 0: no limit
	RetryBase   int           // retries always allowed
	RetryRatio  float64       // plus this fraction of successes
	MaxAttempts int

	Revisit      revisit.Policy // --revisit, --revisit-min (--refresh), --revisit-max
	Depth        int
	Follow       discover.Follow // the Link header relations followed (--follow, --max-next)
	Scope        urls.Scope
	Requisites   urls.Requisites // page requisites fetched; "" is off
	AllowPrivate bool
	Sitemaps     bool           // read seed hosts' sitemaps and seeds that are sitemaps
	SlowDown     *regexp.Regexp // a 200 body matching it is a soft block
	Usage        *usage.Policy  // what sites say of use, and the --purpose it refuses; nil: not read

	// Warc keeps every fetch (robots.txt too) as WARC records under
	// OutDir/warc, in files closed at WarcSize (0: warc.DefaultMaxSize).
	Warc      bool
	WarcFiles output.WarcFiles // records each WARC file begun; nil for none
	WarcSize  int64
	Software  string // name and version for the WARC files, "polite/1.4.0"

	Grace time.Duration // how long in-flight requests may finish after a stop

	Deps
}

// Deps are what a run is given rather than told: its clock, randomness,
// logger, progress display, fetcher, and the optional roles of its
// Store. Each may be nil: a nil clock is the wall clock, a nil fetcher
// polite's HTTP client, a nil role one the store does not play. Tests
// give fakes here (a clock.Fake, a crawltest.Fetcher).
type Deps struct {
	Clock    clock.Clock
	Fetcher  Fetcher // makes the requests; nil: polite's HTTP client (crawl/fetch)
	Rand     func() float64
	Logger   *slog.Logger
	Progress func(Progress)     // called a few times a second; nil for none
	Resolver hostgroup.Resolver // looks host names up; nil: the system's resolver

	// The roles the run's Store may play beside its own, given by whoever
	// opens it; nil when it does not play them.
	Shared Shared          // a database several crawling processes share; nil: this process crawls alone
	SeedTx seeds.LoadTx    // seed batches that share a transaction; nil: each batch commits on its own
	Trim   Trim            // a store that holds memory for speed (a page cache) and can let go of it; nil: none
	Wake   <-chan struct{} // with Shared: receives when another process released a host, added URLs or a rule
}

// Name is the job's display name.
func (c *Config) Name() string { return cmp.Or(c.JobName, c.Job) }

// DefaultConfig returns a Config with every default set; the caller adds
// the job, seeds and output folder.
func DefaultConfig() Config {
	fo := fetch.DefaultOptions()
	return Config{
		UserAgent:      fo.UserAgent,
		Concurrency:    16,
		PerHost:        1,
		PaceBy:         hostgroup.ByHost,
		Pace:           pace.DefaultConfig(),
		MaxCrawlDelay:  60 * time.Second,
		RobotsTTL:      24 * time.Hour,
		RobotsRetry:    5 * time.Second,
		MaxBody:        fo.MaxBody,
		Timeout:        fo.Timeout,
		ConnectTimeout: fo.ConnectTimeout,
		HeaderTimeout:  fo.HeaderTimeout,
		RetryBase:      10,
		RetryRatio:     0.1,
		MaxAttempts:    5,
		Scope:          urls.ScopeHost,
		Grace:          5 * time.Second,
		OutDir:         "polite-out",
		WarcSize:       warc.DefaultMaxSize,
		Revisit:        revisit.Policy{Mode: revisit.Adaptive, Max: revisit.DefaultMax},
	}
}

// fetchOptions are the fetch client's settings of c; r gives the
// addresses it dials (nil: the system's resolver at each dial).
func (c *Config) fetchOptions(r fetch.Resolver) fetch.Options {
	return fetch.Options{UserAgent: c.UserAgent, MaxBody: c.MaxBody, Timeout: c.Timeout,
		ConnectTimeout: c.ConnectTimeout, HeaderTimeout: c.HeaderTimeout, AllowPrivate: c.AllowPrivate, CAFile: c.CAFile,
		Resolver: r, Headers: c.Headers}
}

// ErrUsage marks a configuration error (exit code 2).
var ErrUsage = errors.New("usage")

func usageErr(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrUsage, fmt.Sprintf(format, a...))
}

// Validate reports the first setting that makes no sense, naming its flag.
func (c *Config) Validate() error {
	if err := c.Pace.Validate(); err != nil {
		return fmt.Errorf("%w: %v", ErrUsage, err)
	}
	switch {
	case !(c.Pace.Multiplier > 1) || math.IsInf(c.Pace.Multiplier, 0):
		return usageErr("--multiplier must be a finite number above 1, got %g", c.Pace.Multiplier)
	case !(c.RetryRatio >= 0) || math.IsInf(c.RetryRatio, 0):
		return usageErr("--retry-ratio must be a finite number, not negative, got %g", c.RetryRatio)
	case c.Job == "":
		return usageErr("--job must not be empty")
	case c.Concurrency < 1:
		return usageErr("--concurrency must be at least 1, got %d", c.Concurrency)
	case !c.PaceBy.Valid():
		return usageErr("--pace-by must be host, domain or ip, got %q", c.PaceBy)
	case c.PerHost < 1:
		return usageErr("--per-host must be at least 1, got %d", c.PerHost)
	case c.MaxBody < 1 || c.MaxBody > fetch.MaxBodyLimit:
		return usageErr("--max-body must be between 1 byte and 1 GiB (%d bytes), got %d", int64(fetch.MaxBodyLimit), c.MaxBody)
	case c.Timeout <= 0 || c.ConnectTimeout <= 0 || c.HeaderTimeout <= 0:
		return usageErr("timeouts must be positive")
	case c.MaxRequests < 0 || c.MaxPerHost < 0 || c.MaxBytes < 0 || c.MaxDuration < 0:
		return usageErr("budgets must not be negative")
	case c.MaxAttempts < 1:
		return usageErr("--max-attempts must be at least 1, got %d", c.MaxAttempts)
	case c.RetryBase < 0 || c.RetryRatio < 0:
		return usageErr("retry budget must not be negative")
	case c.Revisit.Validate() != nil:
		return usageErr("%v", c.Revisit.Validate())
	case c.Depth < 0:
		return usageErr("--depth must not be negative")
	case c.MaxCrawlDelay < 0:
		return usageErr("--max-crawl-delay must not be negative")
	case c.RobotsTTL < 0:
		return usageErr("--robots-ttl must not be negative")
	case c.WarcSize < 0:
		return usageErr("--warc-size must not be negative, got %d", c.WarcSize)
	case c.Scope != urls.ScopeHost && c.Scope != urls.ScopeDomain && c.Scope != urls.ScopeAny:
		return usageErr("--scope must be host, domain or any, got %q", c.Scope)
	}
	for h, d := range c.FloorHosts {
		if d < 0 {
			return usageErr("--floor-host %s: negative delay", h)
		}
	}
	return nil
}

// Progress is a snapshot of a running crawl for a progress display.
type Progress struct {
	Done, Total     int // URLs finished this run / finished plus waiting
	Requests        int
	Rate            float64 // requests per second over the run
	HostsActive     int     // hosts with queued URLs
	HostsBackingOff int     // hosts waiting on a raised delay, Retry-After or the breaker
	Throttled       int     // 429 and 503 answers so far
	Elapsed         time.Duration
}
