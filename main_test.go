package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/clock"
	"github.com/polite-crawler/polite/crawl/crawltest"
	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/store"
)

// polite is the binary under test, built once by TestMain.
var polite string

func TestMain(m *testing.M) {
	crawltest.ScratchInRAM()
	dir, err := os.MkdirTemp("", "polite-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	polite = filepath.Join(dir, "polite")
	build := exec.Command("go", "build", "-o", polite, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build polite: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is one run of the binary.
type result struct {
	code           int
	stdout, stderr string
}

func run(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	return runIn(t, stdin, testEnv(t), args...)
}

// runEnv runs polite with env added to the test environment.
func runEnv(t *testing.T, env []string, args ...string) result {
	t.Helper()
	return runIn(t, "", testEnv(t, env...), args...)
}

func runIn(t *testing.T, stdin string, env []string, args ...string) result {
	t.Helper()
	return runPolite(t, "", stdin, env, args...)
}

// runPolite runs the binary in dir ("" for the test's own) with stdin and
// env, and returns its exit code and output.
func runPolite(t *testing.T, dir, stdin string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(polite, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.Env = env
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run polite %v: %v", args, err)
	}
	return result{code, out.String(), errOut.String()}
}

// testEnv is the environment of the binary under test: its own state and
// config folders, and a contact, so that no run warns about a missing one.
func testEnv(t *testing.T, extra ...string) []string {
	return append(append(os.Environ(), "POLITE_DB=", "XDG_STATE_HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir(),
		"POLITE_CONTACT=mailto:tests@example.org"), extra...)
}

// serve starts an origin on loopback, closed when the test ends. It
// announces on changes each request it has counted and each answer, so
// that until can wait on its Stats.
func serve(t *testing.T, cfg crawltest.Config) (*crawltest.Origin, *httptest.Server) {
	t.Helper()
	if cfg.Clock == nil {
		cfg.Clock = announcer{}
	}
	o := crawltest.New(cfg)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.ServeHTTP(w, r)
		changes.notify() // answered, or refused before any wait
	}))
	t.Cleanup(srv.Close)
	return o, srv
}

// announcer is the wall clock of an origin the binary crawls. The origin
// holds its waits (latency, queueing, /slow/N) on its clock once it has
// counted a request (clock.Holder): each wait begins with a change
// announced, then lasts its real time.
type announcer struct{}

func (announcer) Now() time.Time { return time.Now() }

func (announcer) Hold(ctx context.Context, d time.Duration) bool {
	changes.notify()
	return clock.Sleep(ctx, clock.Real{}, d)
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// fast are pacing flags that keep a test run short.
var fast = []string{"--floor", "5ms", "--start", "5ms", "--decrease", "5ms", "--ceiling", "3s", "--progress", "never"}

type statusJSON struct {
	Hosts []struct {
		Host        string  `json:"host"`
		AgedDelayS  float64 `json:"aged_delay_s"`
		StoredS     float64 `json:"stored_delay_s"`
		FloorSource string  `json:"floor_source"`
		LastSignal  string  `json:"last_signal"`
	} `json:"hosts"`
	Runs []struct {
		ID       int64 `json:"id"`
		ExitCode int   `json:"exit_code"`
	} `json:"runs"`
}

type reportJSON struct {
	ExitCode int `json:"exit_code"`
	Hosts    []struct {
		Host         string  `json:"host"`
		Requests     int     `json:"requests"`
		S429         int     `json:"429"`
		DelayStartS  float64 `json:"delay_start_s"`
		StoredStartS float64 `json:"stored_start_s"`
		DelayEndS    float64 `json:"delay_end_s"`
	} `json:"hosts"`
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func TestCLICrawlStatusAndSecondRun(t *testing.T) {
	robotsTxt := "User-agent: *\nDisallow: /private\n"
	calm, calmSrv := serve(t, crawltest.Config{Robots: robotsTxt})
	busy, busySrv := serve(t, crawltest.Config{Robots: robotsTxt, Rate: 20, Burst: 1, RetryAfter: time.Second})
	var seeds strings.Builder
	seeds.WriteString("# two origins\n")
	for i := 0; i < 5; i++ {
		fmt.Fprintf(&seeds, "%s/a/%d\n%s/a/%d 5\n", calmSrv.URL, i, busySrv.URL, i)
	}
	fmt.Fprintf(&seeds, "%s/private/no\n%s/private/no\n", calmSrv.URL, busySrv.URL)
	seedFile := writeFile(t, "seeds.txt", seeds.String())
	dir := t.TempDir()
	db, out := filepath.Join(dir, "polite.db"), filepath.Join(dir, "out")

	r := run(t, "", append([]string{"crawl", "--db", db, "--out", out, seedFile}, fast...)...)
	if r.code != 0 {
		t.Fatalf("crawl exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "10 done") || !strings.Contains(r.stdout, "2 excluded") {
		t.Errorf("summary does not say 10 done, 2 excluded:\n%s", r.stdout)
	}
	if calm.Stats().Disallowed+busy.Stats().Disallowed != 0 {
		t.Errorf("disallowed paths were requested")
	}
	if busy.Stats().ByStatus[429] == 0 {
		t.Fatalf("busy origin never said 429; nothing was throttled")
	}

	var st statusJSON
	r = run(t, "", "status", "--db", db, "--json")
	if r.code != 0 {
		t.Fatalf("status exit %d: %s", r.code, r.stderr)
	}
	if err := json.Unmarshal([]byte(r.stdout), &st); err != nil {
		t.Fatalf("status --json: %v\n%s", err, r.stdout)
	}
	busyKey := busySrv.Listener.Addr().String()
	var busyAged float64
	for _, h := range st.Hosts {
		if h.Host == busyKey {
			busyAged = h.AgedDelayS
			if h.LastSignal != "429" {
				t.Errorf("busy host last signal %q, want 429", h.LastSignal)
			}
		}
	}
	if busyAged <= 0.005 {
		t.Errorf("status shows the busy host at %.3fs, want above the 5ms start", busyAged)
	}
	if len(st.Runs) != 1 || st.Runs[0].ExitCode != 0 {
		t.Errorf("status runs = %+v, want one run with exit 0", st.Runs)
	}
	text := run(t, "", "status", "--db", db)
	if !strings.Contains(text.stdout, busyKey) || !strings.Contains(text.stdout, "(from ") {
		t.Errorf("status table lacks the busy host or its stored delay:\n%s", text.stdout)
	}

	// --host with the busy host's name tells its story: the 429s of the
	// run, in time order, with RFC 3339 times.
	r = run(t, "", "status", "--db", db, "--host", busyKey, "--json")
	var story struct {
		Host    string `json:"host"`
		LastRun struct {
			ID      int64 `json:"id"`
			Signals []struct {
				At     time.Time `json:"at"`
				Kind   string    `json:"kind"`
				Status int       `json:"status"`
			} `json:"signals"`
		} `json:"last_run"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &story); r.code != 0 || err != nil {
		t.Fatalf("status --host %s --json: exit %d, %v\n%s%s", busyKey, r.code, err, r.stdout, r.stderr)
	}
	throttled := 0
	for i, g := range story.LastRun.Signals {
		if g.Kind == "throttled" && g.Status == 429 {
			throttled++
		}
		if i > 0 && g.At.Before(story.LastRun.Signals[i-1].At) {
			t.Errorf("signal %d at %v comes before signal %d", i, g.At, i-1)
		}
	}
	if story.Host != busyKey || story.LastRun.ID != 1 || throttled != busy.Stats().ByStatus[429] {
		t.Errorf("story of %s, run %d, %d throttled signals; want %s, run 1, %d (the origin's 429s)",
			story.Host, story.LastRun.ID, throttled, busyKey, busy.Stats().ByStatus[429])
	}
	if text := run(t, "", "status", "--db", db, "--host", busyKey); !strings.Contains(text.stdout, "signals, in time order:") {
		t.Errorf("status --host %s lacks the run's signals:\n%s", busyKey, text.stdout)
	}

	// A second run starts from the aged delay, not from --start.
	r = run(t, "", append([]string{"crawl", "--db", db, "--out", out, seedFile}, fast...)...)
	if r.code != 0 {
		t.Fatalf("second crawl exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	var rep reportJSON
	readJSON(t, filepath.Join(out, "report.json"), &rep)
	found := false
	for _, h := range rep.Hosts {
		if h.Host != busyKey {
			continue
		}
		found = true
		// Not "at most the stored delay": the host's robots.txt answer comes
		// first, and on a loaded machine its latency may already have
		// raised the delay the first page starts from.
		if h.StoredStartS <= 0.005 || h.DelayStartS <= 0.005 {
			t.Errorf("second run started the busy host at %.3fs (stored %.3fs); want the aged stored delay, above the 5ms start", h.DelayStartS, h.StoredStartS)
		}
	}
	if !found {
		t.Errorf("second report has no busy host")
	}
}

func TestCLIExitCodes(t *testing.T) {
	_, srv := serve(t, crawltest.Config{})
	dir := t.TempDir()
	db := filepath.Join(dir, "polite.db")
	good := writeFile(t, "good.txt", srv.URL+"/ok\n")

	tests := []struct {
		name     string
		args     []string
		stdin    string
		want     int
		inStderr string
	}{
		{"no valid seed", []string{"crawl", "--db", db, writeFile(t, "bad.txt", "ftp://x/\nnot a url\n")}, "", 2, "bad.txt:1: "},
		{"missing seed file", []string{"crawl", "--db", db, filepath.Join(dir, "nope.txt")}, "", 2, "nope.txt"},
		{"seed file is a folder", []string{"crawl", "--db", db, dir}, "", 2, "is a folder"},
		{"strict", []string{"crawl", "--db", db, "--strict", writeFile(t, "mixed.txt", srv.URL+"/a\nnope\n")}, "", 2, "mixed.txt:2: "},
		{"bad flag", []string{"crawl", "--db", db, "--floor", "-1s", good}, "", 2, "--floor"},
		{"floor above ceiling", []string{"crawl", "--db", db, "--floor", "10s", "--ceiling", "1s", good}, "", 2, "above --ceiling"},
		{"multiplier", []string{"crawl", "--db", db, "--multiplier", "1", good}, "", 2, "--multiplier"},
		{"unknown scope", []string{"crawl", "--db", db, "--scope", "planet", good}, "", 2, "--scope"},
		{"dead URL", append([]string{"crawl", "--db", db, "--out", filepath.Join(dir, "o1"), writeFile(t, "dead.txt", srv.URL+"/status/404\n")}, fast...), "", 1, ""},
		{"stdin", append([]string{"crawl", "--db", db, "--out", filepath.Join(dir, "o2"), "-"}, fast...), srv.URL + "/from-stdin\n", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, tt.stdin, tt.args...)
			if r.code != tt.want {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, tt.want, r.stdout, r.stderr)
			}
			if !strings.Contains(r.stderr, tt.inStderr) {
				t.Errorf("stderr %q does not contain %q", r.stderr, tt.inStderr)
			}
		})
	}
}

func TestCLISecondCrawlOnTheSameDatabaseExits3(t *testing.T) {
	_, srv := serve(t, crawltest.Config{})
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "polite.db")
	db, err := store.Open(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	holder := frontier.Holder{PID: os.Getpid(), Hostname: mustHostname(t), Job: "other", Since: time.Now()}
	if err := db.Acquire(holder); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	r := run(t, "", "crawl", "--db", dbPath, "--out", filepath.Join(dir, "out"), writeFile(t, "s.txt", srv.URL+"/x\n"))
	if r.code != 3 {
		t.Fatalf("exit %d, want 3\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, fmt.Sprintf("pid %d", os.Getpid())) {
		t.Errorf("stderr does not name the holder: %s", r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); !os.IsNotExist(err) {
		t.Errorf("the refused crawl touched its output folder (stat: %v)", err)
	}
}

// A run that cannot start its output (here manifest.jsonl is a folder)
// exits 1 and is recorded as ended, not left "running" for ever.
func TestCLIRunThatCannotStartIsRecordedAsEnded(t *testing.T) {
	_, srv := serve(t, crawltest.Config{})
	dir := t.TempDir()
	db, out := filepath.Join(dir, "polite.db"), filepath.Join(dir, "out")
	if err := os.MkdirAll(filepath.Join(out, "manifest.jsonl", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := run(t, "", append([]string{"crawl", "--db", db, "--out", out, writeFile(t, "s.txt", srv.URL+"/x\n")}, fast...)...)
	if r.code != 1 || !strings.Contains(r.stderr, "manifest") {
		t.Fatalf("exit %d, stderr %q; want 1 and a message naming the manifest", r.code, r.stderr)
	}
	var runs []struct {
		Ended    time.Time `json:"ended"`
		ExitCode int       `json:"exit_code"`
	}
	rr := run(t, "", "runs", "--db", db, "--json")
	if err := json.Unmarshal([]byte(rr.stdout), &runs); err != nil {
		t.Fatalf("runs --json: %v\n%s", err, rr.stdout)
	}
	if len(runs) != 1 || runs[0].Ended.IsZero() || runs[0].ExitCode != 1 {
		t.Errorf("runs = %+v, want one run, ended, exit code 1", runs)
	}
}

func mustHostname(t *testing.T) string {
	t.Helper()
	h, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestCLIRobotsCheck(t *testing.T) {
	o, srv := serve(t, crawltest.Config{Robots: "User-agent: *\nDisallow: /private\nCrawl-delay: 0.01\n"})
	dir := t.TempDir()
	db := filepath.Join(dir, "polite.db")
	crawled := run(t, "", append(append([]string{"crawl", "--db", db, "--out", filepath.Join(dir, "out")}, fast...),
		writeFile(t, "s.txt", srv.URL+"/a\n"+srv.URL+"/private/b\n"))...)
	if crawled.code != 0 {
		t.Fatalf("crawl: exit %d\n%s", crawled.code, crawled.stderr)
	}
	robotsAfterCrawl := o.Stats().Robots
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout []string // substrings
	}{
		{"allowed, from the copy the crawl cached", []string{srv.URL + "/a"}, 0,
			[]string{"ALLOWED     " + srv.URL + "/a", "(cached copy of ", "crawl-delay   10ms"}},
		{"disallowed", []string{srv.URL + "/a", srv.URL + "/private/b"}, 1,
			[]string{"DISALLOWED  " + srv.URL + "/private/b", `rule          "Disallow: /private" (line 2)`}},
		{"json", []string{"--json", srv.URL + "/private/b"}, 1, []string{`"allowed": false`, `"cached": true`}},
		{"file", []string{"--file", "testdata/robots/news.txt", "https://news.example/search"}, 1,
			[]string{`rule          "Disallow: /search" (line 21)`}},
		{"bad URL", []string{"mailto:x@example.org"}, 2, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, "", append([]string{"robots", "check", "--db", db}, tc.args...)...)
			if r.code != tc.code {
				t.Errorf("exit %d, want %d\n%s", r.code, tc.code, r.stderr)
			}
			for _, want := range tc.stdout {
				if !strings.Contains(r.stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
				}
			}
		})
	}
	if n := o.Stats().Robots; n != robotsAfterCrawl {
		t.Errorf("robots check fetched robots.txt %d times, want 0: the crawl's copy is fresh", n-robotsAfterCrawl)
	}
}

// bodiesOnDisk returns every file under out except the manifest and the
// reports, relative to out, with its content.
func bodiesOnDisk(t *testing.T, out string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(out, p)
		switch {
		case rel == "manifest.jsonl", rel == "report.json", rel == "report.html",
			strings.HasPrefix(rel, "runs"+string(filepath.Separator)), // the runs' own reports and manifest lines
			strings.HasPrefix(rel, "warc"+string(filepath.Separator)): // --warc's files and indexes
			return nil
		}
		b, err := os.ReadFile(p)
		files[rel] = b
		return err
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return files
}

// killGate counts the requests of the origins it wraps, robots.txt aside,
// and lets the first pass of them through; a later one gets its headers
// and half its body, then hangs until its client goes away. It announces
// each request it counts on changes.
type killGate struct {
	seen, pass atomic.Int64
}

func (g *killGate) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			h.ServeHTTP(w, r)
			return
		}
		n := g.seen.Add(1)
		changes.notify()
		if n <= g.pass.Load() {
			h.ServeHTTP(w, r)
			return
		}
		body := crawltest.Body(r.URL.Path)
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body[:len(body)/2])
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
}

// TestCLIKilledAtSeveralPointsLosesNothing kills a crawl with SIGKILL at
// several points of its progress, one run after another on the same
// database, then lets a last run finish. After every kill the database
// opens, what was done stays done, and every file in the output folder is
// a whole body under its final name (or a temporary file, never a part of
// a body under a body's name); at the end every URL is done once, with
// its whole body, and no temporary file is left.
func TestCLIKilledAtSeveralPointsLosesNothing(t *testing.T) {
	const perHost = 20
	var (
		gate  killGate
		seeds strings.Builder
	)
	whole := map[[32]byte]bool{} // the sha256 of every body a URL has
	for i := 0; i < 2; i++ {
		o := crawltest.New(crawltest.Config{Latency: 3 * time.Millisecond})
		srv := httptest.NewServer(gate.wrap(o))
		t.Cleanup(srv.Close)
		for j := 0; j < perHost; j++ {
			path := fmt.Sprintf("/big/%d", 1<<20+j)
			fmt.Fprintf(&seeds, "%s%s\n", srv.URL, path)
			whole[sha256.Sum256(crawltest.Body(path))] = true
		}
	}
	seedFile := writeFile(t, "killed.txt", seeds.String())
	dir := t.TempDir()
	dbPath, out := filepath.Join(dir, "polite.db"), filepath.Join(dir, "out")
	args := append([]string{"crawl", "--db", dbPath, "--out", out, "--concurrency", "4", "--job", "killed", seedFile}, fast...)
	requests := func() int { return int(gate.seen.Load()) }
	checkDisk := func(when string) {
		t.Helper()
		for rel, b := range bodiesOnDisk(t, out) {
			if strings.HasSuffix(rel, ".part") {
				continue
			}
			if !whole[sha256.Sum256(b)] {
				t.Errorf("%s: %s holds %d bytes that are no whole body", when, rel, len(b))
			}
		}
	}

	writing := func() bool { // a body is being written
		for rel := range bodiesOnDisk(t, out) {
			if strings.HasSuffix(rel, ".part") {
				return true
			}
		}
		return false
	}
	done, parts := 0, 0
	// Kill points: a number of requests into the run, or then the moment
	// a body is being written: the kernel tells when polite creates its
	// temporary file.
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	created := watchParts(t, out)
	for i, kp := range []struct {
		after        int  // requests into the run
		whileWriting bool // and then as soon as a body is being written
	}{{2, false}, {1, true}, {6, false}, {1, true}, {6, true}} {
		at := requests() + kp.after
		// The requests past the kill point's hang, so the run cannot end
		// by itself however late this test looks.
		limit := at
		if kp.whileWriting {
			limit = at + 4
		}
		gate.pass.Store(int64(limit))
		p := start(t, args...)
		what := fmt.Sprintf("kill point %d", i)
		until(t, what, func() bool { return p.exited() || requests() >= at })
		if kp.whileWriting {
			before := created.Load()
			until(t, what, func() bool { return p.exited() || created.Load() > before || requests() > limit })
		}
		p.cmd.Process.Kill()
		if code := p.wait(); code != -1 {
			// A run that ended by itself starts the next one on a new pass.
			t.Fatalf("run %d ended (exit %d) before its kill point; the test shows nothing", i, code)
		}
		when := fmt.Sprintf("after kill %d", i)
		if writing() {
			parts++
		}

		db, err := store.Open(dbPath)
		if err != nil {
			t.Fatalf("%s: the database does not open: %v", when, err)
		}
		es, err := db.Entries("killed", frontier.Done, 0)
		db.Close()
		if err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		if len(es) < done {
			t.Errorf("%s: %d URLs done, %d before: done URLs were lost", when, len(es), done)
		}
		done = len(es)
		for _, e := range es {
			b, err := os.ReadFile(filepath.Join(out, e.File))
			sum := sha256.Sum256(b)
			if err != nil || hex.EncodeToString(sum[:]) != e.SHA256 {
				t.Errorf("%s: %s is done but its body %s is missing or not whole (%v)", when, e.URL, e.File, err)
			}
		}
		checkDisk(when)
		if _, err := os.Stat(filepath.Join(out, "manifest.jsonl")); err == nil {
			checkManifestWhole(t, when, out)
		}
	}
	if done == perHost*2 {
		t.Fatalf("every URL was done before the last kill; the test shows nothing")
	}
	t.Logf("%d of 5 kills hit a body being written", parts)

	gate.pass.Store(math.MaxInt64)
	r := run(t, "", args...)
	if r.code != 0 {
		t.Fatalf("last run exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	db, err := store.Open(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	es, err := db.Entries("killed", frontier.Done, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != perHost*2 {
		t.Errorf("%d URLs done after the last run, want %d", len(es), perHost*2)
	}
	checkDisk("after the last run")
	// The killed runs' manifest lines joined the manifest: it lists every body.
	if got := len(checkManifest(t, "after the last run", out)); got != perHost*2 {
		t.Errorf("the manifest lists %d URLs after the last run, want %d", got, perHost*2)
	}
	files := bodiesOnDisk(t, out)
	for rel := range files {
		if strings.HasSuffix(rel, ".part") {
			t.Errorf("temporary file %s left after the last run", rel)
		}
	}
	if len(files) != perHost*2 {
		t.Errorf("%d files in the output folder, want %d", len(files), perHost*2)
	}
}

// TestCLIWriteFailureStopsTheRun makes body writes fail three ways: a file
// size limit (a disk that fills up: writes fail with EFBIG part way), a
// file where a host's folder should be, and an output folder that cannot
// be created. Each stops the run with exit 1 and a message naming what
// failed; the database stays consistent: the URL that could not be
// written is still queued, and a run without the fault finishes it.
func TestCLIWriteFailureStopsTheRun(t *testing.T) {
	_, srv := serve(t, crawltest.Config{})
	host := strings.TrimPrefix(srv.URL, "http://")
	tests := []struct {
		name    string
		limit   bool                                  // run under ulimit -f: files above 4 MiB fail
		prepare func(t *testing.T, out string) string // returns the --out to use
		want    string
	}{
		{name: "disk full", limit: true, want: "file too large",
			prepare: func(t *testing.T, out string) string { return out }},
		{name: "a file where the host folder goes", want: "is not a folder",
			prepare: func(t *testing.T, out string) string {
				os.MkdirAll(out, 0o755)
				os.WriteFile(filepath.Join(out, host), nil, 0o644) // the host folder is HOST:PORT
				return out
			}},
		{name: "output folder cannot be created", want: "create output folder",
			prepare: func(t *testing.T, out string) string {
				os.WriteFile(out, nil, 0o644)
				return filepath.Join(out, "sub")
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			dbPath := filepath.Join(dir, "polite.db")
			big := "/big/12000000"
			seedFile := writeFile(t, "w.txt", srv.URL+"/small\n"+srv.URL+big+" -1\n")
			outFlag := tt.prepare(t, filepath.Join(dir, "out"))
			args := append([]string{"crawl", "--db", dbPath, "--out", outFlag, "--max-body", "20000000", "--job", "w", seedFile}, fast...)
			var r result
			if tt.limit {
				cmd := exec.Command("sh", append([]string{"-c", `ulimit -f 8192 && exec "$0" "$@"`, polite}, args...)...)
				var out, errOut bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &errOut
				cmd.Env = testEnv(t)
				err := cmd.Run()
				r = result{0, out.String(), errOut.String()}
				var ee *exec.ExitError
				if errors.As(err, &ee) {
					r.code = ee.ExitCode()
				}
			} else {
				r = run(t, "", args...)
			}
			if r.code != 1 || !strings.Contains(r.stderr, tt.want) || strings.Contains(r.stderr, "panic") {
				t.Fatalf("exit %d, stderr:\n%s\nwant exit 1 and a message containing %q", r.code, r.stderr, tt.want)
			}
			db, err := store.Open(dbPath)
			if err != nil {
				t.Fatalf("the database does not open after the failure: %v", err)
			}
			counts, err := db.Counts("w")
			db.Close()
			if err != nil {
				t.Fatal(err)
			}
			if counts[frontier.Dead] != 0 || counts[frontier.InFlight] != 0 {
				t.Errorf("frontier after the failure %v: a write failure must not kill a URL or leave it in flight", counts)
			}

			// Without the fault the same job finishes.
			os.RemoveAll(filepath.Join(dir, "out"))
			args[4] = filepath.Join(dir, "out")
			if r := run(t, "", args...); r.code != 0 {
				t.Fatalf("run without the fault: exit %d\n%s", r.code, r.stderr)
			}
			db, err = store.Open(dbPath)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if counts, _ := db.Counts("w"); counts[frontier.Done] != 2 {
				t.Errorf("after a run without the fault: %v, want both URLs done", counts)
			}
		})
	}
}

// TestCLIBadInputAtTheEdges feeds the command bad flags, odd seed files and
// database paths it cannot use: each is refused with a clear message and
// its exit code, never a panic; a --db in a folder that does not exist is
// a usage error (a typo must not start over with nothing learned).
func TestCLIBadInputAtTheEdges(t *testing.T) {
	_, srv := serve(t, crawltest.Config{})
	dir := t.TempDir()
	good := writeFile(t, "good.txt", srv.URL+"/ok\n")
	aFile := writeFile(t, "a-file", "not a folder")
	foreign := writeFile(t, "notes.db", "these are my notes, not a database\n")
	garbled := writeFile(t, "garbled.db", "SQLite format 3\x00"+strings.Repeat("\xff", 3000))
	longLine := "https://a.example/" + strings.Repeat("a", 1<<20) + "\n"
	crawl := func(extra ...string) []string { // each case its own database: they run in parallel
		own := t.TempDir()
		args := append([]string{"crawl", "--db", filepath.Join(own, "polite.db"), "--out", filepath.Join(own, "out")}, fast...)
		return append(args, extra...) // after fast, so that they win
	}
	tests := []struct {
		name     string
		args     []string
		want     []int // acceptable exit codes
		inStderr string
	}{
		{"negative timeout", crawl("--timeout", "-1s", good), []int{2}, `"--timeout" flag: must be above 0`},
		{"zero connect timeout", crawl("--connect-timeout", "0", good), []int{2}, `"--connect-timeout" flag: must be above 0`},
		{"negative half-life", crawl("--half-life", "-10m", good), []int{2}, "--half-life"},
		{"negative start", crawl("--start", "-1s", good), []int{2}, "--start"},
		{"negative decrease", crawl("--decrease", "-1s", good), []int{2}, "--decrease"},
		{"zero ceiling", crawl("--ceiling", "0", good), []int{2}, "--ceiling"},
		{"negative max-retry-after", crawl("--max-retry-after", "-1s", good), []int{2}, "--max-retry-after"},
		{"multiplier below 1", crawl("--multiplier", "0.5", good), []int{2}, "--multiplier"},
		{"multiplier NaN", crawl("--multiplier", "NaN", good), []int{2}, "--multiplier"},
		{"multiplier infinite", crawl("--multiplier", "+Inf", good), []int{2}, "--multiplier"},
		{"retry ratio NaN", crawl("--retry-ratio", "NaN", good), []int{2}, "--retry-ratio"},
		{"negative retry ratio", crawl("--retry-ratio", "-1", good), []int{2}, "retry"},
		{"zero concurrency", crawl("--concurrency", "0", good), []int{2}, "--concurrency"},
		{"zero per-host", crawl("--per-host", "0", good), []int{2}, "--per-host"},
		{"zero max-body", crawl("--max-body", "0", good), []int{2}, "--max-body"},
		{"zero max-attempts", crawl("--max-attempts", "0", good), []int{2}, "--max-attempts"},
		{"negative depth", crawl("--depth", "-1", good), []int{2}, "--depth"},
		{"negative refresh", crawl("--refresh", "-1h", good), []int{2}, "--refresh"},
		{"negative budget", crawl("--max-requests", "-1", good), []int{2}, "budgets"},
		{"negative max-duration", crawl("--max-duration", "-1s", good), []int{2}, `"--max-duration" flag: must be between 0s and 8760h`},
		{"negative max-crawl-delay", crawl("--max-crawl-delay", "-1s", good), []int{2}, "--max-crawl-delay"},
		{"negative robots-ttl", crawl("--robots-ttl", "-1s", good), []int{2}, "--robots-ttl"},
		{"duration that is no duration", crawl("--timeout", "soon", good), []int{2}, "--timeout"},
		{"floor-host without a duration", crawl("--floor-host", "example.org", good), []int{2}, "--floor-host"},
		{"floor-host negative", crawl("--floor-host", "example.org=-1s", good), []int{2}, "--floor-host"},
		{"unknown progress", crawl("--progress", "sometimes", good), []int{2}, "--progress"},
		{"unknown log format", append(crawl(good), "--log-format", "xml"), []int{2}, "--log-format"},
		{"bad slow-down pattern", crawl("--slow-down-pattern", "(", good), []int{2}, "--slow-down-pattern"},
		{"unknown purpose", crawl("--purpose", "train-ai,scraping", good), []int{2}, `--purpose: unknown purpose "scraping"`},
		{"empty seed file", crawl(writeFile(t, "empty.txt", "")), []int{2}, "no valid seed"},
		{"binary seed file", crawl(writeFile(t, "bin.txt", "\x00\x01\x02\xff\xfe\n\x89PNG\r\n\x1a\n")), []int{2}, "no valid seed"},
		{"a 1 MB line alone", crawl(writeFile(t, "long.txt", longLine)), []int{2}, "long.txt:1: line longer than"},
		{"a 1 MB line and a good one", crawl(writeFile(t, "longok.txt", longLine+srv.URL+"/fine\n")), []int{0}, "longok.txt:1: line longer than"},
		{"db in a folder that does not exist", []string{"crawl", "--db", filepath.Join(dir, "new", "deeper", "polite.db"), "--out", filepath.Join(dir, "out2"), good, "--progress", "never"}, []int{2}, "deeper does not exist"},
		{"db under a file", []string{"crawl", "--db", filepath.Join(aFile, "polite.db"), good}, []int{1, 2}, aFile},
		{"db is a folder", []string{"crawl", "--db", dir, good}, []int{1, 2}, dir},
		{"db is a text file", []string{"crawl", "--db", foreign, good}, []int{1, 2}, foreign},
		{"db is garbled", []string{"crawl", "--db", garbled, good}, []int{1, 2}, garbled},
		{"status of a garbled db", []string{"status", "--db", garbled}, []int{1, 2}, garbled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // a case that opens a database has its own
			r := run(t, "", tt.args...)
			ok := false
			for _, c := range tt.want {
				ok = ok || r.code == c
			}
			if !ok {
				t.Fatalf("exit %d, want %v\nstderr:\n%s", r.code, tt.want, clipText(r.stderr))
			}
			if !strings.Contains(r.stderr, tt.inStderr) {
				t.Errorf("stderr does not contain %q:\n%s", tt.inStderr, clipText(r.stderr))
			}
			if strings.Contains(r.stderr, "panic") || strings.Contains(r.stderr, "goroutine ") {
				t.Errorf("stderr shows a panic:\n%s", clipText(r.stderr))
			}
		})
	}
}

func clipText(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "…"
	}
	return s
}

// A signal while the seeds still come from an open stdin ends polite at
// once with 130, before any run is recorded, and leaves no copy of stdin
// in the temporary folder.
func TestCLISignalWhileReadingStdin(t *testing.T) {
	dir, tmp := t.TempDir(), t.TempDir()
	db := filepath.Join(dir, "polite.db")
	cmd := exec.Command(polite, "crawl", "--db", db, "--out", filepath.Join(dir, "out"), "-")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errOut output
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	// polite installs its signal handler before it reads anything. More
	// than a pipe holds is written: once the write returns, polite has
	// been reading stdin, and stdin stays open.
	seeds := "http://127.0.0.1:9/never-fetched\n" + strings.Repeat("# more to come\n", 1<<20/15)
	if _, err := io.WriteString(stdin, seeds); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("write the seeds: %v; stderr: %s", err, errOut.String())
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	// At once: stdin is still open, so polite can only end by the signal.
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("exit = %v, want 130; stderr: %s", err, errOut.String())
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "polite-stdin-*")); len(left) > 0 {
		t.Errorf("the copy of stdin is left behind: %v", left)
	}
	r := run(t, "", "runs", "--db", db, "--json")
	if strings.TrimSpace(r.stdout) != "[]" {
		t.Errorf("runs after the interrupted read = %s, want none", r.stdout)
	}
}
