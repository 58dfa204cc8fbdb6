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
	"sort"
	"strings"
	"time"

	"github.com/polite-crawler/polite/pace"
	"github.com/polite-crawler/polite/store"
)

// Interrupted is the cause a caller gives when it cancels a crawl's context
// for a signal; the run saves its state and reports Code as its exit code.
type Interrupted struct {
	Signal string // "SIGINT", "SIGTERM"
	Code   int    // 130, 143
}

func (e *Interrupted) Error() string { return "interrupted by " + e.Signal }

// Run crawls cfg.Job: it takes the database's crawl lock, adds the seeds to
// the job's frontier, fetches what is due, and writes bodies, manifest.jsonl
// and report.json under cfg.OutDir. It returns the run's report whenever the
// run started, even when it also returns an error (interrupted, a write
// failure). The lock error wraps store.ErrLocked.
func Run(ctx context.Context, db Store, cfg Config) (*Report, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	// The lock first: a crawl refused because another holds the database
	// touches nothing, not even the output folder.
	holder := store.ThisProcess(cfg.Job)
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
			c.db.EndRun(c.run.ID, c.clock.Now(), 1, "could not start: "+err.Error(), nil)
		}
		return nil, err
	}
	c.log.Info("run start", "job", cfg.Job, "run", c.run.ID, "seeds", len(cfg.Seeds), "out", cfg.OutDir)
	ctx, lost := context.WithCancelCause(ctx)
	defer lost(nil)
	stopBeat := heartbeat(ctx, db, c.clock, holder, c.run.ID, c.log, lost)
	runErr := c.loop(ctx)
	stopBeat()
	rep, err := c.finish(ctx, runErr)
	if err != nil {
		return rep, err
	}
	return rep, runErr
}

type crawler struct {
	cfg   Config
	db    Store
	clock Clock
	pacer *pace.Pacer
	fetch *fetcher
	out   *outDir
	log   *slog.Logger
	agent string
	run   store.Run
	start time.Time

	hosts    map[string]*hostRun
	ring     []string
	ringNext int

	results   chan result
	inflight  int
	requests  int
	bytes     int64
	successes int
	retries   int
	throttled int

	stopReason string
	budgets    []string
	fatal      error

	redirectFrom map[string]string // redirect target -> the URL that redirected to it, this run

	pendingNew     []store.Entry
	pendingUpdates []store.Entry
	pendingFetches []store.Fetch
	needHosts      bool

	manifest io.WriteCloser
	dead     []DeadURL
	counts   map[store.State]int // outcomes of this run
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
		hosts:   map[string]*hostRun{},
		results: make(chan result, cfg.Concurrency),
		counts:  map[store.State]int{},
	}
	c.fetch = newFetcher(&c.cfg, c.clock.Now)
	return c, nil
}

func (c *crawler) close() {
	c.fetch.close()
	if c.manifest != nil {
		c.manifest.Close()
	}
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
	es := make([]store.Entry, 0, len(c.cfg.Seeds))
	for _, s := range c.cfg.Seeds {
		u, err := normalizeURL(s.URL)
		if err != nil {
			continue // ReadSeeds already normalised it
		}
		es = append(es, store.Entry{Job: c.cfg.Job, URL: u.String(), Host: hostKey(u), State: store.Queued, Priority: s.Priority, NextAt: c.start})
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
	if counts[store.Queued]+counts[store.InFlight] == 0 {
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
	if c.manifest, err = c.out.create("manifest.jsonl"); err != nil {
		return fmt.Errorf("create manifest: %w", err)
	}
	c.needHosts = true
	return nil
}

// finish writes back what is pending, saves every host's pace state and
// writes the report.
func (c *crawler) finish(ctx context.Context, runErr error) (*Report, error) {
	end := c.clock.Now()
	var deferErr error
	for _, h := range c.hosts {
		state := h.leftover()
		for _, e := range h.buf {
			e.State, e.NextAt = state, later(e.NextAt, h.deferUntil)
			if state != store.Queued {
				e.Reason = h.skip
				c.counts[state]++
			}
			c.pendingUpdates = append(c.pendingUpdates, e)
		}
		h.buf = nil
		if state != store.Queued || !h.deferUntil.IsZero() {
			deferErr = errors.Join(deferErr, c.deferHost(h, state))
		}
	}
	flushErr := errors.Join(deferErr, c.flush())
	saveErr := c.db.SaveAll(c.learned())

	rep := c.report(end)
	code := 0
	if len(c.dead) > 0 {
		code = 1
	}
	var intr *Interrupted
	if errors.As(runErr, &intr) {
		code = intr.Code
	} else if runErr != nil {
		code = 1
	}
	rep.ExitCode = code
	data, _ := json.MarshalIndent(rep, "", "  ")
	repErr := c.out.replace("report.json", func(w io.Writer) error {
		_, err := w.Write(append(data, '\n'))
		return err
	})
	if repErr == nil {
		repErr = c.out.replace("report.html", func(w io.Writer) error { return rep.WriteHTML(w) })
	}
	var sum strings.Builder
	t := rep.Totals
	fmt.Fprintf(&sum, "%d done, %d not modified, %d excluded, %d dead, %d waiting", t.Done, t.NotModified, t.Excluded, t.Dead, t.Waiting)
	if len(rep.BudgetsBound) > 0 {
		fmt.Fprintf(&sum, " (%s)", strings.Join(rep.BudgetsBound, ", "))
	}
	endErr := c.db.EndRun(c.run.ID, end, code, sum.String(), data)
	c.log.Info("run end", "job", c.cfg.Job, "run", c.run.ID, "stop", rep.StopReason, "requests", t.Requests, "done", t.Done, "dead", t.Dead, "waiting", t.Waiting, "exit", code)
	return rep, errors.Join(flushErr, saveErr, repErr, endErr)
}

// leftover is the state a host's URLs not served this run are left in:
// queued to resume (a budget, the end of the run, or no skip at all),
// excluded (polite refused its address), or deferred (the site's own
// answers kept them back: robots.txt unreachable, a long Retry-After, a
// Crawl-delay over the limit), which a next run tries again without
// counting this pass as cut short.
func (h *hostRun) leftover() store.State {
	switch {
	case h.skip == "" || h.budgetSkip:
		return store.Queued
	case h.skip == "private-address":
		return store.Excluded
	}
	return store.Deferred
}

// deferHost leaves the host's queued URLs in state (with the host's skip
// as their reason unless queued), none eligible before the host's
// Retry-After, if it gave one.
func (c *crawler) deferHost(h *hostRun, state store.State) error {
	// Taken entries are in flight, so each Take reaches the next batch;
	// what an error leaves in flight the next run queues again.
	always := c.clock.Now().Add(100 * 365 * 24 * time.Hour)
	var held []store.Entry // left queued: put back once all were taken
	for {
		es, err := c.db.Take(c.cfg.Job, h.key, always, 256)
		if err != nil || len(es) == 0 {
			if err == nil && len(held) > 0 {
				err = c.db.Update(held)
			}
			return err
		}
		for i := range es {
			es[i].State, es[i].NextAt = state, later(es[i].NextAt, h.deferUntil)
			if state != store.Queued {
				es[i].Reason = h.skip
			}
		}
		if state == store.Queued {
			held = append(held, es...)
			continue
		}
		c.counts[state] += len(es)
		if err := c.db.Update(es); err != nil {
			return err
		}
	}
}

func (c *crawler) report(end time.Time) *Report {
	rep := &Report{
		RunID: c.run.ID, Job: c.cfg.Job, Start: c.start, End: end,
		DurationS:    end.Sub(c.start).Seconds(),
		StopReason:   c.stopReason,
		BudgetsBound: c.budgets,
		Rejected:     c.cfg.Rejected,
		Dead:         c.dead,
		Frontier:     map[string]int{},
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
		rep.Totals.Waiting = counts[store.Queued] + counts[store.Deferred] + counts[store.InFlight]
	}
	keys := make([]string, 0, len(c.hosts))
	for k := range c.hosts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		h := c.hosts[k]
		s := h.stats
		s.finish()
		s.DelayEndS = secs(c.pacer.Delay(k, end))
		s.StoredEndS = secs(c.pacer.State(k).Delay)
		f, src := c.pacer.Floor(k)
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
	rep.Totals.Done = c.counts[store.Done]
	rep.Totals.NotModified = c.counts[store.NotModified]
	rep.Totals.Excluded = c.counts[store.Excluded]
	rep.Totals.Dead = c.counts[store.Dead]
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
