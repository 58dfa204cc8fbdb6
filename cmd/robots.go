package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/urls"
	usepref "github.com/polite-crawler/polite/crawl/usage"
	"github.com/polite-crawler/polite/robots"
)

// robotsCheckOptions are the flags and arguments of polite robots check.
type robotsCheckOptions struct {
	File      string
	Agent     string
	JSON      bool
	UserAgent string
	Timeout   time.Duration
	RobotsTTL time.Duration
	CAFile    string
	Purpose   string // --purpose
	URLs      []string
}

func newRobotsCmd(io IO, g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "robots",
		Short: "Ask what robots.txt lets polite fetch",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("%w: unknown command %q for polite robots (see polite robots --help)", errUsage, args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newRobotsCheckCmd(io, g))
	return cmd
}

func newRobotsCheckCmd(io IO, g *globals) *cobra.Command {
	def := crawl.DefaultConfig()
	opts := &robotsCheckOptions{Timeout: def.Timeout, RobotsTTL: def.RobotsTTL}
	cmd := &cobra.Command{
		Use:   "check [--file F] [--agent TOKEN] URL...",
		Short: "Say whether robots.txt allows each URL, and which rule decided",
		Long: `Say for each URL whether polite may fetch it and why: the robots.txt group
that applied (or that none did), the rule that decided with its line number,
and the Crawl-delay, Request-rate and Sitemaps that come with it. With
--purpose, also the usage rules known before fetching the URL (the
robots.txt Content-Usage lines that apply, and the rule of the origin's
tdmrep.json, read with robots.txt and cached with it as a crawl does; not
with --file) and whether they refuse a declared purpose (exit 1 when they
do, as for a disallowed URL); see docs/usage-preferences.md.

Without --file the rules are the ones a crawl would use, got the same way:
the copy cached in the database while it is fresh (--robots-ttl, or a
shorter Cache-Control max-age), else robots.txt fetched from the URL's host
with the same User-Agent, timeout, redirects (at most 5, each paced) and
status rules, then cached. A 4xx answer means no restrictions; a 5xx, a 429
or no answer at all means everything is disallowed for now, unless a copy
younger than 30 days stands in. With --file (- for stdin) that file is read
as the answer for every URL: no network and no database are touched.

The output is one block per URL, in the order given, separated by a blank
line. The first line is ALLOWED or DISALLOWED and the URL as polite
normalises it; then one field per line, the name padded to 14 columns:

  DISALLOWED  https://news.example/search?q=x
    robots.txt    https://news.example/robots.txt (fetched: 200; cached until 2025-01-02T03:04:05Z)
    agent         polite
    group         "User-agent: polite" (line 19)
    rule          "Disallow: /search" (line 21)
    reason        longest matching rule
    crawl-delay   5s
    request-rate  none
    sitemap       https://news.example/sitemap-index.xml
    sitemap       https://news.example/sitemap-news.xml

"none" marks a field that does not apply; there is a sitemap line per
Sitemap of the file. With --purpose, a tdmrep.json line (how it was got:
"cached", its status, "not read"), a usage line per rule that applies
("none" when none does) and a purpose line: "train-ai refused by
robots.txt line 4: Content-Usage: / train-ai=n", or "train-ai not
refused". --json prints {"agent", "results": [...]} instead.`,
		Example: `  polite robots check https://example.org/some/page
  polite robots check --agent archiver https://example.org/a https://example.org/b
  polite robots check --file testdata/robots/news.txt https://news.example/search?q=go
  curl -s https://example.org/robots.txt | polite robots check --file - https://example.org/x
  polite robots check --json https://example.org/a | jq '.results[].allowed'`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return fmt.Errorf("%w: robots check needs at least one URL (see polite robots check --help)", errUsage)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.URLs = args
			return checkExit(io, runRobotsCheck(cmd.Context(), io, g, opts))
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.File, "file", "", "read robots.txt from this file (- for stdin) instead of the URL's host")
	f.StringVar(&opts.Agent, "agent", "", `product token matched against User-agent lines (default: from --user-agent, "polite")`)
	f.StringVar(&opts.Purpose, "purpose", "", "also say whether robots.txt's Content-Usage lines refuse these purposes (comma-separated `list`, as crawl's); exit 1 when they do")
	f.BoolVar(&opts.JSON, "json", false, "print JSON")
	f.StringVar(&opts.UserAgent, "user-agent", "", `User-Agent sent when fetching robots.txt (default "polite/VERSION (+CONTACT)", as crawl's)`)
	f.Var(&durationValue{p: &opts.Timeout, max: day, positive: true}, "timeout", "whole-request deadline of a robots.txt fetch")
	f.Var(&durationValue{p: &opts.RobotsTTL, max: 30 * day}, "robots-ttl", "how long a fetched robots.txt is cached")
	f.StringVar(&opts.CAFile, "ca-file", "", "trust the certificates of this PEM `file` beside the system's roots, as crawl's")
	f.SortFlags = false
	groupFlags(f, "Rules", "file", "agent", "purpose")
	groupFlags(f, "Output", "json")
	groupFlags(f, "Fetching robots.txt", "user-agent", "timeout", "robots-ttl", "ca-file")
	return cmd
}

// checkExit gives robots check its exit codes: 1 only for a disallowed
// URL, so any other failure is reported here and becomes 2.
func checkExit(io IO, err error) error {
	var (
		ee   *exitError
		intr *crawl.Interrupted
	)
	switch {
	case err == nil, errors.As(err, &ee), errors.As(err, &intr), exitCode(err) == crawl.ExitUsage:
		return err
	}
	fmt.Fprintf(io.ErrOut, "polite: %v\n", err)
	return errors.Join(errSilent, &exitError{code: crawl.ExitUsage})
}

// checkResult is the answer for one URL.
type checkResult struct {
	URL         string            `json:"url"`
	Allowed     bool              `json:"allowed"`
	Robots      checkSource       `json:"robots_txt"`
	Group       string            `json:"group,omitempty"`
	GroupLine   int               `json:"group_line,omitempty"`
	Rule        string            `json:"rule,omitempty"`
	RuleLine    int               `json:"rule_line,omitempty"`
	Reason      string            `json:"reason"`
	CrawlDelayS float64           `json:"crawl_delay_s,omitempty"`
	RequestRate *requestRate      `json:"request_rate,omitempty"`
	Sitemaps    []string          `json:"sitemaps,omitempty"`
	Usage       []string          `json:"usage,omitempty"`      // the usage rules known before fetching that apply, and how they read
	RefusedBy   string            `json:"refused_by,omitempty"` // --purpose: the purpose refused, and the rule`
	crawlDelay  time.Duration     // for the text form
	purposes    []usepref.Purpose // --purpose, for the text form
}

// checkSource is where the rules came from: a file, or the host.
type checkSource struct {
	File        string    `json:"file,omitempty"`
	URL         string    `json:"url,omitempty"`
	How         string    `json:"how,omitempty"`
	Cached      bool      `json:"cached,omitempty"`
	Stale       bool      `json:"stale,omitempty"`
	Unreachable bool      `json:"unreachable,omitempty"`
	Requests    int       `json:"requests,omitempty"`
	FetchedAt   time.Time `json:"fetched_at,omitzero"`
	Expires     time.Time `json:"expires,omitzero"`
	TDMRep      string    `json:"tdmrep_json,omitempty"` // --purpose: how the origin's tdmrep.json was got
}

// requestRate is a Request-rate as robots.txt writes it, with its interval.
type requestRate struct {
	Text      string  `json:"text"` // "1/10s"
	Requests  int     `json:"requests"`
	PerS      float64 `json:"per_s"`
	IntervalS float64 `json:"interval_s"`
}

func runRobotsCheck(ctx context.Context, io IO, g *globals, opts *robotsCheckOptions) error {
	ua, agent, targets, err := opts.check()
	if err != nil {
		return err
	}
	purposes, err := usepref.ParsePurposes(opts.Purpose)
	if err != nil {
		return fmt.Errorf("%w: --purpose: %v", errUsage, err)
	}
	var policy *usepref.Policy // reads the origins' tdmrep.json for the purposes
	if len(purposes) > 0 {
		policy = usepref.NewPolicy(purposes, agent)
	}
	rulesFor, closeFn, err := opts.source(io, g, ua, policy)
	if err != nil {
		return err
	}
	defer closeFn()

	type known struct {
		rb  *robots.Robots
		src checkSource
	}
	byOrigin := map[string]known{}
	results := make([]checkResult, 0, len(targets))
	disallowed := false
	for _, u := range targets {
		origin := u.Scheme + "://" + u.Host
		k, ok := byOrigin[origin]
		if !ok {
			rb, src, err := rulesFor(ctx, u.String())
			var intr *crawl.Interrupted
			if cause := context.Cause(ctx); err != nil && errors.As(cause, &intr) {
				return cause
			}
			if err != nil {
				return err
			}
			k = known{rb, src}
			byOrigin[origin] = k
		}
		r, err := checkOne(k.rb, k.src, agent, u.String())
		if err != nil {
			return err
		}
		r.checkUsage(policy, k.rb, u)
		disallowed = disallowed || !r.Allowed || r.RefusedBy != ""
		results = append(results, r)
	}
	if err := opts.write(io, agent, results); err != nil {
		return err
	}
	if disallowed { // or a purpose refused
		return errors.Join(errSilent, &exitError{code: crawl.ExitFailure})
	}
	return nil
}

// check validates the options before anything is read or fetched: it
// returns the User-Agent, the product token and every URL normalised.
func (opts *robotsCheckOptions) check() (ua, agent string, targets []*url.URL, err error) {
	ua = opts.UserAgent
	if ua == "" {
		if ua, err = defaultUserAgent(os.Getenv); err != nil {
			return "", "", nil, err
		}
	}
	agent = opts.Agent
	if agent == "" {
		agent = robots.ProductToken(ua)
	}
	if agent == "" {
		return "", "", nil, fmt.Errorf("%w: no product token in --user-agent %q: give --agent", errUsage, ua)
	}
	if opts.Timeout <= 0 {
		return "", "", nil, fmt.Errorf("%w: --timeout must be positive", errUsage)
	}
	if opts.RobotsTTL < 0 {
		return "", "", nil, fmt.Errorf("%w: --robots-ttl must not be negative", errUsage)
	}
	targets = make([]*url.URL, len(opts.URLs))
	for i, raw := range opts.URLs {
		n, err := urls.Normalize(raw)
		if err != nil {
			return "", "", nil, fmt.Errorf("%w: %v", errUsage, err)
		}
		if targets[i], err = url.Parse(n); err != nil {
			return "", "", nil, fmt.Errorf("%w: %v", errUsage, err)
		}
	}
	return ua, agent, targets, nil
}

// rulesFunc returns the rules that apply to a URL and where they came from.
type rulesFunc func(ctx context.Context, target string) (*robots.Robots, checkSource, error)

// source returns how rules are got: from --file, or as a crawl gets them.
func (o *robotsCheckOptions) source(io IO, g *globals, ua string, policy *usepref.Policy) (rulesFunc, func(), error) {
	if o.File != "" {
		var (
			body []byte
			err  error
			name = o.File
		)
		if o.File == "-" {
			name = "stdin"
			body, err = readAll(io.In)
		} else {
			body, err = os.ReadFile(o.File)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%w: --file: %v", errUsage, err)
		}
		rb := robots.FromResponse(200, body)
		return func(context.Context, string) (*robots.Robots, checkSource, error) {
			return rb, checkSource{File: name}, nil
		}, func() {}, nil
	}
	db, err := g.openDB()
	if err != nil {
		return nil, nil, err
	}
	cfg := crawl.DefaultConfig()
	cfg.UserAgent = ua
	cfg.Timeout = o.Timeout
	cfg.ConnectTimeout = min(cfg.ConnectTimeout, o.Timeout)
	cfg.HeaderTimeout = min(cfg.HeaderTimeout, o.Timeout)
	cfg.RobotsTTL, cfg.CAFile, cfg.Usage = o.RobotsTTL, o.CAFile, policy
	return func(ctx context.Context, target string) (*robots.Robots, checkSource, error) {
		rb, s, err := crawl.RobotsFor(ctx, db, cfg, target)
		return rb, checkSource{URL: s.URL, How: s.How, Cached: s.Cached, Stale: s.Stale, Unreachable: s.Unreachable,
			Requests: s.Requests, FetchedAt: s.FetchedAt.UTC(), Expires: s.Expires.UTC(), TDMRep: s.TDMRep}, err
	}, func() { db.Close() }, nil
}

func readAll(r io.Reader) ([]byte, error) {
	if r == nil {
		return nil, errors.New("no standard input")
	}
	return io.ReadAll(r)
}

// checkOne decides one URL as a crawl would, and gathers what the group says.
func checkOne(rb *robots.Robots, src checkSource, agent, target string) (checkResult, error) {
	d, err := crawl.RobotsDecision(rb, agent, target)
	if err != nil {
		return checkResult{}, err
	}
	grp := rb.Group(agent)
	r := checkResult{
		URL: target, Allowed: d.Allowed, Robots: src,
		Group: d.Group, GroupLine: d.GroupLine, Rule: d.Rule, RuleLine: d.RuleLine, Reason: d.Reason,
		CrawlDelayS: grp.CrawlDelay.Seconds(), Sitemaps: rb.Sitemaps(), crawlDelay: grp.CrawlDelay,
	}
	if rr := grp.RequestRate; rr.Requests > 0 {
		r.RequestRate = &requestRate{Text: fmt.Sprintf("%d/%s", rr.Requests, fmtPer(rr.Per)),
			Requests: rr.Requests, PerS: rr.Per.Seconds(), IntervalS: rr.Interval().Seconds()}
	}
	return r, nil
}
