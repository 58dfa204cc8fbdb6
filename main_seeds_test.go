package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/crawltest"
	"github.com/polite-crawler/polite/store"
)

// stdin with --strict is checked whole before anything is enqueued or a
// run recorded; its copy in the temporary folder is gone afterwards.
func TestCLIStdinStrictRefusesBeforeAnything(t *testing.T) {
	_, srv := serve(t, crawltest.Config{})
	dir, tmp := t.TempDir(), t.TempDir()
	db := filepath.Join(dir, "polite.db")
	stdin := srv.URL + "/a\n" + srv.URL + "/b\nnot a url\n" + srv.URL + "/c\n"
	r := runIn(t, stdin, testEnv(t, "TMPDIR="+tmp),
		append([]string{"crawl", "--db", db, "--out", filepath.Join(dir, "out"), "--job", "j", "--strict", "-"}, fast...)...)
	if r.code != 2 || !strings.Contains(r.stderr, "stdin:3: ") || !strings.Contains(r.stderr, "(--strict)") {
		t.Fatalf("exit %d, stderr %q; want 2 naming stdin:3 and --strict", r.code, r.stderr)
	}
	if _, err := os.Stat(db); err == nil {
		s, err := store.Open(db)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		counts, _ := s.Counts("j")
		runs, _ := s.Runs(0)
		if len(counts) != 0 || len(runs) != 0 {
			t.Errorf("frontier %v, runs %d after a refused file; want nothing", counts, len(runs))
		}
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("temporary folder holds %d files after the run, want none", len(left))
	}
}

// The same input on stdin for the same --job is not loaded again; another
// input is.
func TestCLIStdinResumeOfAJob(t *testing.T) {
	o, srv := serve(t, crawltest.Config{})
	dir := t.TempDir()
	args := append([]string{"crawl", "--db", filepath.Join(dir, "polite.db"), "--out", filepath.Join(dir, "out"), "--job", "j", "-"}, fast...)
	in := srv.URL + "/a\n" + srv.URL + "/b\n"
	steps := []struct {
		name      string
		stdin     string
		unchanged bool
		fetched   []string
	}{
		{"first", in, false, []string{"/a", "/b"}},
		{"same input", in, true, []string{"/a", "/b"}},
		{"another input", in + srv.URL + "/c\n", false, []string{"/c"}},
	}
	for _, st := range steps {
		o.Reset()
		r := run(t, st.stdin, args...)
		if r.code != 0 {
			t.Fatalf("%s: exit %d, stderr %s", st.name, r.code, r.stderr)
		}
		if got := strings.Contains(r.stderr, "seed file unchanged"); got != st.unchanged {
			t.Errorf("%s: told unchanged = %v, want %v; stderr %s", st.name, got, st.unchanged, r.stderr)
		}
		for _, p := range st.fetched {
			if n := o.Stats().ByPath[p]; n != 1 {
				t.Errorf("%s: %s requested %d times, want once", st.name, p, n)
			}
		}
	}
}

// A seed file with a thousand bad lines: five on stderr, a count of the
// rest, all of them in the report, and the good line crawled.
func TestCLIThousandBadSeedLines(t *testing.T) {
	o, srv := serve(t, crawltest.Config{})
	var b strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&b, "ftp://a.example/%d\n", i)
	}
	b.WriteString(srv.URL + "/ok\n")
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	r := run(t, "", append([]string{"crawl", "--db", filepath.Join(dir, "polite.db"), "--out", out, writeFile(t, "seeds.txt", b.String())}, fast...)...)
	if r.code != 0 || o.Stats().ByPath["/ok"] != 1 {
		t.Fatalf("exit %d, /ok fetched %d times; want 0 and once; stderr %s", r.code, o.Stats().ByPath["/ok"], r.stderr)
	}
	if n := strings.Count(r.stderr, "seed line skipped"); n != 5 || !strings.Contains(r.stderr, "seeds.txt:5: ") {
		t.Errorf("%d skipped lines on stderr, want 5 up to seeds.txt:5", n)
	}
	if want := "... and 995 more seed lines skipped (the report lists them all)"; !strings.Contains(r.stderr, want) {
		t.Errorf("stderr lacks %q: %s", want, r.stderr)
	}
	data, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Rejected []struct{ Line int } `json:"rejected_seeds"`
	}
	if err := json.Unmarshal(data, &rep); err != nil || len(rep.Rejected) != 1000 || rep.Rejected[999].Line != 1000 {
		t.Errorf("report lists %d rejected lines (%v), want 1000 up to line 1000", len(rep.Rejected), err)
	}
}

// The seed file is the truth for seeds: a line removed from it gets no
// request at the next pass, while the other seeds are asked conditionally
// (what is stored for them is kept); and a file replaced by another of
// the same size and modification time (cp -p, rsync -t) is read again.
// Every pass asks for every seed left (--revisit always): this test is
// about reading the file, not about which URLs are due.
func TestCLIRemovedSeedLineIsNotFetched(t *testing.T) {
	o, srv := serve(t, crawltest.Config{})
	dir := t.TempDir()
	file := filepath.Join(dir, "seeds.txt")
	args := append([]string{"crawl", "--revisit", "always", "--db", filepath.Join(dir, "polite.db"),
		"--out", filepath.Join(dir, "out"), file}, fast...)
	when := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	steps := []struct {
		name      string
		seeds     string
		fetched   []string
		untouched []string
	}{
		{"first", "/a\n/b\n/c\n", []string{"/a", "/b", "/c"}, nil},
		{"line removed", "/a\n/c\n", []string{"/a", "/c"}, []string{"/b"}},
		{"same size and time, other content", "/a\n/d\n", []string{"/a", "/d"}, []string{"/b", "/c"}},
	}
	for _, st := range steps {
		var lines string
		for _, l := range strings.SplitAfter(st.seeds, "\n") {
			if l != "" {
				lines += srv.URL + l
			}
		}
		if err := os.WriteFile(file, []byte(lines), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(file, when, when); err != nil {
			t.Fatal(err)
		}
		o.Reset()
		r := run(t, "", args...)
		if r.code != 0 {
			t.Fatalf("%s: exit %d, stderr %s", st.name, r.code, r.stderr)
		}
		for _, p := range st.fetched {
			if n := o.Stats().ByPath[p]; n != 1 {
				t.Errorf("%s: %s requested %d times, want once", st.name, p, n)
			}
		}
		for _, p := range st.untouched {
			if n := o.Stats().ByPath[p]; n != 0 {
				t.Errorf("%s: removed seed %s requested %d times, want 0", st.name, p, n)
			}
		}
	}
}
