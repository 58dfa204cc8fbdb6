package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"polite/crawl/crawltest"
	"polite/store"
)

// polite is the binary under test, built once by TestMain.
var polite string

func TestMain(m *testing.M) {
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
	cmd := exec.Command(polite, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.Env = append(os.Environ(), "POLITE_DB=", "XDG_STATE_HOME="+t.TempDir())
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

func serve(t *testing.T, cfg crawltest.Config) (*crawltest.Origin, *httptest.Server) {
	t.Helper()
	o, srv := crawltest.Serve(cfg)
	t.Cleanup(srv.Close)
	return o, srv
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
		if h.StoredStartS <= 0.005 || h.DelayStartS <= 0.005 || h.DelayStartS > h.StoredStartS {
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
	holder := store.Holder{PID: os.Getpid(), Hostname: mustHostname(t), Job: "other", Since: time.Now()}
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
