package crawl

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/polite-crawler/polite/crawl/clock"
	"github.com/polite-crawler/polite/crawl/discover"
	"github.com/polite-crawler/polite/crawl/exclude"
	"github.com/polite-crawler/polite/crawl/fetch"
	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/output"
	"github.com/polite-crawler/polite/crawl/report"
	"github.com/polite-crawler/polite/crawl/robotscache"
	"github.com/polite-crawler/polite/crawl/sitemap"
	"github.com/polite-crawler/polite/crawl/warc"
	"github.com/polite-crawler/polite/pace"
)

// Fetcher makes a crawl's requests: fetch.Client over HTTP, or a test's
// fake that answers in memory on a fake clock (crawltest.Fetcher). Its
// methods are called from the workers' goroutines, concurrently.
type Fetcher interface {
	Get(ctx context.Context, u *url.URL, extra http.Header) fetch.Response
	GetRobots(ctx context.Context, u *url.URL) fetch.Response
	GetSitemap(ctx context.Context, u *url.URL, extra http.Header, opt *sitemap.Options) (fetch.Response, *sitemap.Result)
}

var _ Fetcher = (*fetch.Client)(nil)

// scheduler runs a crawl's loop on the run's Clock: it decides when each
// request starts (the hosts served round-robin as their pace, robots.txt
// and budgets allow), when to wait and for how long, and when the run
// stops (the deadline, a budget, a signal, the grace period). It owns the
// run's changing state (the pacer, the hosts, the budgets, the ledger, the
// sitemaps read) and is the one goroutine that touches it: its workers
// fetch and write bodies, and hand their result back.
type scheduler struct {
	// What the run gives it; read only.
	cfg   *Config
	clock clock.Clock
	out   *output.Dir
	log   *slog.Logger
	agent string
	start time.Time // the run's start, from started

	// The roles of the database it uses.
	frontier Frontier
	paces    PaceStates
	robots   *robotscache.Deferred // its writes wait for the ledger's
	shared   Shared                // nil: this process crawls alone

	// What it owns.
	pacer  *pace.Pacer
	hosts  *hostSet
	budget budgets
	ledger *ledger
	links  discover.Discovery
	maps   *sitemapRun    // nil without --sitemaps
	excl   *exclude.Watch // the operator's exclusion list, read again when it changes

	work      *workers
	throttled int

	stopped   frontier.RunStop // why dispatching stopped; "" until it does
	stoppedBy frontier.Budget  // the budget that stopped it, for RunBudget
	fatal     error
}

// newScheduler makes the scheduler of c's run; started completes it once
// the run has started.
func newScheduler(c *crawler) *scheduler {
	cfg := &c.cfg
	var f Fetcher = c.fetch
	if cfg.Fetcher != nil {
		f = cfg.Fetcher
	}
	sc := &scheduler{cfg: cfg, frontier: c.db, paces: c.db, robots: robotscache.Defer(c.db), shared: cfg.Shared,
		clock: c.clock, out: c.out, log: c.log, agent: c.agent, excl: exclude.NewWatch(c.db, cfg.Logger),
		pacer:  pace.New(cfg.Pace, cfg.Rand),
		ledger: newLedger(cfg.Job, cfg.Name()),
		links:  discover.Discovery{Job: cfg.Job, Scope: cfg.Scope, Requisites: cfg.Requisites, Follow: cfg.Follow, Log: cfg.Logger},
		budget: budgets{cfg: cfg},
		work:   &workers{fetch: f, out: c.out, cfg: cfg, clock: c.clock, results: make(chan result, 2*cfg.Concurrency)},
	}
	sc.hosts = &hostSet{frontier: c.db, paces: c.db, shared: cfg.Shared, maxHold: cfg.Pace.MaxHold,
		maxDuration: cfg.MaxDuration, maxRetryAfter: cfg.Pace.MaxRetryAfter, job: cfg.Job, pacer: sc.pacer, groups: c.groups,
		floors: cfg.FloorHosts, log: cfg.Logger, byKey: map[string]*hostRun{}, paced: map[string]*paceGroup{}}
	if cfg.Sitemaps {
		sc.maps = newSitemapRun(cfg, c.fetch.Origins(), &sc.links)
	}
	return sc
}

// started gives the scheduler the started run: when it started, its id and
// manifest journal, and its WARC files (nil without --warc).
func (sc *scheduler) started(start time.Time, runID int64, manifest *os.File, w *warc.Writer) {
	sc.start, sc.hosts.start, sc.hosts.runID, sc.work.warc = start, start, runID, w
	sc.ledger.runID, sc.ledger.manifest = runID, manifest
	sc.hosts.stale = true
}

// wrapUp ends the loop's state at end: what the hosts hold goes back to
// the frontier as their holds say, the ledger is written, every host's
// pace state is saved, and the WARC files and the run's manifest journal
// are closed.
func (sc *scheduler) wrapUp(end time.Time) (flushErr, saveErr, manErr error) {
	var leaveErr error
	for _, h := range sc.hosts.byKey {
		state := h.hold.leave.leftover()
		for _, e := range h.buf {
			e.State, e.NextAt = state, later(e.NextAt, h.hold.until)
			if state != frontier.Queued {
				e.Reason = h.hold.entryReason()
				sc.ledger.settle(e)
			} else {
				sc.ledger.change(e)
			}
		}
		h.buf = nil
		if state != frontier.Queued || !h.hold.until.IsZero() {
			leaveErr = errors.Join(leaveErr, sc.hosts.leave(h, state, sc.ledger, end))
		}
	}
	flushErr = errors.Join(leaveErr, sc.flush())
	saveErr = errors.Join(sc.hosts.save(end), sc.work.closeWarc())
	return flushErr, saveErr, sc.ledger.closeManifest()
}

// close releases what the scheduler holds open, when the run ends early.
func (sc *scheduler) close() {
	sc.work.closeWarc()
	sc.ledger.close()
}

// report adds what the loop did to rep: why it stopped, the budgets that
// bound, each host's statistics and the totals, the dead URLs and the
// sitemaps.
func (sc *scheduler) report(rep *report.Report, end time.Time) {
	rep.Start, rep.DurationS = sc.start, end.Sub(sc.start).Seconds()
	stop := sc.stopped
	if stop == "" {
		stop = frontier.RunDone // nothing was left to do
	}
	rep.Stop, rep.StopReason, rep.BudgetsBound = stop, stop.Sentence(sc.stoppedBy), sc.budget.bound
	rep.Dead, rep.Sitemaps, rep.ExcludedBy, rep.Changes = sc.ledger.dead, sc.maps.report(), sc.excl.Hits(), sc.ledger.changes.Of()
	rep.PaceBy, rep.SharedAddrs = string(sc.hosts.groups.By()), sc.hosts.groups.Shared()
	if sc.shared != nil {
		rep.LeaseLost = sc.shared.LeaseLost()
	}
	for _, h := range sc.hosts.sorted() {
		s := h.stats
		s.Finish(&h.latencies)
		s.DelayEndS = report.Seconds(sc.pacer.Delay(h.pace(), end))
		st := sc.pacer.State(h.pace())
		s.StoredEndS = report.Seconds(st.Delay)
		if st.HoldUntil.After(end) {
			s.RetryAt = st.HoldUntil
		}
		f, src := sc.pacer.Floor(h.pace())
		s.FloorS, s.FloorSource = report.Seconds(f), string(src)
		s.Stopped, s.StoppedReason = h.stopped(stop.HostStop())
		if h.pace() != h.key {
			s.Group = h.pace()
		}
		rep.Hosts = append(rep.Hosts, s)
		rep.Totals.Requests += s.Requests
		rep.Totals.Retries += s.Retries
		rep.Totals.Throttled += s.S429 + s.S503
		rep.Totals.Bytes += s.Bytes
	}
	counts := sc.ledger.counts
	rep.Totals.Done = counts[frontier.Done]
	rep.Totals.NotModified = counts[frontier.NotModified]
	rep.Totals.Excluded = counts[frontier.Excluded]
	rep.Totals.Dead = counts[frontier.Dead]
	rep.Totals.Requisites, rep.Totals.RequisiteHosts = sc.links.Tally()
}
