package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	_ "modernc.org/sqlite"
)

// durableCommand is the first argument that makes this program the
// durable reference crawler, a child process the throughput scenario
// starts (polite-bench durable-reference -concurrency N -db F -out D SEEDS).
const durableCommand = "durable-reference"

// durableReference runs the durable reference crawler over urls as a
// child process: this program again, under durableCommand.
func (b *bench) durableReference(ctx context.Context, dir string, urls []string, origins []*origin) (crawlerFigures, error) {
	self, err := os.Executable()
	if err != nil {
		return crawlerFigures{}, err
	}
	d := filepath.Join(dir, "durable")
	if err := os.Mkdir(d, 0o700); err != nil {
		return crawlerFigures{}, err
	}
	defer os.RemoveAll(d)
	seeds, err := writeSeeds(d, "seeds.txt", urls)
	if err != nil {
		return crawlerFigures{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, throughputTimeout)
	defer cancel()
	f, out, err := child(exec.CommandContext(ctx, self, durableCommand, "-concurrency", strconv.Itoa(b.opts.concurrency),
		"-db", filepath.Join(d, "fetches.db"), "-out", filepath.Join(d, "out"), seeds), "durable reference")
	if err != nil {
		return f, err
	}
	if err := served(origins, &f); err != nil {
		return f, err
	}
	if _, err := fmt.Sscanf(out, "recorded %d on_disk %d", &f.recorded, &f.onDisk); err != nil {
		return f, fmt.Errorf("durable reference: output %q: %w", out, err)
	}
	return f, nil
}

// child runs cmd as runChild does, and returns its figures and its
// stdout; an error carries its stderr.
func child(cmd *exec.Cmd, name string) (crawlerFigures, string, error) {
	var f crawlerFigures
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	f.start = time.Now()
	var err error
	f.rssKiB, f.cpu, err = runChild(cmd)
	f.wall = time.Since(f.start)
	if err != nil {
		return f, "", fmt.Errorf("%s: %w\n%s", name, err, errOut.Bytes())
	}
	return f, out.String(), nil
}

// durableMain is the durable reference crawler: the least a crawler must
// do to keep what polite keeps of a fetch, with none of polite's
// politeness. Its frontier is the seed file's URLs in a SQLite table (WAL,
// synchronous NORMAL, as polite's store). Each URL is fetched once with
// net/http, concurrency at a time and one at a time per host; its body is
// hashed and written under the host's folder through a temporary name and
// a rename; then one writer commits the fetch (the frontier row marked
// done, a fetch row inserted) with every other fetch that finished
// meanwhile, in one transaction. A fetch is recorded only once its body is
// on disk, so a crawl killed at any moment loses only the fetches in
// flight or waiting for the writer. It prints how many fetches it
// recorded and bodies it wrote.
func durableMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(durableCommand, flag.ContinueOnError)
	fs.SetOutput(stderr)
	concurrency := fs.Int("concurrency", 16, "requests at once over all hosts")
	dbPath := fs.String("db", "", "SQLite file of the frontier and the fetches (created)")
	out := fs.String("out", "", "folder of the bodies (created)")
	if err := fs.Parse(args); err != nil || fs.NArg() != 1 || *dbPath == "" || *out == "" {
		fmt.Fprintln(stderr, "usage: polite-bench durable-reference [-concurrency N] -db FILE -out DIR SEEDS")
		return 2
	}
	recorded, onDisk, err := durableCrawl(fs.Arg(0), *dbPath, *out, *concurrency)
	if err != nil {
		fmt.Fprintln(stderr, "durable reference:", err)
		return 1
	}
	fmt.Fprintf(stdout, "recorded %d on_disk %d\n", recorded, onDisk)
	return 0
}

// durableFetch is one fetch for the writer to record.
type durableFetch struct {
	url, file, sum string
	status, bytes  int
	at             time.Time
}

func durableCrawl(seedPath, dbPath, out string, concurrency int) (recorded, onDisk int, err error) {
	urls, err := readLines(seedPath)
	if err != nil {
		return 0, 0, err
	}
	db, err := sql.Open("sqlite", "file:"+dbPath+"?_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=busy_timeout(5000)")
	if err != nil {
		return 0, 0, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if err := durableLoad(db, urls); err != nil {
		return 0, 0, err
	}
	done := make(chan durableFetch, concurrency)
	written := make(chan error, 1)
	go func() { written <- durableWriter(db, done) }()

	tr := &http.Transport{MaxIdleConns: 4 * concurrency, MaxIdleConnsPerHost: 4, IdleConnTimeout: time.Minute}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	var hosts sync.Map // host -> *durableHost
	next := make(chan string)
	errs := make(chan error, concurrency)
	var wg sync.WaitGroup
	for range concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for u := range next {
				f, err := durableGet(client, &hosts, out, u)
				if err != nil {
					select {
					case errs <- err:
					default:
					}
					continue
				}
				done <- f
			}
		}()
	}
	for _, u := range urls {
		next <- u
	}
	close(next)
	wg.Wait()
	close(done)
	if err := <-written; err != nil {
		return 0, 0, err
	}
	select {
	case err := <-errs:
		return 0, 0, err
	default:
	}
	if err := db.QueryRow(`SELECT count(*) FROM fetches WHERE status/100 = 2`).Scan(&recorded); err != nil {
		return 0, 0, err
	}
	onDisk, err = countFiles(out)
	return recorded, onDisk, err
}

// durableLoad puts the seeds into the frontier table in one transaction.
func durableLoad(db *sql.DB, urls []string) error {
	if _, err := db.Exec(`CREATE TABLE frontier (url TEXT PRIMARY KEY, host TEXT NOT NULL, done INTEGER NOT NULL DEFAULT 0);
		CREATE TABLE fetches (id INTEGER PRIMARY KEY, url TEXT NOT NULL, status INTEGER NOT NULL, file TEXT,
			sha256 TEXT, bytes INTEGER, fetched_at INTEGER NOT NULL)`); err != nil {
		return err
	}
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	ins, err := tx.Prepare(`INSERT OR IGNORE INTO frontier (url, host) VALUES (?, ?)`)
	if err != nil {
		return err
	}
	for _, raw := range urls {
		u, err := url.Parse(raw)
		if err != nil {
			return err
		}
		if _, err := ins.Exec(raw, u.Host); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// durableWriter commits the fetches as they come: each transaction takes
// every fetch that is waiting when it begins.
func durableWriter(db *sql.DB, done <-chan durableFetch) error {
	var firstErr error
	batch := make([]durableFetch, 0, 64)
	for f := range done {
		batch = append(batch[:0], f)
	more:
		for {
			select {
			case f, ok := <-done:
				if !ok {
					break more
				}
				batch = append(batch, f)
			default:
				break more
			}
		}
		if firstErr == nil {
			firstErr = durableCommit(db, batch)
		}
	}
	return firstErr
}

func durableCommit(db *sql.DB, batch []durableFetch) error {
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	mark, err := tx.Prepare(`UPDATE frontier SET done = 1 WHERE url = ?`)
	if err != nil {
		return err
	}
	ins, err := tx.Prepare(`INSERT INTO fetches (url, status, file, sha256, bytes, fetched_at) VALUES (?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	for _, f := range batch {
		if _, err := mark.Exec(f.url); err != nil {
			return err
		}
		if _, err := ins.Exec(f.url, f.status, f.file, f.sum, f.bytes, f.at.UnixNano()); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// durableHost is a host of the durable reference: its lock (one request
// at a time) and whether its folder is made.
type durableHost struct {
	sync.Mutex
	made bool
}

// durableGet fetches u, alone on its host, and writes a 2xx body under
// out/HOST/ through a temporary name and a rename.
func durableGet(client *http.Client, hosts *sync.Map, out, raw string) (durableFetch, error) {
	f := durableFetch{url: raw}
	u, err := url.Parse(raw)
	if err != nil {
		return f, err
	}
	v, _ := hosts.LoadOrStore(u.Host, &durableHost{})
	h := v.(*durableHost)
	h.Lock()
	defer h.Unlock()
	req, err := http.NewRequest(http.MethodGet, raw, nil)
	if err != nil {
		return f, err
	}
	req.Header.Set("User-Agent", userAgent)
	resp, err := client.Do(req)
	if err != nil {
		return f, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return f, fmt.Errorf("%s: %w", raw, err)
	}
	f.status, f.bytes, f.at = resp.StatusCode, len(body), time.Now()
	if f.status/100 != 2 {
		return f, nil
	}
	sum := sha256.Sum256(body)
	f.sum = hex.EncodeToString(sum[:])
	dir := filepath.Join(out, strings.ReplaceAll(u.Host, ":", "_"))
	if !h.made {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return f, err
		}
		h.made = true
	}
	name := filepath.Join(dir, strings.ReplaceAll(strings.Trim(u.Path, "/"), "/", "_")+".html")
	if err := os.WriteFile(name+".part", body, 0o644); err != nil {
		return f, err
	}
	if err := os.Rename(name+".part", name); err != nil {
		return f, err
	}
	f.file = name
	return f, nil
}

// readLines reads a seed file of one URL a line.
func readLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			lines = append(lines, l)
		}
	}
	return lines, sc.Err()
}

// countFiles counts the regular files under dir.
func countFiles(dir string) (int, error) {
	n := 0
	err := filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			n++
		}
		return err
	})
	return n, err
}
