package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/polite-crawler/polite/crawl/crawltest"
)

// The seeds scenario: a seed file of seedLines lines over seedHosts
// loopback origins, crawled by the real binary with --max-requests 1, so
// that the run is the loading of the seeds and one request.
const (
	seedLines = 1_000_000
	seedHosts = 200
)

// seedFigures is one run of the seeds scenario.
type seedFigures struct {
	toFirst time.Duration // from the start of the process to the first request an origin saw
	wall    time.Duration
	rssKiB  int64
}

// seedsResult is the seeds scenario's block of the output.
type seedsResult struct {
	first, resume seedFigures
	fileMB        float64
}

// loadRate is URLs per second until the first request: every seed is in
// the frontier before the first request is made.
func (s *seedsResult) loadRate() float64 {
	if s.first.toFirst <= 0 {
		return 0
	}
	return seedLines / s.first.toFirst.Seconds()
}

func (b *bench) runSeeds(ctx context.Context) error {
	if _, err := os.Stat(b.opts.polite); err != nil {
		return fmt.Errorf("polite binary: %w (build it with make build, or pass -polite)", err)
	}
	origins := startOrigins(seedHosts, crawltest.Config{Robots: robotsTxt, Log: true})
	defer closeOrigins(origins)
	dir, err := os.MkdirTemp("", "polite-bench-seeds-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	seeds := filepath.Join(dir, "seeds.txt")
	size, err := writeSeedFile(seeds, origins)
	if err != nil {
		return err
	}
	r := &seedsResult{fileMB: float64(size) / 1e6}
	b.progress("seeds: %d lines over %d hosts (%.0f MB), first run", seedLines, seedHosts, r.fileMB)
	if r.first, err = seedRun(ctx, b.opts.polite, dir, seeds, origins); err != nil {
		return err
	}
	b.progress("seeds: resume")
	if r.resume, err = seedRun(ctx, b.opts.polite, dir, seeds, origins); err != nil {
		return err
	}
	b.seeds = r
	return nil
}

func writeSeedFile(path string, origins []*origin) (int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for i := range seedLines {
		fmt.Fprintf(w, "%s/page/%d\n", origins[i%len(origins)].srv.URL, i)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return 0, err
	}
	return fi.Size(), f.Close()
}

// seedRun runs polite crawl over the seed file and reads the time to the
// first request from the origins' logs.
func seedRun(ctx context.Context, polite, dir, seeds string, origins []*origin) (seedFigures, error) {
	var f seedFigures
	for _, o := range origins {
		o.o.Reset()
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, polite, "crawl", "--db", filepath.Join(dir, "polite.db"), "--out", filepath.Join(dir, "out"),
		"--job", "seeds", "--max-requests", "1", "--floor", "0", "--start", "0", "--progress", "never", "--user-agent", userAgent, seeds)
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &output
	start := time.Now()
	var err error
	f.rssKiB, _, err = runChild(cmd)
	f.wall = time.Since(start)
	if err != nil {
		return f, fmt.Errorf("polite crawl: %w\n%s", err, output.Bytes())
	}
	var first time.Time
	for _, o := range origins {
		for _, r := range o.o.Stats().Log {
			if first.IsZero() || r.At.Before(first) {
				first = r.At
			}
		}
	}
	if first.IsZero() {
		return f, fmt.Errorf("no request reached the origins\n%s", output.Bytes())
	}
	f.toFirst = first.Sub(start)
	return f, nil
}

// print writes the seeds block.
func (s *seedsResult) print(w io.Writer) {
	fmt.Fprintf(w, "seeds: %d lines over %d hosts (%.0f MB), the binary with --max-requests 1\n", seedLines, seedHosts, s.fileMB)
	fmt.Fprintf(w, "  first run: %.2f s to the first request (%.0f URLs/s loaded), peak RSS %.1f MB, wall %.2f s\n",
		s.first.toFirst.Seconds(), s.loadRate(), float64(s.first.rssKiB)/1024, s.first.wall.Seconds())
	fmt.Fprintf(w, "  resume:    %.2f s to the first request, peak RSS %.1f MB, wall %.2f s\n",
		s.resume.toFirst.Seconds(), float64(s.resume.rssKiB)/1024, s.resume.wall.Seconds())
}

// target is the seeds scenario's line of the targets.
func (s *seedsResult) target() string {
	rss := float64(max(s.first.rssKiB, s.resume.rssKiB)) / 1024
	return fmt.Sprintf("seeds (%d lines): peak RSS <= 150 MB, load >= 100000 URLs/s: %s (%.1f MB, %.0f URLs/s; resume %.2f s to the first request)",
		seedLines, verdict(rss <= 150 && s.loadRate() >= 100000), rss, s.loadRate(), s.resume.toFirst.Seconds())
}
