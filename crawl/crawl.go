package crawl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/pace"
)

// Interrupted is the cause a caller gives when it cancels a crawl's context
// for a signal; the run saves its state and reports Code as its exit code.
type Interrupted struct {
	Signal string // "SIGINT", "SIGTERM"
	Code   int    // ExitInterrupted, ExitTerminated
}

func (e *Interrupted) Error() string { return "interrupted by " + e.Signal }

// Run crawls cfg.Job: it takes the database's crawl lock, adds the seeds to
// the job's frontier, fetches what is due, and writes bodies, manifest.jsonl
// and report.json under cfg.OutDir. It returns the run's report whenever the
// run started, even when it also returns an error (interrupted, a write
// failure). The lock error is the Store's (store.ErrLocked for store.DB).
func Run(ctx context.Context, db Store, cfg Config) (*Report, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	// The lock first: a crawl refused because another holds the database
	// touches nothing, not even the output folder.
	holder := frontier.ThisProcess(cfg.Job)
	if err := db.Acquire(holder); err != nil {
		return nil, err
	}
	defer db.Release(holder)
	c, err := newCrawler(db, cfg)
	if err != nil {
		return nil, err
	}
	defer c.close()
	if err := c.prepare(); err != nil {
		if c.run.ID != 0 { // the run began: record that it ended, and how
			c.db.EndRun(c.run.ID, c.clock.Now(), ExitFailure, "could not start: "+err.Error(), nil)
		}
		return nil, err
	}
	c.log.Info("run start", "job", cfg.Job, "run", c.run.ID, "seeds", len(cfg.Seeds), "out", cfg.OutDir)
	ctx, lost := context.WithCancelCause(ctx)
	defer lost(nil)
	stopBeat := heartbeat(ctx, db, c.clock, holder, c.run.ID, c.log, lost)
	runErr := (&scheduler{crawler: c}).loop(ctx)
	stopBeat()
	rep, err := c.finish(runErr)
	if err != nil {
		return rep, err
	}
	return rep, runErr
}

// crawler is one run. It owns the loop and what only the loop touches:
// the hosts (hostSet), the budgets, the ledger of outcomes, and the
// discovery of new URLs; workers only fetch and write bodies, and hand
// their result back on results.
type crawler struct {
	cfg   Config
	db    Store
	clock Clock
	pacer *pace.Pacer
	fetch *fetcher
	out   *outDir
	log   *slog.Logger
	agent string
	run   frontier.Run
	start time.Time

	hosts  *hostSet
	budget budgets
	ledger *ledger
	links  discovery
	maps   *sitemapRun // nil without --sitemaps

	results   chan result
	inflight  int
	throttled int

	stopReason string
	fatal      error
}

func newCrawler(db Store, cfg Config) (*crawler, error) {
	if cfg.Clock == nil {
		cfg.Clock = realClock{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	out, err := openOutDir(cfg.OutDir)
	if err != nil {
		return nil, err
	}
	agent := RobotsAgent(cfg)
	c := &crawler{
		cfg:     cfg,
		db:      db,
		clock:   cfg.Clock,
		pacer:   pace.New(cfg.Pace, cfg.Rand),
		out:     out,
		log:     cfg.Logger,
		agent:   agent,
		ledger:  newLedger(cfg.Job),
		links:   discovery{job: cfg.Job, scope: cfg.Scope, log: cfg.Logger},
		results: make(chan result, cfg.Concurrency),
	}
	c.hosts = &hostSet{db: db, job: cfg.Job, pacer: c.pacer, floors: cfg.FloorHosts, log: cfg.Logger, byKey: map[string]*hostRun{}}
	c.budget = budgets{cfg: &c.cfg}
	if cfg.Sitemaps {
		c.maps = newSitemapRun(&c.cfg)
	}
	// A response's latency is the network's: measured on the wall clock,
	// whatever clock paces the run.
	c.fetch = newFetcher(&c.cfg, time.Now)
	return c, nil
}

func (c *crawler) close() {
	c.fetch.close()
	c.ledger.close()
	c.out.Close()
}

// prepare starts the run: the run row, the seeds in the frontier, what is
// due queued again, the manifest opened.
func (c *crawler) prepare() error {
	c.start = c.clock.Now()
	var err error
	if c.run, err = c.db.BeginRun(c.cfg.Job, c.start); err != nil {
		return err
	}
	es := make([]frontier.Entry, 0, len(c.cfg.Seeds))
	for _, s := range c.cfg.Seeds {
		u, err := normalizeURL(s.URL)
		if err != nil {
			continue // ReadSeeds already normalised it
		}
		e := frontier.Entry{Job: c.cfg.Job, URL: u.String(), Host: hostKey(u), State: frontier.Queued, Priority: s.Priority, NextAt: c.start}
		if c.maps != nil {
			c.maps.seedEntry(&e, u)
		}
		es = append(es, e)
	}
	// A job whose last run was cut short (a budget, --max-duration, a
	// signal, a crash) left URLs queued or in flight: resume them first,
	// refreshing nothing. Otherwise start a new pass: what is due is
	// queued again, and what the sites deferred is tried again.
	counts, err := c.db.Counts(c.cfg.Job)
	if err != nil {
		return err
	}
	refreshBefore := time.Time{}
	if counts[frontier.Queued]+counts[frontier.InFlight] == 0 {
		refreshBefore = c.start.Add(-c.cfg.Refresh)
		if c.cfg.Refresh == 0 {
			refreshBefore = c.start.Add(time.Nanosecond)
		}
	}
	if err := c.db.Prepare(c.cfg.Job, refreshBefore); err != nil {
		return err
	}
	if _, err := c.db.Enqueue(c.cfg.Job, es); err != nil {
		return err
	}
	c.ledger.runID = c.run.ID
	if c.ledger.manifest, err = c.out.create("manifest.jsonl"); err != nil {
		return fmt.Errorf("create manifest: %w", err)
	}
	c.hosts.stale = true
	return nil
}

// finish writes back what is pending, saves every host's pace state and
// writes the report.
func (c *crawler) finish(runErr error) (*Report, error) {
	end := c.clock.Now()
	var leaveErr error
	for _, h := range c.hosts.byKey {
		state := h.hold.kind.leftover()
		for _, e := range h.buf {
			e.State, e.NextAt = state, later(e.NextAt, h.hold.until)
			if state != frontier.Queued {
				e.Reason = h.hold.reason
				c.ledger.settle(e)
			} else {
				c.ledger.change(e)
			}
		}
		h.buf = nil
		if state != frontier.Queued || !h.hold.until.IsZero() {
			leaveErr = errors.Join(leaveErr, c.hosts.leave(h, state, c.ledger, end))
		}
	}
	_, flushErr := c.ledger.flush(c.db)
	flushErr = errors.Join(leaveErr, flushErr)
	saveErr := c.hosts.save()

	rep := c.report(end)
	rep.ExitCode = exitCode(runErr, len(c.ledger.dead) > 0)
	data, _ := json.MarshalIndent(rep, "", "  ")
	repErr := c.out.replace("report.json", func(w io.Writer) error {
		_, err := w.Write(append(data, '\n'))
		return err
	})
	if repErr == nil {
		repErr = c.out.replace("report.html", func(w io.Writer) error { return rep.WriteHTML(w) })
	}
	t := rep.Totals
	endErr := c.db.EndRun(c.run.ID, end, rep.ExitCode, rep.summary(), data)
	c.log.Info("run end", "job", c.cfg.Job, "run", c.run.ID, "stop", rep.StopReason, "requests", t.Requests, "done", t.Done, "dead", t.Dead, "waiting", t.Waiting, "exit", rep.ExitCode)
	return rep, errors.Join(flushErr, saveErr, repErr, endErr)
}

// summary is the report in one line, as the runs table keeps it.
func (rep *Report) summary() string {
	var sum strings.Builder
	t := rep.Totals
	fmt.Fprintf(&sum, "%d done, %d not modified, %d excluded, %d dead, %d waiting", t.Done, t.NotModified, t.Excluded, t.Dead, t.Waiting)
	if len(rep.BudgetsBound) > 0 {
		fmt.Fprintf(&sum, " (%s)", strings.Join(rep.BudgetsBound, ", "))
	}
	return sum.String()
}

// report gathers the run's report at end.
func (c *crawler) report(end time.Time) *Report {
	rep := &Report{
		RunID: c.run.ID, Job: c.cfg.Job, Start: c.start, End: end,
		DurationS:    end.Sub(c.start).Seconds(),
		StopReason:   c.stopReason,
		BudgetsBound: c.budget.bound,
		Rejected:     c.cfg.Rejected,
		Dead:         c.ledger.dead,
		Frontier:     map[string]int{},
		Sitemaps:     c.maps.report(),
	}
	if abs, err := filepath.Abs(c.cfg.OutDir); err == nil {
		rep.OutDir = abs
	}
	if rep.StopReason == "" {
		rep.StopReason = "done"
	}
	if counts, err := c.db.Counts(c.cfg.Job); err == nil {
		for s, n := range counts {
			rep.Frontier[string(s)] = n
		}
		rep.Totals.Waiting = counts[frontier.Queued] + counts[frontier.Deferred] + counts[frontier.InFlight]
	}
	for _, h := range c.hosts.sorted() {
		s := h.stats
		s.finish()
		s.DelayEndS = secs(c.pacer.Delay(h.key, end))
		s.StoredEndS = secs(c.pacer.State(h.key).Delay)
		f, src := c.pacer.Floor(h.key)
		s.FloorS, s.FloorSource = secs(f), string(src)
		if s.Stopped == "" {
			s.Stopped = h.stopped()
		}
		rep.Hosts = append(rep.Hosts, s)
		rep.Totals.Requests += s.Requests
		rep.Totals.Retries += s.Retries
		rep.Totals.Throttled += s.S429 + s.S503
		rep.Totals.Bytes += s.Bytes
	}
	counts := c.ledger.counts
	rep.Totals.Done = counts[frontier.Done]
	rep.Totals.NotModified = counts[frontier.NotModified]
	rep.Totals.Excluded = counts[frontier.Excluded]
	rep.Totals.Dead = counts[frontier.Dead]
	return rep
}

// CompileSlowDown compiles --slow-down-pattern; an empty pattern is nil
// (no soft-block check) and a bad one a usage error naming the flag.
func CompileSlowDown(p string) (*regexp.Regexp, error) {
	if p == "" {
		return nil, nil
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, usageErr("--slow-down-pattern: %v", err)
	}
	return re, nil
}
