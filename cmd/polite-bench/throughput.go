package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/crawltest"
	"github.com/polite-crawler/polite/crawl/seeds"
	"github.com/polite-crawler/polite/store"
)

// throughputTimeout bounds each crawler of the throughput scenario.
const throughputTimeout = 2 * time.Minute

// crawlerFigures is what one crawler of the throughput scenario achieved.
type crawlerFigures struct {
	pages int // 2xx page answers the origins sent
	wall  time.Duration
	p90   time.Duration // from the first request to the arrival of 90% of the pages
	start time.Time     // when the crawler was started
	// startup is from the start to the first request the origins saw,
	// and tail from the last request they saw to the crawler's exit.
	startup, tail time.Duration
	rssKiB        int64         // peak resident set of the child process
	cpu           time.Duration // user and system CPU time of the child process
	origins       time.Duration // CPU time of the bench (the origins serving) during the crawl
	server        time.Duration // CPU time of the PostgreSQL server during a shared crawl, -1 unknown
	recorded      int           // 2xx fetches of the run in SQLite
	onDisk        int           // manifest bodies found on disk with their size
	inWarc        int           // 200 page captures in the WARC files' indexes (--warc)
	// complete is the pages whose requisites (benchRequisites each) were
	// all answered 2xx too: with --warc, which fetches them.
	complete int
}

func (f crawlerFigures) rate() float64 {
	if f.wall <= 0 {
		return 0
	}
	return float64(f.pages) / f.wall.Seconds()
}

// sustained is pages per second up to the arrival of 90% of them: the
// rate without a straggler's tail.
func (f crawlerFigures) sustained() float64 {
	if f.p90 <= 0 {
		return 0
	}
	return 0.9 * float64(f.pages) / f.p90.Seconds()
}

func (f crawlerFigures) rssMB() float64 { return float64(f.rssKiB) / 1024 }

// throughputResult is the throughput scenario's block of the output.
type throughputResult struct {
	hosts, pages, concurrency int
	polite, reference         crawlerFigures
	withWarc                  *crawlerFigures // polite with --warc
	colly                     *crawlerFigures // the colly crawler, mean of two runs
	durable                   crawlerFigures  // the durable reference crawler, mean of two runs
	peers                     []peer          // the -baseline binary
	shared                    *crawlerFigures // sharedThroughputWorkers binaries on one PostgreSQL
	sharedDistinct            int             // distinct pages they fetched
	inProcess                 *crawlerFigures
	note                      string
}

func (t *throughputResult) urls() int { return t.hosts * t.pages }

// runThroughput serves the unthrottled origins and runs over them the
// crawlers measured beside polite, the polite binary (with and without
// --warc, and the -baseline), then the crawlers beside it again, and
// checks what polite kept.
func (b *bench) runThroughput(ctx context.Context) error {
	o := b.opts
	if _, err := os.Stat(o.polite); err != nil {
		return fmt.Errorf("polite binary: %w (build it with make build, or pass -polite)", err)
	}
	origins := startOrigins(o.hosts, crawltest.Config{Robots: robotsTxt, Pages: o.pages, Links: 3, Log: true, Requisites: benchRequisites})
	defer closeOrigins(origins)
	var urls []string
	for p := range o.pages { // page-major: every crawler meets the hosts in turn
		for _, or := range origins {
			urls = append(urls, or.srv.URL+"/page/"+strconv.Itoa(p))
		}
	}
	dir, err := os.MkdirTemp("", "polite-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	t := &throughputResult{hosts: o.hosts, pages: o.pages, concurrency: o.concurrency}

	before, err := b.beside(ctx, dir, urls, origins, "")
	if err != nil {
		return err
	}
	var base peer
	if o.baseline != "" {
		if base, err = b.baseline(ctx, dir, "base", false, "", urls, origins); err != nil {
			return err
		}
	}
	b.progress("throughput: %s crawl, %d URLs", o.polite, len(urls))
	if t.polite, err = runBinary(ctx, o, dir, urls, origins); err != nil {
		return err
	}
	if o.warc {
		if t.withWarc, err = b.warcThroughput(ctx, dir, urls, origins); err != nil {
			return err
		}
	}
	if t.peers, err = b.peers(ctx, dir, base, urls, origins); err != nil {
		return err
	}
	if err := b.sharedThroughput(ctx, t, dir, urls, origins); err != nil {
		return err
	}
	after, err := b.beside(ctx, dir, urls, origins, " again")
	if err != nil {
		return err
	}
	t.setBeside(before, after)
	if o.cpuprofile != "" {
		b.progress("throughput: in-process crawl with a CPU profile to %s", o.cpuprofile)
		f, err := inProcess(ctx, o, filepath.Join(dir, "inproc"), urls, origins)
		if err != nil {
			return err
		}
		t.inProcess = &f
	}
	b.throughput = t
	return nil
}

// served reads the 2xx page answers the origins counted (robots.txt left
// out) into f, with the time to 90% of them, and resets the origins.
func served(origins []*origin, f *crawlerFigures) error {
	var first, last time.Time
	var pages []time.Time
	complete := map[string]int{} // origin and page -> its 2xx answers, page included
	for _, o := range origins {
		s := o.o.Stats()
		o.o.Reset()
		if other := s.Requests - s.ByStatus[http.StatusOK]; other != 0 {
			return fmt.Errorf("origin %s answered %d requests with a status other than 200: %v", o.srv.URL, other, s.ByStatus)
		}
		for _, r := range s.Log {
			if first.IsZero() || r.At.Before(first) {
				first = r.At
			}
			if r.At.After(last) {
				last = r.At
			}
			if r.Status != http.StatusOK || isRobots(r.Path) {
				continue
			}
			if page, ok := requisiteOf(r.Path); ok {
				complete[o.srv.URL+"/page/"+page]++
				continue
			}
			pages = append(pages, r.At)
			complete[o.srv.URL+r.Path]++
		}
	}
	f.pages = len(pages)
	for _, n := range complete {
		if n == 1+benchRequisites {
			f.complete++
		}
	}
	if len(pages) == 0 {
		return errors.New("no page reached the origins")
	}
	sort.Slice(pages, func(i, j int) bool { return pages[i].Before(pages[j]) })
	f.p90 = pages[(len(pages)*90+99)/100-1].Sub(first)
	if !f.start.IsZero() {
		f.startup, f.tail = first.Sub(f.start), f.start.Add(f.wall).Sub(last)
	}
	return nil
}

// warcThroughput runs the binary with --warc over urls, in a folder of
// its own under dir, and counts the pages its WARC files hold.
func (b *bench) warcThroughput(ctx context.Context, dir string, urls []string, origins []*origin) (*crawlerFigures, error) {
	b.progress("throughput: %s crawl --warc, %d URLs", b.opts.polite, len(urls))
	wdir := filepath.Join(dir, "warc")
	if err := os.Mkdir(wdir, 0o700); err != nil {
		return nil, err
	}
	f, err := runBinary(ctx, b.opts, wdir, urls, origins, "--warc")
	if err != nil {
		return nil, err
	}
	if f.inWarc, err = warcCaptures(filepath.Join(wdir, "out", "warc")); err != nil {
		return nil, err
	}
	return &f, nil
}

// writeSeeds writes urls, one a line, to dir/name, and returns its path.
func writeSeeds(dir, name string, urls []string) (string, error) {
	path := filepath.Join(dir, name)
	return path, os.WriteFile(path, []byte(strings.Join(urls, "\n")+"\n"), 0o600)
}

// runBinary runs polite crawl as a child process with floors at zero.
func runBinary(ctx context.Context, o options, dir string, urls []string, origins []*origin, extra ...string) (crawlerFigures, error) {
	var f crawlerFigures
	seeds, err := writeSeeds(dir, "seeds.txt", urls)
	if err != nil {
		return f, err
	}
	db, out := filepath.Join(dir, "polite.db"), filepath.Join(dir, "out")
	limit := runLimit(len(urls))
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	args := append([]string{"crawl", "--db", db, "--out", out, "--job", "throughput",
		"--floor", "0", "--start", "0", "--decrease", "0", "--concurrency", strconv.Itoa(o.concurrency),
		"--progress", "never", "--user-agent", userAgent, "--max-duration", limit.String()}, extra...)
	cmd := exec.CommandContext(ctx, o.polite, append(args, seeds)...)
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	self := selfCPU()
	f.start = time.Now()
	f.rssKiB, f.cpu, err = runChild(cmd)
	f.wall, f.origins = time.Since(f.start), selfCPU()-self
	if err != nil {
		return f, fmt.Errorf("polite crawl: %w\n%s", err, output.Bytes())
	}
	if err := served(origins, &f); err != nil {
		return f, err
	}
	f.recorded, f.onDisk, err = kept(db, out)
	return f, err
}

// kept counts the 2xx fetches of the database's last run and the bodies of
// the manifest that are on disk with the size the manifest gives.
func kept(dbPath, out string) (recorded, onDisk int, err error) {
	db, err := store.Open(dbPath)
	if err != nil {
		return 0, 0, err
	}
	defer db.Close()
	runs, err := db.Runs(1)
	if err != nil || len(runs) == 0 {
		return 0, 0, fmt.Errorf("no run in %s: %v", dbPath, err)
	}
	fs, err := db.Fetches(runs[0].ID)
	if err != nil {
		return 0, 0, err
	}
	for _, f := range fs {
		if f.Status/100 == 2 {
			recorded++
		}
	}
	mf, err := os.Open(filepath.Join(out, "manifest.jsonl"))
	if err != nil {
		return recorded, 0, err
	}
	defer mf.Close()
	sc := bufio.NewScanner(mf)
	for sc.Scan() {
		var m struct {
			Status int    `json:"status"`
			File   string `json:"file"`
			Bytes  int64  `json:"bytes"`
		}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			return recorded, onDisk, fmt.Errorf("manifest: %w", err)
		}
		if m.Status/100 != 2 || m.File == "" {
			continue
		}
		if st, err := os.Stat(filepath.Join(out, filepath.FromSlash(m.File))); err == nil && st.Size() == m.Bytes {
			onDisk++
		}
	}
	return recorded, onDisk, sc.Err()
}

// reference fetches urls with plain net/http GETs, concurrency at a time,
// discarding the bodies: what a fast crawler that keeps nothing does.
func reference(ctx context.Context, urls []string, concurrency int, origins []*origin) (crawlerFigures, error) {
	var f crawlerFigures
	tr := &http.Transport{MaxIdleConns: 4 * concurrency, MaxIdleConnsPerHost: 4, IdleConnTimeout: time.Minute}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	ctx, cancel := context.WithTimeout(ctx, throughputTimeout)
	defer cancel()
	next := make(chan string)
	var mu sync.Mutex
	var firstErr error
	var wg sync.WaitGroup
	start := time.Now()
	for range concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for u := range next {
				if err := get(ctx, client, u); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	for _, u := range urls {
		next <- u
	}
	close(next)
	wg.Wait()
	f.wall = time.Since(start)
	if firstErr != nil {
		return f, fmt.Errorf("reference crawler: %w", firstErr)
	}
	return f, served(origins, &f)
}

func get(ctx context.Context, c *http.Client, u string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("User-Agent", userAgent)
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	return err
}

// inProcess runs the throughput crawl with crawl.Run in this process under
// the CPU profiler, for go tool pprof.
func inProcess(ctx context.Context, o options, dir string, urls []string, origins []*origin) (crawlerFigures, error) {
	var f crawlerFigures
	cfg := crawl.DefaultConfig()
	cfg.Job, cfg.OutDir, cfg.UserAgent = "throughput", filepath.Join(dir, "out"), userAgent
	cfg.Pace.Floor, cfg.Pace.Start, cfg.Pace.Decrease = 0, 0, 0
	cfg.Concurrency, cfg.MaxDuration = o.concurrency, throughputTimeout
	cfg.Warc = o.profileWarc
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg.Seeds = seeds.Lines("seeds", urls...)
	dbPath := filepath.Join(dir, "polite.db")
	db, err := store.Open(dbPath)
	if err != nil {
		return f, err
	}
	cfg.SeedTx, cfg.Trim = db.SeedLoads, db
	prof, err := os.Create(o.cpuprofile)
	if err != nil {
		db.Close()
		return f, err
	}
	defer prof.Close()
	if err := pprof.StartCPUProfile(prof); err != nil {
		db.Close()
		return f, err
	}
	start := time.Now()
	_, err = crawl.Run(ctx, db, cfg)
	f.wall = time.Since(start)
	pprof.StopCPUProfile()
	db.Close()
	if err != nil {
		return f, fmt.Errorf("in-process crawl: %w", err)
	}
	if err := served(origins, &f); err != nil {
		return f, err
	}
	f.recorded, f.onDisk, err = kept(dbPath, cfg.OutDir)
	return f, err
}
