package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/crawltest"
	"github.com/polite-crawler/polite/store/postgres"
	"github.com/polite-crawler/polite/store/postgres/pgtest"
)

// sharedWorkers is how many crawls work one job in the shared scenario.
const sharedWorkers = 3

// sharedScenario names the shared scenario's row.
var sharedScenario = fmt.Sprintf("token bucket, %d workers on PostgreSQL", sharedWorkers)

// benchPostgres is the variable naming the PostgreSQL the shared scenario
// uses (store/postgres/testdata/pgtest.sh sets it).
const benchPostgres = pgtest.Env

// shared runs three in-process crawls (each a worker with its own pool of
// connections) on one job against one token-bucket origin, through a
// fresh schema of the PostgreSQL that POLITE_TEST_POSTGRES names.
func (b *bench) shared(ctx context.Context) error {
	base := os.Getenv(benchPostgres)
	if base == "" {
		b.progress("shared: skipped, %s is not set (run under store/postgres/testdata/pgtest.sh)", benchPostgres)
		return nil
	}
	sc := b.opts.scale
	cfg := scaled(crawltest.Config{Rate: limitRate, Burst: 1, OmitRetryAfter: true}, sc)
	p := policies(sc)[0]
	r := newRow(sharedScenario, p.name)
	u, drop, err := benchSchema(ctx, base)
	if err != nil {
		return err
	}
	defer drop()
	dir, _, origins, done, err := scratch(1, cfg)
	if err != nil {
		return err
	}
	defer done()
	win := b.opts.window(sc)
	ccfg, err := crawlConfig(p, dir, "shared", seedURLs(origins[0].srv.URL, "/doc/", urlsFor(cfg, win)), 1, win)
	if err != nil {
		return err
	}
	b.progress("shared: %d workers for %s", sharedWorkers, win)
	start := time.Now()
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs error
	)
	for i := range sharedWorkers {
		wg.Go(func() {
			err := sharedWorker(ctx, u, ccfg, fmt.Sprintf("%s-%d", ccfg.OutDir, i))
			mu.Lock()
			errs = errors.Join(errs, err)
			mu.Unlock()
		})
	}
	wg.Wait()
	if errs != nil {
		return errs
	}
	end := time.Now()
	if deadline := start.Add(win); end.After(deadline) {
		end = deadline // in-flight requests finishing after the stop are not the window's
	}
	t := count(origins, end)
	r.goodput, r.per100, r.wall, r.refused = t.goodput(), t.per100(), end.Sub(start), t.refused
	b.rows = append(b.rows, r)
	return nil
}

// sharedWorker is one crawl of the shared job on its own connections.
func sharedWorker(ctx context.Context, u string, cfg crawl.Config, out string) error {
	db, err := postgres.Open(ctx, u)
	if err != nil {
		return err
	}
	defer db.Close()
	cfg.OutDir, cfg.Shared = out, db.Coordination
	if _, err := crawl.Run(ctx, db, cfg); err != nil {
		return fmt.Errorf("worker %s: %w", out, err)
	}
	return nil
}

// benchSchema creates an empty schema on the server at base and returns
// a URL that uses it, and a func that drops it.
func benchSchema(ctx context.Context, base string) (string, func(), error) {
	u, drop, err := pgtest.NewSchema(ctx, base, "bench")
	if err != nil {
		return "", nil, err
	}
	return u, func() { drop() }, nil
}
