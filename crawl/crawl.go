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
	"runtime/debug"
	"sync"
	"time"

	"github.com/polite-crawler/polite/crawl/clock"
	"github.com/polite-crawler/polite/crawl/fetch"
	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/hostgroup"
	"github.com/polite-crawler/polite/crawl/output"
	"github.com/polite-crawler/polite/crawl/report"
	"github.com/polite-crawler/polite/crawl/seeds"
	"github.com/polite-crawler/polite/crawl/warc"
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
// The roles db may play beside Store come in cfg (Shared, SeedTx).
func Run(ctx context.Context, db Store, cfg Config) (*report.Report, error) {
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
	// A seed source without a valid seed fails before the run is recorded.
	seeds, err := openSeeds(ctx, db, &c.cfg, c.log, c.fetch.Origins(), c.sc.maps)
	if err != nil {
		return nil, err
	}
	defer seeds.Close()
	pass, err := c.prepare()
	if err != nil {
		if c.run.ID != 0 { // the run began: record that it ended, and how
			c.db.EndRun(c.run.ID, c.clock.Now(), ExitFailure, "could not start: "+err.Error(), nil)
		}
		return nil, err
	}
	// The seeds stream into the frontier a batch at a time, the lock
	// beating between batches (a signal stops it between two batches).
	err = seeds.Load(ctx, db, c.sc.start, lockBeat(db, holder, c.run.ID, c.log))
	if err == nil {
		c.rejected = seeds.Rejected()
		err = c.announcePass(pass.left, seeds.Added(), pass.lastRun)
	}
	if err != nil {
		endLoad(db, c.run.ID, c.clock.Now(), err)
		return nil, err
	}
	c.log.Info("run start", "job", cfg.Job, "run", c.run.ID, "seeds", seeds.Read(), "new", seeds.Added(), "out", cfg.OutDir)
	ctx, lost := context.WithCancelCause(ctx)
	defer lost(nil)
	// The lock's heartbeat is wall time, whatever clock paces the run: the
	// database judges a silent lock by the wall clock of any machine.
	stopBeat := heartbeat(ctx, db, clock.Real{}, holder, c.run.ID, c.log, lost)
	runErr := c.sc.run(ctx)
	stopBeat()
	rep, err := c.finish(runErr)
	if err != nil {
		return rep, err
	}
	return rep, runErr
}

// crawler is one run's assembly: the settings, the store, the fetch
// client, the output folder and the run's row. It starts the run, hands the
// loop to its scheduler, which alone owns the run's changing state, and
// when the loop returns writes what the run did.
type crawler struct {
	cfg      Config
	db       Store
	clock    clock.Clock
	fetch    *fetch.Client
	groups   *hostgroup.Groups // --pace-by; the addresses the fetch client dials
	out      *output.Dir
	log      *slog.Logger
	agent    string
	run      frontier.Run
	rejected []seeds.Rejected // the first seed lines skipped, for the report
	sc       *scheduler
}

func newCrawler(db Store, cfg Config) (*crawler, error) {
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	// A response's latency is the network's: measured on the wall clock,
	// whatever clock paces the run.
	groups := hostgroup.New(cfg.PaceBy, cfg.Resolver, cfg.ConnectTimeout)
	f, err := fetch.New(cfg.fetchOptions(groups), time.Now)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUsage, err)
	}
	out, err := output.Open(cfg.OutDir)
	if err != nil {
		return nil, err
	}
	c := &crawler{cfg: cfg, db: db, clock: cfg.Clock, fetch: f, groups: groups, out: out, log: cfg.Logger, agent: RobotsAgent(cfg)}
	c.sc = newScheduler(c)
	return c, nil
}

func (c *crawler) close() {
	c.sc.close()
	c.fetch.Close()
	c.out.Close()
}

// prepare starts the run: the run row, what is due queued again, the
// manifest opened. The seeds enter the frontier after it (seeds.Loader). It
// returns how the pass starts, for announcePass once the seeds are in.
func (c *crawler) prepare() (passStart, error) {
	start := c.clock.Now()
	last, _, err := c.db.LastRun(c.cfg.Job)
	if err != nil {
		return passStart{}, err
	}
	if c.run, err = c.db.BeginRun(c.cfg.Job, start); err != nil {
		return passStart{}, err
	}
	if err := c.db.SavePaceGroups(c.run.ID, string(c.groups.By()), nil); err != nil {
		return passStart{}, err
	}
	// A job whose last run was cut short (a budget, --max-duration, a
	// signal, a crash) left URLs queued or in flight: resume them first,
	// refreshing nothing. Otherwise start a new pass: what is due is
	// queued again, and what the sites deferred is tried again.
	counts, err := c.db.Counts(c.cfg.Job)
	if err != nil {
		return passStart{}, err
	}
	var refreshBefore, dueBy time.Time
	pass := passStart{left: counts[frontier.Queued] + counts[frontier.InFlight], lastRun: last.ID}
	if pass.left == 0 {
		refreshBefore, dueBy = c.cfg.Revisit.DueBy(start)
	}
	if err := c.db.Prepare(c.cfg.Job, refreshBefore, dueBy); err != nil {
		return pass, err
	}
	// What runs that crashed wrote joins the manifest before this one adds to it.
	if ids, err := c.out.PendingJournals(c.run.Folder()); err != nil || len(ids) > 0 {
		if err == nil {
			err = c.out.MergeJournals(ids)
		}
		if err != nil {
			return pass, err
		}
	}
	manifest, err := c.out.OpenJournal(c.run.Folder())
	if err != nil {
		return pass, fmt.Errorf("create manifest: %w", err)
	}
	var ww *warc.Writer
	if c.cfg.Warc {
		w := output.Warc{OutDir: c.cfg.OutDir, Job: c.cfg.Job, Name: c.cfg.Name(), Software: c.cfg.Software,
			UserAgent: c.cfg.UserAgent, Agent: c.agent, MaxSize: c.cfg.WarcSize, Log: c.log, Purpose: c.cfg.Usage.Declared(),
			Redacted: c.cfg.Headers.Secrets(), Files: c.cfg.WarcFiles, Requisites: string(c.cfg.Requisites)}
		if ww, err = output.OpenWarc(w, c.run); err != nil {
			manifest.Close()
			return pass, err
		}
		c.fetch.KeepExchanges()
	}
	c.sc.started(start, c.run.ID, manifest, ww)
	return pass, nil
}

// passStart is how a run's pass starts: the URLs an earlier run left
// queued or in flight, and the last run before this one.
type passStart struct {
	left    int
	lastRun int64
}

// announcePass says in one log line whether the run resumes the pass an
// earlier run cut short (left URLs were queued or in flight, from run
// lastRun) or starts a new one, and how many URLs it has queued.
// It counts what waits, for the report should the store be lost.
func (c *crawler) announcePass(left, added int, lastRun int64) error {
	counts, err := c.db.Counts(c.cfg.Job)
	if err != nil {
		return err
	}
	if c.sc.ledger.wait = frontier.Waiting(counts); left > 0 {
		c.log.Info("resuming a cut-short pass", "job", c.cfg.Job, "run", c.run.ID,
			"queued", left, "from_run", lastRun, "new_seeds", added)
		return nil
	}
	c.sc.ledger.changes.NotDue = counts[frontier.Done] + counts[frontier.NotModified] // what Prepare left alone
	c.log.Info("starting a new pass", "job", c.cfg.Job, "run", c.run.ID, "revisit", c.cfg.Revisit.Mode,
		"queued", counts[frontier.Queued], "not_due", c.sc.ledger.changes.NotDue, "new_seeds", added, "previous_run", lastRun)
	return nil
}

// finish writes back what is pending, saves every host's pace state and
// writes the report.
func (c *crawler) finish(runErr error) (*report.Report, error) {
	end := c.clock.Now()
	flushErr, saveErr, manErr := c.sc.wrapUp(end)
	defer tightGC()()      // the report's garbage comes in bursts
	if c.cfg.Trim != nil { // nothing is fetched from here on
		if err := c.cfg.Trim.ReleaseMemory(); err != nil {
			c.log.Warn("the database's caches could not be released", "err", err)
		}
	}
	if manErr == nil {
		manErr = c.out.MergeJournals([]string{c.run.Folder()})
	}

	rep := c.report(end)
	for _, advice := range rep.PaceAdvice() {
		c.log.Warn(advice) // names of one server, each paced alone (--pace-by host)
	}
	rep.ExitCode = exitCode(errors.Join(runErr, manErr), len(rep.Dead) > 0 || rep.HostFailed())
	data, _ := json.Marshal(rep) // compact: stored so, and indented as report.json is written
	wrErr := c.out.WriteReports(c.run.Folder(), data, rep.WriteHTML)
	rep.Unwritten = wrErr != nil
	repErr := errors.Join(manErr, wrErr)
	t := rep.Totals
	endErr := c.db.EndRun(c.run.ID, end, rep.ExitCode, rep.Summary(), data)
	c.log.Info("run end", "job", c.cfg.Job, "run", c.run.ID, "stop", rep.StopReason, "requests", t.Requests, "done", t.Done, "dead", t.Dead, "waiting", t.Waiting, "exit", rep.ExitCode)
	return rep, errors.Join(flushErr, saveErr, repErr, endErr)
}

// report gathers the run's report at end: the run's row and folder
// here, what the loop did from the scheduler.
func (c *crawler) report(end time.Time) *report.Report {
	rep := &report.Report{
		RunID: c.run.ID, Job: c.cfg.Name(), End: end,
		Rejected: c.rejected, Usage: c.cfg.Usage.Hosts(), Purpose: c.cfg.Usage.Declared(),
		Frontier: map[string]int{},
	}
	if abs, err := filepath.Abs(c.cfg.OutDir); err == nil {
		rep.OutDir = abs
		rep.RunDir = filepath.Join(abs, filepath.FromSlash(output.RunDir(c.run.Folder())))
	}
	rep.Totals.Waiting = c.sc.ledger.wait // the store lost: what waits as this run wrote it
	if counts, err := c.db.Counts(c.cfg.Job); err == nil {
		for s, n := range counts {
			rep.Frontier[string(s)] = n
		}
		rep.Totals.Waiting = frontier.Waiting(counts)
	}
	c.sc.report(rep, end)
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

// tightGC holds the collector to 20% over the live heap until the last call's
// restore: 200,000 pages peaked at 99 MB building the report, 72 MB before.
var gcTight struct {
	sync.Mutex
	n, saved int
}

func tightGC() (restore func()) {
	gcTight.Lock()
	defer gcTight.Unlock()
	if gcTight.n++; gcTight.n == 1 {
		gcTight.saved = debug.SetGCPercent(20)
	}
	return func() {
		gcTight.Lock()
		defer gcTight.Unlock()
		if gcTight.n--; gcTight.n == 0 {
			debug.SetGCPercent(gcTight.saved)
		}
	}
}
