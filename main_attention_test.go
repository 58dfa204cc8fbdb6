package main

import (
	"bufio"
	"database/sql"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/crawltest"

	_ "modernc.org/sqlite"
)

// closedPort returns a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// heldOrigin answers every page with 429 and a Retry-After of an hour.
func heldOrigin(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Retry-After", "3600")
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestQuietCronRunNamesHostsThatGaveNothing is the cron operator's night:
// -q, stdout to a file, no terminal. A host that held polite off with a
// Retry-After and a host whose port is closed are both named on stderr
// with why and when they may be tried again; the held host is no failure,
// the closed one is (exit 1).
func TestQuietCronRunNamesHostsThatGaveNothing(t *testing.T) {
	t.Parallel()
	held, down := heldOrigin(t), closedPort(t)
	dir := t.TempDir()
	seeds := writeFile(t, "seeds.txt", held.URL+"/page\nhttp://"+down+"/page\n")
	night := func(global ...string) result {
		args := append(global, "-q", "crawl", "--db", filepath.Join(dir, "p.db"), "--out", filepath.Join(dir, "out"), "--robots-retry", "5ms")
		return run(t, "", append(append(args, fast...), seeds)...)
	}
	r := night()
	if r.code != 1 {
		t.Fatalf("exit %d, want 1 (a host unreachable all run)\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	heldHost := strings.TrimPrefix(held.URL, "http://")
	for _, want := range []string{
		`msg="host gave no page all run" host=` + heldHost + ` why="deferred: Retry-After beyond --max-retry-after" next_try="after 20`,
		`msg="host gave no page all run" host=` + down + ` why="no answer to 3 requests (refused)" next_try="next run"`,
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stdout, "gave no page") || !strings.Contains(r.stdout, "unreachable all run: "+down) {
		t.Errorf("stdout should keep the summary, and only it:\n%s", r.stdout)
	}

	// The same night in JSON: every stderr line is JSON, the notices too.
	r = night("--log-format", "json")
	notices := 0
	for _, line := range strings.Split(strings.TrimSpace(r.stderr), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Errorf("stderr line is not JSON: %q", line)
		}
		if rec["msg"] == "host gave no page all run" {
			notices++
		}
	}
	if notices != 2 {
		t.Errorf("%d JSON notices of hosts that gave nothing, want 2:\n%s", notices, r.stderr)
	}
}

// TestHeldHostAloneIsNoFailure: a host held off by a server's Retry-After
// is named on stderr, but the run ends 0 and -q prints no summary.
func TestHeldHostAloneIsNoFailure(t *testing.T) {
	t.Parallel()
	held := heldOrigin(t)
	dir := t.TempDir()
	r := run(t, "", append([]string{"-q", "crawl", "--db", filepath.Join(dir, "p.db"), "--out", filepath.Join(dir, "out")},
		append(fast, held.URL+"/page")...)...)
	if r.code != 0 || r.stdout != "" {
		t.Fatalf("exit %d, stdout %q; want 0 and nothing", r.code, r.stdout)
	}
	if !strings.Contains(r.stderr, "host gave no page all run") {
		t.Errorf("stderr does not name the held host:\n%s", r.stderr)
	}
}

// TestJSONLogsAreJSONOnly: with --log-format json every stderr line is a
// JSON record, the warning that a dead crawl's lock was taken over too,
// and durations are numbers (ttfb_ms, delay_s), as status --json has them.
func TestJSONLogsAreJSONOnly(t *testing.T) {
	t.Parallel()
	_, srv := serve(t, crawltest.Config{Pages: 3, Links: 2})
	dir := t.TempDir()
	db := filepath.Join(dir, "p.db")
	crawlArgs := append([]string{"--log-format", "json", "-v", "crawl", "--db", db, "--out", filepath.Join(dir, "out")}, fast...)
	if r := run(t, "", append(crawlArgs, srv.URL+"/page/1")...); r.code != 0 {
		t.Fatalf("first crawl: exit %d\n%s", r.code, r.stderr)
	}
	// A crawl of this machine that died holding the lock: a process gone.
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	sqldb, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	_, err = sqldb.Exec(`INSERT INTO lock (id, pid, hostname, job, since, beat_at) VALUES (1, ?, ?, 'x', ?, ?)`,
		gone.Process.Pid, host, time.Now().UnixNano(), time.Now().UnixNano())
	sqldb.Close()
	if err != nil {
		t.Fatal(err)
	}

	r := run(t, "", append(crawlArgs, srv.URL+"/page/1")...)
	if r.code != 0 {
		t.Fatalf("second crawl: exit %d\n%s", r.code, r.stderr)
	}
	var tookOver, fetches int
	for _, line := range strings.Split(strings.TrimSpace(r.stderr), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Errorf("stderr line is not JSON: %q", line)
			continue
		}
		msg, _ := rec["msg"].(string)
		if strings.HasPrefix(msg, "took over the crawl lock") {
			tookOver++
		}
		if msg == "fetch" {
			fetches++
			_, ttfb := rec["ttfb_ms"].(float64)
			_, delay := rec["delay_s"].(float64)
			if !ttfb || !delay {
				t.Errorf("fetch record without numeric ttfb_ms and delay_s: %s", line)
			}
		}
	}
	if tookOver != 1 || fetches == 0 {
		t.Errorf("%d lock takeover records and %d fetch records, want 1 and some:\n%s", tookOver, fetches, r.stderr)
	}
}

// TestCrawlIntoAClosedPipeSavesItsEnd is `polite -v crawl ... 2>&1 | head
// -1`: the reader goes away mid-run. The crawl stops as on SIGPIPE, saves
// its end and report, and exits 141; the writes that keep failing after
// the first are not taken for a second signal.
func TestCrawlIntoAClosedPipeSavesItsEnd(t *testing.T) {
	t.Parallel()
	arrived, release := make(chan struct{}), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			http.NotFound(w, r)
		case "/gate":
			close(arrived)
			<-release
			w.Write([]byte("gate"))
		default:
			w.Write([]byte("page"))
		}
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	db := filepath.Join(dir, "p.db")
	seeds := writeFile(t, "seeds.txt", srv.URL+"/gate\n"+srv.URL+"/a\n"+srv.URL+"/b\n")
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(polite, append(append([]string{"-v", "crawl", "--db", db, "--out", filepath.Join(dir, "out")}, fast...), seeds)...)
	cmd.Env, cmd.Stdout, cmd.Stderr = testEnv(t), pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	if _, err := bufio.NewReader(pr).ReadString('\n'); err != nil {
		t.Fatalf("first line: %v", err)
	}
	<-arrived
	pr.Close() // head has read its line and gone
	close(release)
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 141 {
		t.Fatalf("crawl into a closed pipe: %v, want exit 141", err)
	}
	var runs []struct {
		Ended    time.Time `json:"ended"`
		ExitCode int       `json:"exit_code"`
	}
	r := run(t, "", "runs", "--db", db, "--json")
	if err := json.Unmarshal([]byte(r.stdout), &runs); err != nil || len(runs) != 1 || runs[0].Ended.IsZero() || runs[0].ExitCode != 141 {
		t.Fatalf("runs --json = %s (%v), want one run ended with exit 141", r.stdout, err)
	}
	if r := run(t, "", "report", "--db", db, "--json"); r.code != 0 || !strings.Contains(r.stdout, `"exit_code": 141`) {
		t.Errorf("report of the run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	// Any other command stops quietly when its reader has gone.
	pr, pw, err = os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	pr.Close()
	var errOut strings.Builder
	rep := exec.Command(polite, "report", "--db", db, "--html", "-")
	rep.Env, rep.Stdout, rep.Stderr = testEnv(t), pw, &errOut
	err = rep.Run()
	pw.Close()
	if !errors.As(err, &ee) || ee.ExitCode() != 141 || errOut.Len() > 0 {
		t.Errorf("report --html - into a closed pipe: %v, stderr %q; want exit 141 and nothing said", err, errOut.String())
	}
}
