package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/crawltest"
)

// Every usage mistake of every command exits 2, naming what is wrong.
func TestCLIUsageErrorsExit2(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "polite.db")
	a := writeFile(t, "a.txt", "https://a.example/\n")
	b := writeFile(t, "b.txt", "https://b.example/\n")
	tests := []struct {
		name     string
		args     []string
		inStderr string
	}{
		{"no seed argument", []string{"crawl", "--db", db}, "polite crawl needs its seeds"},
		{"an empty $SEEDS", []string{"crawl", "--db", db, ""}, "no such file, and not an http(s) URL"},
		{"two seed files", []string{"crawl", "--db", db, a, b}, "not several sources"},
		{"a file and a URL", []string{"crawl", "--db", db, a, "https://c.example/"}, "not several sources"},
		{"neither file nor URL", []string{"crawl", "--db", db, "example.org"}, "did you mean https://example.org?"},
		{"not http", []string{"crawl", "--db", db, "ftp://files.example.org/x"}, `scheme "ftp"`},
		{"unknown command", []string{"crawll", "--db", db, a}, "did you mean crawl?"},
		{"unknown flag", []string{"crawl", "--db", db, "--max-bodi", "1MB", a}, "did you mean --max-body?"},
		{"size with no sense", []string{"crawl", "--db", db, "--max-body", "ten", a}, `"--max-body" flag`},
		{"size too large", []string{"crawl", "--db", db, "--max-body", "9223372036854775807", a}, "must be between 1B and 1GiB"},
		{"duration too large", []string{"crawl", "--db", db, "--ceiling", "9000h", a}, `"--ceiling" flag: must be above 0 and at most 24h`},
		{"bad enum", []string{"crawl", "--db", db, "--scope", "planet", a}, "must be host, domain or any"},
		{"bad contact", []string{"crawl", "--db", db, "--contact", "me\tyou", a}, "--contact"},
		{"help on nothing", []string{"help", "nope"}, `unknown help topic "nope"`},
		{"status with an argument", []string{"status", "--db", db, "x"}, "polite status"},
		{"runs with an argument", []string{"runs", "--db", db, "x"}, "polite runs"},
		{"report with two arguments", []string{"report", "--db", db, "1", "2"}, "accepts at most 1 arg"},
		{"report of no run number", []string{"report", "--db", db, "first"}, "RUN must be a run number"},
		{"forget with neither hosts nor --all", []string{"forget", "--db", db}, "name the hosts"},
		{"robots without a command", []string{"robots", "nope"}, `unknown command "nope"`},
		{"robots check without URLs", []string{"robots", "check", "--db", db}, "polite robots check"},
		{"version with an argument", []string{"version", "x"}, "polite version"},
		{"completion for an unknown shell", []string{"completion", "tcsh"}, `unknown command "tcsh"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, "", tt.args...)
			if r.code != 2 {
				t.Fatalf("exit %d, want 2\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
			if !strings.Contains(r.stderr, tt.inStderr) {
				t.Errorf("stderr %q does not contain %q", r.stderr, tt.inStderr)
			}
			if r.stdout != "" {
				t.Errorf("a usage error wrote to stdout: %q", r.stdout)
			}
		})
	}
}

// polite crawl URL... fetches the URLs, as a job of its own.
func TestCLIURLArguments(t *testing.T) {
	o, srv := serve(t, crawltest.Config{})
	dir := t.TempDir()
	db := filepath.Join(dir, "polite.db")
	args := append([]string{"crawl", "--db", db, "--out", filepath.Join(dir, "out"), srv.URL + "/one", srv.URL + "/two?x=1"}, fast...)
	r := run(t, "", args...)
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	st := o.Stats()
	if st.ByPath["/one"] != 1 || st.ByPath["/two?x=1"] != 1 {
		t.Errorf("requests by path %v, want /one and /two?x=1 once each", st.ByPath)
	}
	if !strings.Contains(r.stdout, "2 done") {
		t.Errorf("summary does not say 2 done:\n%s", r.stdout)
	}
	var runs []struct {
		Job      string `json:"job"`
		ExitCode int    `json:"exit_code"`
	}
	rr := run(t, "", "runs", "--db", db, "--json")
	if err := json.Unmarshal([]byte(rr.stdout), &runs); err != nil || len(runs) != 1 {
		t.Fatalf("runs --json = %s (%v), want one run", rr.stdout, err)
	}
	if job, want := runs[0].Job, "urls:"+srv.URL+"/one "+srv.URL+"/two?x=1"; job != want {
		t.Errorf("job %q, want %q (the URLs' sorted set)", job, want)
	}
}

// Two projects, each with a seeds.txt, on one database: each run fetches
// its own URLs only, even when the other's were left queued.
func TestCLITwoSeedFilesNamedAlike(t *testing.T) {
	oa, srvA := serve(t, crawltest.Config{})
	ob, srvB := serve(t, crawltest.Config{})
	dir := t.TempDir()
	db := filepath.Join(dir, "polite.db")
	var seedsA, seedsB strings.Builder
	for i := range 4 {
		fmt.Fprintf(&seedsA, "%s/a/%d\n", srvA.URL, i)
		fmt.Fprintf(&seedsB, "%s/b/%d\n", srvB.URL, i)
	}
	for name, text := range map[string]string{"projA": seedsA.String(), "projB": seedsB.String()} {
		if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name, "seeds.txt"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	crawl := func(project string, extra ...string) result {
		args := append([]string{"crawl", "--db", db, "--out", filepath.Join(dir, project, "out")}, fast...)
		args = append(append(args, extra...), filepath.Join(dir, project, "seeds.txt"))
		return run(t, "", args...)
	}
	// Project A's run is cut short: most of its URLs stay queued.
	if r := crawl("projA", "--max-requests", "2"); r.code != 0 {
		t.Fatalf("run A: exit %d\n%s", r.code, r.stderr)
	}
	before := oa.Stats().Requests
	if r := crawl("projB"); r.code != 0 || !strings.Contains(r.stdout, "4 done") {
		t.Fatalf("run B: exit %d, want 0 and 4 done\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if n := oa.Stats().Requests - before; n != 0 {
		t.Errorf("project B's run made %d requests to project A's site", n)
	}
	if n := ob.Stats().Requests; n == 0 {
		t.Errorf("project B's run never reached its own site")
	}
	// A's next run resumes A alone.
	beforeB := ob.Stats().Requests
	if r := crawl("projA"); r.code != 0 {
		t.Fatalf("second run A: exit %d\n%s", r.code, r.stderr)
	}
	if n := ob.Stats().Requests - beforeB; n != 0 {
		t.Errorf("project A's run made %d requests to project B's site", n)
	}
	for i := range 4 {
		if n := oa.Stats().ByPath[fmt.Sprintf("/a/%d", i)]; n != 1 {
			t.Errorf("/a/%d fetched %d times over A's two runs, want once", i, n)
		}
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "projB", "out", "*", "a-*")); len(files) != 0 {
		t.Errorf("project A's bodies in project B's folder: %v", files)
	}
}

// -q is silent when a run ends 0, and still says what went wrong when not.
func TestCLIQuietForCron(t *testing.T) {
	_, srv := serve(t, crawltest.Config{})
	dir := t.TempDir()
	db := filepath.Join(dir, "polite.db")
	var bad strings.Builder
	for i := range 8 {
		fmt.Fprintf(&bad, "not a url %d\n", i)
	}
	good := writeFile(t, "good.txt", srv.URL+"/ok\n")
	// A new database is announced once, -q or not: a typo in --db must
	// not start over unseen.
	if r := run(t, "", "-q", "status", "--db", db); !strings.Contains(r.stderr, "new database") {
		t.Errorf("-q on a new database: stderr %q, want it announced", r.stderr)
	}
	r := run(t, "", append([]string{"crawl", "-q", "--db", db, "--out", filepath.Join(dir, "o1"), good}, fast...)...)
	if r.code != 0 || r.stdout != "" || r.stderr != "" {
		t.Errorf("-q on success: exit %d, stdout %q, stderr %q; want 0 and nothing at all", r.code, r.stdout, r.stderr)
	}

	mixed := writeFile(t, "mixed.txt", srv.URL+"/ok2\n"+bad.String())
	r = run(t, "", append([]string{"crawl", "-q", "--db", db, "--out", filepath.Join(dir, "o2"), mixed}, fast...)...)
	if r.code != 0 || r.stdout != "" {
		t.Errorf("-q with skipped lines: exit %d, stdout %q; want 0 and no summary", r.code, r.stdout)
	}
	if n := strings.Count(r.stderr, "seed line skipped"); n != 5 {
		t.Errorf("%d skipped lines on stderr, want the first 5:\n%s", n, r.stderr)
	}
	if !strings.Contains(r.stderr, "... and 3 more seed lines skipped") {
		t.Errorf("stderr does not say how many more lines were skipped:\n%s", r.stderr)
	}

	dead := writeFile(t, "dead.txt", srv.URL+"/status/404\n")
	r = run(t, "", append([]string{"crawl", "-q", "--db", db, "--out", filepath.Join(dir, "o3"), dead}, fast...)...)
	if r.code != 1 || !strings.Contains(r.stdout, "1 dead") {
		t.Errorf("-q with a dead URL: exit %d, stdout %q; want 1 and the summary", r.code, r.stdout)
	}

	// Without a contact, one warning a run, even with -q.
	cmdArgs := append([]string{"crawl", "-q", "--db", db, "--out", filepath.Join(dir, "o4"), good}, fast...)
	r = runEnv(t, []string{"POLITE_CONTACT="}, cmdArgs...)
	if r.code != 0 || strings.Count(r.stderr, "no contact set") != 1 {
		t.Errorf("no contact: exit %d, stderr %q; want 0 and one warning", r.code, r.stderr)
	}
}

// With --log-format json every line on stderr is a JSON object: the run's
// logs, skipped seed lines, the missing contact, a signal's notice and a
// final error.
func TestCLIJSONLogs(t *testing.T) {
	_, srv := serve(t, crawltest.Config{})
	dir := t.TempDir()
	db := filepath.Join(dir, "polite.db")
	seeds := writeFile(t, "s.txt", srv.URL+"/a\n"+srv.URL+"/b\nftp://x/\n"+srv.URL+"/status/404\n")
	checkJSON := func(what, stderr string) []map[string]any {
		t.Helper()
		var recs []map[string]any
		for i, line := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
			var rec map[string]any
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Errorf("%s: stderr line %d is not JSON: %q", what, i+1, line)
				continue
			}
			recs = append(recs, rec)
		}
		return recs
	}
	has := func(recs []map[string]any, msg string) bool {
		for _, r := range recs {
			if m, _ := r["msg"].(string); strings.Contains(m, msg) {
				return true
			}
		}
		return false
	}

	args := append([]string{"crawl", "-v", "--log-format", "json", "--db", db, "--out", filepath.Join(dir, "out"), seeds}, fast...)
	r := runEnv(t, []string{"POLITE_CONTACT="}, args...)
	if r.code != 1 {
		t.Fatalf("exit %d, want 1 (a dead URL)\n%s", r.code, r.stderr)
	}
	recs := checkJSON("a run", r.stderr)
	for _, msg := range []string{"seed line skipped", "no contact set", "run start", "run end"} {
		if !has(recs, msg) {
			t.Errorf("no %q record on stderr:\n%s", msg, r.stderr)
		}
	}

	r = run(t, "", "crawl", "--log-format", "json", "--db", db, writeFile(t, "bad.txt", "nope\n"))
	if recs := checkJSON("an error", r.stderr); r.code != 2 || !has(recs, "no valid seed") {
		t.Errorf("no valid seed: exit %d, stderr %q; want 2 and a JSON error record", r.code, r.stderr)
	}
}

// SIGHUP and SIGPIPE end a run as SIGTERM does: the run's end is saved,
// with the signal's exit code, and the notice is a log record.
func TestCLIHangupAndPipeSaveTheRunsEnd(t *testing.T) {
	tests := []struct {
		sig  syscall.Signal
		name string
		want int
	}{
		{syscall.SIGHUP, "SIGHUP", 129},
		{syscall.SIGPIPE, "SIGPIPE", 141},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, srv := serve(t, crawltest.Config{})
			var seeds strings.Builder
			fmt.Fprintf(&seeds, "%s/slow/300\n", srv.URL)
			for i := range 5 {
				fmt.Fprintf(&seeds, "%s/later/%d\n", srv.URL, i)
			}
			dir := t.TempDir()
			db := filepath.Join(dir, "polite.db")
			args := append([]string{"crawl", "--log-format", "json", "--db", db, "--out", filepath.Join(dir, "out"),
				"--floor-host", srv.Listener.Addr().String() + "=30ms", writeFile(t, "hup.txt", seeds.String())}, fast...)
			p := start(t, args...)
			until(t, "the slow request", func() bool { return o.Stats().ByPath["/slow/300"] > 0 })
			if err := p.cmd.Process.Signal(tt.sig); err != nil {
				t.Fatal(err)
			}
			if code := p.wait(); code != tt.want {
				t.Fatalf("exit %d, want %d\nstderr:\n%s", code, tt.want, p.stderr.String())
			}
			notice := false
			for _, line := range strings.Split(strings.TrimSpace(p.stderr.String()), "\n") {
				var rec struct {
					Signal string `json:"signal"`
				}
				if err := json.Unmarshal([]byte(line), &rec); err != nil {
					t.Errorf("stderr line is not JSON: %q", line)
				}
				notice = notice || rec.Signal == tt.name
			}
			if !notice {
				t.Errorf("no log record names %s:\n%s", tt.name, p.stderr.String())
			}
			var runs []struct {
				Ended    time.Time `json:"ended"`
				ExitCode int       `json:"exit_code"`
			}
			r := run(t, "", "runs", "--db", db, "--json")
			if err := json.Unmarshal([]byte(r.stdout), &runs); err != nil || len(runs) != 1 {
				t.Fatalf("runs --json = %s (%v), want one run", r.stdout, err)
			}
			if runs[0].Ended.IsZero() || runs[0].ExitCode != tt.want {
				t.Errorf("run %+v, want ended with exit code %d", runs[0], tt.want)
			}
			if text := run(t, "", "runs", "--db", db); !strings.Contains(text.stdout, fmt.Sprint(tt.want)) || strings.Contains(text.stdout, "not ended") {
				t.Errorf("polite runs does not show exit %d:\n%s", tt.want, text.stdout)
			}
		})
	}
}
