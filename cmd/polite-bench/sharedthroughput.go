package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// sharedThroughputWorkers is how many binaries crawl the throughput
// origins together through PostgreSQL.
const sharedThroughputWorkers = 2

// sharedThroughput runs sharedThroughputWorkers binaries on one
// PostgreSQL job over urls into t, when the bench has a server.
func (b *bench) sharedThroughput(ctx context.Context, t *throughputResult, dir string, urls []string, origins []*origin) error {
	base := os.Getenv(benchPostgres)
	if base == "" {
		return nil
	}
	b.progress("throughput: %d %s crawls on one PostgreSQL job, %d URLs", sharedThroughputWorkers, b.opts.polite, len(urls))
	f, distinct, err := runWorkers(ctx, b.opts, filepath.Join(dir, "pg"), base, urls, origins, sharedThroughputWorkers)
	if err != nil {
		return err
	}
	t.shared, t.sharedDistinct = &f, distinct
	return nil
}

// runWorkers runs n polite binaries at once on one job of a fresh schema
// of the PostgreSQL at base, over urls, and counts what they did together:
// pages (every 2xx page answer, so a page fetched twice counts twice),
// distinct pages, the peak RSS of the larger child, the CPU of both, and
// the entries done in the shared frontier.
func runWorkers(ctx context.Context, o options, dir, base string, urls []string, origins []*origin, n int) (crawlerFigures, int, error) {
	var f crawlerFigures
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return f, 0, err
	}
	seeds, err := writeSeeds(dir, "seeds.txt", urls)
	if err != nil {
		return f, 0, err
	}
	db, drop, err := benchSchema(ctx, base)
	if err != nil {
		return f, 0, err
	}
	defer drop()
	// The schema is made before the workers start, so that they do not
	// race to create it.
	if out, err := exec.CommandContext(ctx, o.polite, "status", "--db", db).CombinedOutput(); err != nil {
		return f, 0, fmt.Errorf("polite status: %w\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(ctx, throughputTimeout)
	defer cancel()
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
	)
	f.server = -1
	server, measured := serverCPU(ctx, db)
	var server0 time.Duration
	if measured {
		server0 = server()
	}
	start, self := time.Now(), selfCPU()
	for i := range n {
		args := []string{"crawl", "--db", db, "--out", filepath.Join(dir, "out-"+strconv.Itoa(i)), "--job", "throughput",
			"--floor", "0", "--start", "0", "--decrease", "0", "--concurrency", strconv.Itoa(o.concurrency),
			"--progress", "never", "--user-agent", userAgent, "--max-duration", throughputTimeout.String(), seeds}
		cmd := exec.CommandContext(ctx, o.polite, args...)
		var output bytes.Buffer
		cmd.Stdout, cmd.Stderr = &output, &output
		wg.Go(func() {
			rss, cpu, err := runChild(cmd)
			mu.Lock()
			defer mu.Unlock()
			f.rssKiB, f.cpu = max(f.rssKiB, rss), f.cpu+cpu
			if err != nil {
				errs = append(errs, fmt.Errorf("polite crawl (worker %d): %w\n%s", i, err, output.Bytes()))
			}
		})
	}
	wg.Wait()
	f.wall, f.origins = time.Since(start), selfCPU()-self
	if measured {
		f.server = server() - server0
	}
	if len(errs) > 0 {
		return f, 0, errs[0]
	}
	distinct := map[string]bool{}
	for _, or := range origins {
		for _, r := range or.o.Stats().Log {
			if !isRobots(r.Path) {
				distinct[or.srv.URL+r.Path] = true
			}
		}
	}
	if err := served(origins, &f); err != nil {
		return f, 0, err
	}
	c, err := pgx.Connect(ctx, db)
	if err != nil {
		return f, 0, err
	}
	defer c.Close(context.Background())
	err = c.QueryRow(ctx, `SELECT count(*) FROM frontier WHERE job = 'throughput' AND state = 'done'`).Scan(&f.recorded)
	return f, len(distinct), err
}
