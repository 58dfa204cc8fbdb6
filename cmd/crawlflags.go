package cmd

import (
	"time"

	"github.com/polite-crawler/polite/crawl/discover"
	"github.com/polite-crawler/polite/crawl/fetch"
	"github.com/polite-crawler/polite/crawl/urls"
	usepref "github.com/polite-crawler/polite/crawl/usage"
	"github.com/spf13/pflag"
)

// Ranges of the crawl's sizes and durations: wide enough for any real
// crawl, narrow enough that no sum or deadline built from them overflows.
const (
	day        = 24 * time.Hour
	maxBodyCap = fetch.MaxBodyLimit // --max-body: a body is held whole in memory
	maxBytes   = 1 << 50            // --max-bytes, 1 PiB
)

// crawlFlags defines the flags of polite crawl under their --help
// headings, in the order a user reads them.
func crawlFlags(f *pflag.FlagSet, o *crawlOptions) {
	f.SortFlags = false
	c := &o.Config
	dur, pos := durFlag(f), posFlag(f)

	f.StringVar(&o.Job, "job", "", "job name (default: the seed file's absolute path; a new job per run for - and URLs)")
	f.BoolVar(&o.Strict, "strict", false, "refuse the whole seed file if any line is bad")
	f.Var(newEnumValue((*string)(&c.Revisit.Mode), "adaptive", "always"), "revisit",
		"which fetched URLs a new pass asks for again: adaptive (each when its learned interval has passed) or always (every one, conditionally)")
	dur(&c.Revisit.Min, "revisit-min", 0, 3650*day, "never ask for a URL again within this long of its last fetch, and learn no shorter interval")
	dur(&c.Revisit.Max, "revisit-max", 0, 3650*day, "ask for every URL at least this often (0: no limit); a gone page is asked again after this long")
	dur(&c.Revisit.Min, "refresh", 0, 3650*day, "old name of --revisit-min")
	groupFlags(f, "Seeds and jobs", "job", "strict", "revisit", "revisit-min", "revisit-max", "refresh")

	dur(&c.Pace.Floor, "floor", 0, time.Hour, "shortest delay between requests to a host")
	dur(&c.Pace.Start, "start", 0, time.Hour, "delay for a host never seen")
	dur(&c.Pace.Decrease, "decrease", 0, time.Hour, "delay taken off per success")
	f.Float64Var(&c.Pace.Multiplier, "multiplier", c.Pace.Multiplier, "delay multiplied by this on 429/503")
	pos(&c.Pace.Ceiling, "ceiling", day, "longest delay between requests to a host")
	pos(&c.Pace.HalfLife, "half-life", 30*day, "half-life of a stored delay between runs")
	pos(&c.Pace.LearnedHalfLife, "learned-half-life", 365*day, "half-life of a host's learned limit, where a run starts once the backoff has decayed")
	pos(&c.Pace.MaxHold, "max-hold", 30*day, "longest hold of a host (Retry-After, spent quota, breaker); a longer one is cut and logged")
	f.StringArrayVar(&o.FloorHosts, "floor-host", nil, "per-host floor, `HOST=DURATION` (repeatable)")
	dur(&c.Pace.MaxRetryAfter, "max-retry-after", 0, 7*day, "a longer Retry-After leaves the host for the next run")
	dur(&c.MaxCrawlDelay, "max-crawl-delay", 0, day, "skip hosts whose robots.txt Crawl-delay is longer")
	f.StringVar(&o.SlowDownPattern, "slow-down-pattern", "", "`regexp`: a 200 body matching it counts as a request to slow down")
	f.IntVar(&c.Concurrency, "concurrency", c.Concurrency, "requests in flight at once, all hosts together")
	f.IntVar(&c.PerHost, "per-host", c.PerHost, "requests in flight at once per host (per group with --pace-by domain or ip)")
	f.Var(newEnumValue((*string)(&c.PaceBy), "host", "domain", "ip"), "pace-by",
		"what one pace is for: host (each name and port), domain (a registrable domain's names, any port) or ip (the server's address, any name or port)")
	groupFlags(f, "Pacing", "floor", "start", "decrease", "multiplier", "ceiling", "half-life", "learned-half-life", "floor-host",
		"max-retry-after", "max-hold", "max-crawl-delay", "slow-down-pattern", "concurrency", "per-host", "pace-by")

	f.IntVar(&c.MaxRequests, "max-requests", 0, "stop after this many requests (0: no limit)")
	f.IntVar(&c.MaxPerHost, "max-per-host", 0, "at most this many requests per host (0: no limit)")
	dur(&c.MaxDuration, "max-duration", 0, 365*day, "hard stop after this long; the rest stays queued (0: no limit)")
	f.Var(newSizeValue(&c.MaxBytes, 0, maxBytes), "max-bytes", "stop after this many body bytes, e.g. 2GiB (0: no limit)")
	f.Var(newSizeValue(&c.MaxBody, 1, maxBodyCap), "max-body", "largest body kept, after decoding, e.g. 10MB, 512KiB")
	f.IntVar(&c.MaxAttempts, "max-attempts", c.MaxAttempts, "attempts before a URL is dead")
	f.IntVar(&c.RetryBase, "retry-base", c.RetryBase, "retries always allowed in a run")
	f.Float64Var(&c.RetryRatio, "retry-ratio", c.RetryRatio, "retries allowed per success, on top of --retry-base")
	groupFlags(f, "Budgets and limits", "max-requests", "max-per-host", "max-duration", "max-bytes", "max-body",
		"max-attempts", "retry-base", "retry-ratio")

	f.IntVar(&c.Depth, "depth", 0, "follow links this many levels from the seeds (0: seeds only)")
	f.Var(newEnumValue((*string)(&c.Scope), "host", "domain", "any"), "scope", "links followed: host, domain or any")
	f.BoolVar(&c.AllowPrivate, "allow-private", false, "let links and redirects reach loopback and private addresses")
	f.BoolVar(&c.Sitemaps, "sitemaps", false, "read the seed hosts' robots.txt Sitemap lines and seeds named *sitemap*; queue what they list, skip pages whose lastmod is not after their last fetch")
	f.Var(newEnumValue((*string)(&c.Requisites), "off", "same-host", "any-host"), "requisites",
		"page requisites fetched (images, stylesheets, scripts...): off, same-host or any-host (default any-host with --warc, else off)")
	f.StringSliceVar(&c.Follow.Rels, "follow", urls.DefaultRels, "`rels` of an answer's Link header followed at its own depth, any content type (e.g. next,prev,first,last)")
	f.IntVar(&c.Follow.MaxNext, "max-next", discover.DefaultMaxNext, "longest chain of Link relations followed in a run (next of next...)")
	groupFlags(f, "Links and scope", "depth", "scope", "requisites", "allow-private", "sitemaps", "follow", "max-next")

	headerFlags(f, o)

	outputFlags(f, o)
}

// outputFlags defines the crawl's flags of output, network and identity,
// and progress, each group under its heading.
func outputFlags(f *pflag.FlagSet, o *crawlOptions) {
	c := &o.Config
	dur, pos := durFlag(f), posFlag(f)
	f.StringVarP(&c.OutDir, "out", "o", c.OutDir, "`folder` for bodies, manifest.jsonl and the reports")
	f.BoolVar(&c.Warc, "warc", false, "also keep every fetch, robots.txt too, as WARC records in FOLDER/warc")
	f.Var(newSizeValue(&c.WarcSize, 1, maxBytes), "warc-size", "start the next WARC file once one reaches this size, e.g. 1GB")
	groupFlags(f, "Output", "out", "warc", "warc-size")

	f.StringVar(&o.Contact, "contact", "", "URL or address named in the User-Agent (default $POLITE_CONTACT, else $XDG_CONFIG_HOME/polite/contact)")
	f.StringVar(&c.UserAgent, "user-agent", "", "User-Agent to send (default \"polite/VERSION (+CONTACT)\")")
	f.StringVar(&c.RobotsAgent, "robots-agent", "", "product token for robots.txt groups (default: from the User-Agent)")
	dur(&c.RobotsTTL, "robots-ttl", 0, 30*day, "how long a fetched robots.txt (with --purpose, tdmrep.json too) is used")
	pos(&c.RobotsRetry, "robots-retry", time.Hour, "first wait before an unreachable robots.txt is asked again (then longer, with jitter)")
	pos(&c.Timeout, "timeout", day, "whole-request deadline")
	pos(&c.ConnectTimeout, "connect-timeout", time.Hour, "connect (and TLS handshake) deadline")
	pos(&c.HeaderTimeout, "header-timeout", day, "deadline for the response headers")
	f.StringVar(&c.CAFile, "ca-file", "", "trust the certificates of this PEM `file` beside the system's roots (a private CA); verification is never turned off")
	f.StringVar(&o.Purpose, "purpose", "", "what the crawl is for, a comma-separated `list` of "+usepref.Join(usepref.Purposes)+
		": content whose usage preferences (Content-Usage, TDMRep) refuse it is not kept (default: none declared, preferences only recorded)")
	groupFlags(f, "Network and identity", "contact", "user-agent", "robots-agent", "robots-ttl", "robots-retry", "timeout",
		"connect-timeout", "header-timeout", "ca-file", "purpose")

	o.Progress = "auto"
	f.Var(newEnumValue(&o.Progress, "auto", "always", "never"), "progress", "progress bar on stderr: auto (when a terminal and text logs), always or never")
	groupFlags(f, "Progress and logs", "progress")
}

// durFlag returns what defines a duration flag between min and max.
func durFlag(f *pflag.FlagSet) func(p *time.Duration, name string, min, max time.Duration, usage string) {
	return func(p *time.Duration, name string, min, max time.Duration, usage string) {
		f.Var(&durationValue{p: p, min: min, max: max}, name, usage)
	}
}

// posFlag returns what defines a positive duration flag of at most max.
func posFlag(f *pflag.FlagSet) func(p *time.Duration, name string, max time.Duration, usage string) {
	return func(p *time.Duration, name string, max time.Duration, usage string) {
		f.Var(&durationValue{p: p, max: max, positive: true}, name, usage)
	}
}

// headerFlags defines the request headers' flags, under their own
// heading, apart from --header-timeout (a deadline for the answer's).
func headerFlags(f *pflag.FlagSet, o *crawlOptions) {
	f.StringArrayVar(&o.Headers, "header", nil, "request `HEADER` 'Name: value' sent to the seeds' hosts (repeatable); Authorization and Cookie only to the seeds' scheme, host and port")
	f.StringArrayVar(&o.HostHeaders, "header-host", nil, "request header sent to one host only: `HOST=HEADER`, as in api.example.org='Accept: application/json' (HOST or HOST:PORT; repeatable)")
	f.StringVar(&o.HeaderFile, "header-file", "", "`file` of secret request headers, one 'Name: value' a line, sent to the seeds' scheme, host and port only and written as [redacted]; the file must be yours and mode 600 (also: $POLITE_HEADERS)")
	groupFlags(f, "Request headers", "header", "header-host", "header-file")
}
