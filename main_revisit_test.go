package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polite-crawler/polite/crawl/crawltest"
)

// TestCLIRevisit is a cron job's nights through the binary: the first run
// says every page is new in its manifest lines and summary; a run within
// --revisit-min (or --refresh, its old name) asks for nothing, counts
// the pages as not due and exits 0; a run of the same URLs named on the
// command line asks for them all the same; a bad --revisit is exit 2.
func TestCLIRevisit(t *testing.T) {
	o, srv := serve(t, crawltest.Config{})
	seedFile := writeFile(t, "seeds.txt", srv.URL+"/doc/1\n"+srv.URL+"/doc/2\n")
	dir := t.TempDir()
	db, out := filepath.Join(dir, "polite.db"), filepath.Join(dir, "out")
	crawl := func(extra ...string) result {
		t.Helper()
		o.Reset()
		args := append([]string{"crawl", "--db", db, "--out", out, "--job", "nightly"}, fast...)
		return run(t, "", append(args, extra...)...)
	}
	pages := func() int { return o.Stats().ByPath["/doc/1"] + o.Stats().ByPath["/doc/2"] }

	r := crawl(seedFile)
	if r.code != 0 || pages() != 2 || !strings.Contains(r.stdout, "changes: 2 new\n") {
		t.Fatalf("first night: exit %d, %d pages asked\nstdout:\n%s\nstderr:\n%s", r.code, pages(), r.stdout, r.stderr)
	}
	if got := manifestChanges(t, filepath.Join(out, "manifest.jsonl")); got[srv.URL+"/doc/1"] != "new" || got[srv.URL+"/doc/2"] != "new" {
		t.Errorf("first night's manifest changes %v, want both new", got)
	}

	for _, flag := range []string{"--revisit-min", "--refresh"} {
		r = crawl(flag, "1h", seedFile)
		if r.code != 0 || pages() != 0 || !strings.Contains(r.stdout, "changes: 2 not due\n") {
			t.Errorf("%s 1h: exit %d, %d pages asked, want 0, 0 and 2 not due\nstdout:\n%s\nstderr:\n%s",
				flag, r.code, pages(), r.stdout, r.stderr)
		}
		if !strings.Contains(r.stderr, "not_due=2") {
			t.Errorf("%s 1h: the pass's log line does not count the URLs not due:\n%s", flag, r.stderr)
		}
	}

	// Named on the command line: asked for, though not due (the same
	// --revisit-min held them back from the seed file's run above).
	r = crawl("--revisit-min", "1h", srv.URL+"/doc/1", srv.URL+"/doc/2")
	if r.code != 0 || pages() != 2 {
		t.Errorf("URLs as arguments: exit %d, %d pages asked, want 0 and 2\nstdout:\n%s\nstderr:\n%s", r.code, pages(), r.stdout, r.stderr)
	}
	if got := manifestChanges(t, filepath.Join(out, "manifest.jsonl")); got[srv.URL+"/doc/1"] != "unchanged" {
		t.Errorf("manifest after the same pages again: changes %v, want unchanged", got)
	}

	for _, bad := range [][]string{{"--revisit", "sometimes"}, {"--revisit-min", "48h", "--revisit-max", "24h"}} {
		if r := crawl(append(bad, seedFile)...); r.code != 2 || !strings.Contains(r.stderr, "--revisit") {
			t.Errorf("%v: exit %d, want 2 naming --revisit\nstderr:\n%s", bad, r.code, r.stderr)
		}
	}
}

// manifestChanges reads each URL's change from a manifest.
func manifestChanges(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l struct{ URL, Change string }
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		got[l.URL] = l.Change
	}
	return got
}

// TestCLIStatusRevisits: polite status --host, through the binary, says
// how many of a host's URLs are due now and within 24 h and the spread
// of their intervals: none due right after a run whose --revisit-min
// gave every page an hour, all of them within 24 h.
func TestCLIStatusRevisits(t *testing.T) {
	_, srv := serve(t, crawltest.Config{})
	seedFile := writeFile(t, "seeds.txt", srv.URL+"/doc/1\n"+srv.URL+"/doc/2\n")
	dir := t.TempDir()
	db := filepath.Join(dir, "polite.db")
	args := append([]string{"crawl", "--db", db, "--out", filepath.Join(dir, "out"), "--revisit-min", "1h"}, fast...)
	if r := run(t, "", append(args, seedFile)...); r.code != 0 {
		t.Fatalf("crawl: exit %d\n%s", r.code, r.stderr)
	}
	host := srv.Listener.Addr().String()
	st := run(t, "", "status", "--db", db, "--host", host)
	want := "revisits       0 of 2 URLs due now, 2 more within 24h; intervals 1h / 1h / 1h (least / median / greatest of 2 learned)\n"
	if st.code != 0 || !strings.Contains(st.stdout, want) {
		t.Errorf("status --host %s: exit %d, want 0 and the line %q:\n%s\n%s", host, st.code, want, st.stdout, st.stderr)
	}
	st = run(t, "", "status", "--db", db, "--host", host, "--json")
	var got struct{ Revisits map[string]float64 }
	if err := json.Unmarshal([]byte(st.stdout), &got); err != nil {
		t.Fatalf("status --host --json: %v\n%s", err, st.stdout)
	}
	r := got.Revisits
	if r["urls"] != 2 || r["due_now"] != 0 || r["due_within_24h"] != 2 || r["learned"] != 2 ||
		r["interval_min_s"] != 3600 || r["interval_median_s"] != 3600 || r["interval_max_s"] != 3600 {
		t.Errorf("status --host --json revisits %v, want 2 URLs due within 24h, each interval an hour", r)
	}
}
