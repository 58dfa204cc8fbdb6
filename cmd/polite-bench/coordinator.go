package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/store/postgres"
)

// The coordinator scenario measures PostgreSQL alone as the shared
// crawl's coordinator: N claimers (each a worker with a pool of its own,
// as a crawl process is) work coordHosts hosts with floors 0 and a stub
// fetch, each page costing what it costs a crawl on PostgreSQL: a claim
// of the host, a lease of the page, the page's record (entry settled and
// fetch record) and the host's release. What they reach is the ceiling of
// one database, whatever the hosts could serve. Each claimer count runs
// twice: a page at a time (the worst case: a host with one page due), then
// in runs, as a worker that owns a host works it (a claim that starts a
// run of the host's requests, the host's pages under one lease, their
// records in one commit, one release).
const (
	coordHosts = 10_000
	coordPages = 4 // per host: more than the claimers can reach in coordWindow
)

// coordClaimers are the claimer counts the scenario runs.
var coordClaimers = []int{1, 2, 4, 8}

// coordWindow is how long each claimer count runs.
const coordWindow = 5 * time.Second

// coordRow is one claimer count's figures.
type coordRow struct {
	claimers        int
	runs            bool  // in runs of a host's pages, not a page at a time
	trips           int64 // round trips to the server, every claimer's
	claims, refused int64 // claims granted, refused (another owned the host)
	records         int64 // pages recorded
	wall            time.Duration
	skipped         string // why it did not run
}

func (r coordRow) perSecond(n int64) float64 { return float64(n) / r.wall.Seconds() }

// coordinator runs the scenario for each claimer count on a fresh schema
// of the PostgreSQL that POLITE_TEST_POSTGRES names; without one its
// rows say so.
func (b *bench) coordinator(ctx context.Context) error {
	base := os.Getenv(benchPostgres)
	for _, runs := range []bool{false, true} {
		for _, n := range coordClaimers {
			if base == "" {
				b.coord = append(b.coord, coordRow{claimers: n, runs: runs, skipped: "skipped: no PostgreSQL (" + benchPostgres + " unset)"})
				continue
			}
			b.progress("coordinator: %d claimers vs %d hosts for %s (runs: %v)", n, coordHosts, coordWindow, runs)
			r, err := coordOnce(ctx, base, n, runs)
			if err != nil {
				return err
			}
			b.coord = append(b.coord, r)
		}
	}
	return nil
}

// coordOnce seeds a fresh schema with coordHosts hosts of coordPages
// pages and lets n claimers work it for coordWindow.
func coordOnce(ctx context.Context, base string, n int, runs bool) (coordRow, error) {
	r := coordRow{claimers: n, runs: runs}
	u, drop, err := benchSchema(ctx, base)
	if err != nil {
		return r, err
	}
	defer drop()
	dbs := make([]*postgres.DB, n)
	defer func() {
		for _, db := range dbs {
			if db != nil {
				db.Release(frontier.Holder{})
				db.Close()
			}
		}
	}()
	for i := range dbs {
		if dbs[i], err = postgres.Open(ctx, u); err != nil {
			return r, err
		}
	}
	const job = "coordinator"
	es := make([]frontier.Entry, 0, coordHosts*coordPages)
	for h := range coordHosts {
		for p := range coordPages {
			host := fmt.Sprintf("h%05d.test", h)
			es = append(es, frontier.Entry{URL: fmt.Sprintf("http://%s/p%d", host, p), Host: host})
		}
	}
	if _, err := dbs[0].Enqueue(job, es); err != nil {
		return r, err
	}
	runIDs := make([]int64, n)
	for i, db := range dbs {
		if err := db.Acquire(frontier.Holder{Job: job, PID: os.Getpid(), Hostname: fmt.Sprintf("claimer-%d", i)}); err != nil {
			return r, err
		}
		run, err := db.BeginRun(job, time.Time{})
		if err != nil {
			return r, err
		}
		runIDs[i] = run.ID
	}
	var (
		claims, refused, records atomic.Int64
		wg                       sync.WaitGroup
		mu                       sync.Mutex
		errs                     error
	)
	var before int64
	for _, db := range dbs {
		_, t := db.Trips()
		before += t
	}
	start := time.Now()
	stop := start.Add(coordWindow)
	for i, db := range dbs {
		wg.Go(func() {
			err := claimer(db, job, runIDs[i], i*coordHosts/n, r.runs, stop, &claims, &refused, &records)
			mu.Lock()
			errs = errors.Join(errs, err)
			mu.Unlock()
		})
	}
	wg.Wait()
	r.wall = time.Since(start)
	for _, db := range dbs {
		_, t := db.Trips()
		r.trips += t
	}
	r.trips -= before
	r.claims, r.refused, r.records = claims.Load(), refused.Load(), records.Load()
	return r, errs
}

// claimer works the hosts from first on, round and round, until stop:
// for each, a claim; once granted, a lease of one page, its record after
// a stub fetch, and the host's release. In runs, the lease takes every
// page of the host due, each is claimed before its stub fetch, and they
// are recorded together.
func claimer(db *postgres.DB, job string, run int64, first int, runs bool, stop time.Time, claims, refused, records *atomic.Int64) error {
	for h := first; time.Now().Before(stop); h = (h + 1) % coordHosts {
		host := fmt.Sprintf("h%05d.test", h)
		now := time.Now()
		c, err := db.Claim(host, now, 0)
		if err != nil {
			return err
		}
		if !c.OK {
			refused.Add(1)
			continue
		}
		claims.Add(1)
		n := 1
		if runs {
			n = 32
		}
		es, err := db.Take(job, host, now, n)
		if err != nil {
			return err
		}
		fetches := make([]frontier.Fetch, len(es))
		for i, e := range es {
			if i > 0 {
				if c, err := db.Claim(host, time.Now(), 0); err != nil || !c.OK {
					return errors.Join(err, fmt.Errorf("claim %d of a run of %s refused", i, host))
				}
				claims.Add(1)
			}
			es[i].State, es[i].LastStatus, es[i].FetchedAt = frontier.Done, 200, now
			fetches[i] = frontier.Fetch{RunID: run, URL: e.URL, Host: host, Status: 200, FetchedAt: now}
		}
		if _, err := db.Record(job, nil, es, fetches); err != nil {
			return err
		}
		records.Add(int64(len(es)))
		if err := db.ReleaseHost(host); err != nil {
			return err
		}
	}
	return nil
}

// printCoordinator writes the coordinator block.
func printCoordinator(w io.Writer, rows []coordRow) {
	fmt.Fprintf(w, "coordinator: N claimers vs %d hosts of %d pages on one PostgreSQL, floors 0, stub fetch, %s each;\n"+
		"a page at a time (claim, lease, record, release per page), then in runs of a host's pages\n",
		coordHosts, coordPages, coordWindow)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "claimers\tclaims/s\trecords/s\trefused/s\tround trips a page\twall s\tnote")
	for _, r := range rows {
		mode := "a page at a time"
		if r.runs {
			mode = "in runs"
		}
		if r.skipped != "" {
			fmt.Fprintf(tw, "%d, %s\t-\t-\t-\t-\t-\t%s\n", r.claimers, mode, r.skipped)
			continue
		}
		fmt.Fprintf(tw, "%d, %s\t%.0f\t%.0f\t%.0f\t%.1f\t%.1f\t\n", r.claimers, mode, r.perSecond(r.claims), r.perSecond(r.records),
			r.perSecond(r.refused), float64(r.trips)/float64(max(r.records, 1)), r.wall.Seconds())
	}
	tw.Flush()
}
