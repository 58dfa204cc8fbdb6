package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polite-crawler/polite/crawl/crawltest"
)

// runAt runs polite in the folder dir.
func runAt(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	return runPolite(t, dir, "", env, args...)
}

// A job is found by the name it was crawled with: `--job seeds.txt` in
// the folder where `polite crawl seeds.txt` ran, or its display name
// elsewhere; an unknown job suggests the close ones and exits 1. The
// display name, not the seed file's path, names the WARC files and goes
// into warcinfo, the manifest and the report: no local path anywhere in
// the decompressed WARC files.
func TestCLIJobFoundByItsName(t *testing.T) {
	_, srv := serve(t, crawltest.Config{})
	project := t.TempDir()
	if err := os.WriteFile(filepath.Join(project, "seeds.txt"), []byte(srv.URL+"/a\n"+srv.URL+"/b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	db, out := filepath.Join(t.TempDir(), "polite.db"), filepath.Join(t.TempDir(), "out")
	env := testEnv(t)
	r := runAt(t, project, env, append([]string{"crawl", "--db", db, "--out", out, "--warc", "seeds.txt"}, fast...)...)
	if r.code != 0 {
		t.Fatalf("crawl: exit %d, stderr %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, `job "seeds.txt"`) {
		t.Errorf("summary names the job otherwise than by its display name:\n%s", r.stdout)
	}

	for _, args := range [][]string{
		{"runs", "--job", "seeds.txt"},
		{"status", "--job", "seeds.txt"},
		{"report", "--job", "seeds.txt"},
		{"runs", "--job", "./seeds.txt"},
	} {
		r := runAt(t, project, env, append(args, "--db", db)...)
		if r.code != 0 || strings.Contains(r.stdout, "no run") {
			t.Errorf("%v in the project folder: exit %d, stdout %q, stderr %q", args, r.code, r.stdout, r.stderr)
		}
	}
	// Elsewhere, seeds.txt is no file: the display name finds it.
	elsewhere := t.TempDir()
	if r := runAt(t, elsewhere, env, "status", "--db", db, "--job", "seeds.txt"); r.code != 0 {
		t.Errorf("status --job seeds.txt elsewhere: exit %d, stderr %q", r.code, r.stderr)
	}
	r = runAt(t, elsewhere, env, "runs", "--db", db, "--job", "seed.txt")
	if r.code != 1 || !strings.Contains(r.stderr, `no job "seed.txt"`) || !strings.Contains(r.stderr, `did you mean "seeds.txt"`) {
		t.Errorf("runs --job seed.txt: exit %d, stderr %q; want exit 1 suggesting seeds.txt", r.code, r.stderr)
	}

	// The manifest's lines name the job and the run.
	b, err := os.ReadFile(filepath.Join(out, "manifest.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m struct {
			Job string `json:"job"`
			Run int64  `json:"run"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil || m.Job != "seeds.txt" || m.Run != 1 {
			t.Errorf("manifest line %s: job %q, run %d (err %v), want seeds.txt, run 1", line, m.Job, m.Run, err)
		}
	}

	files, _ := filepath.Glob(filepath.Join(out, "warc", "*.warc.gz"))
	if len(files) == 0 {
		t.Fatal("no WARC file written")
	}
	for _, f := range files {
		if !strings.HasPrefix(filepath.Base(f), "seeds.txt-1-") {
			t.Errorf("WARC file %s: want it named after the job's display name, seeds.txt-1-...", filepath.Base(f))
		}
		text := []byte(gunzipAll(t, f))
		if !bytes.Contains(text, []byte("isPartOf: seeds.txt")) {
			t.Errorf("%s: warcinfo without isPartOf: seeds.txt", filepath.Base(f))
		}
		for _, local := range []string{project, os.TempDir(), filepath.Dir(out)} {
			if bytes.Contains(text, []byte(local)) {
				t.Errorf("%s holds the local path %s", filepath.Base(f), local)
			}
		}
	}
}

// URL arguments are one job, their sorted set: the same `polite crawl
// URL` twice asks the second time conditionally and gets a 304, and
// --refresh does not skip a URL named on the command line.
func TestCLISameURLArgumentsTwiceIsConditional(t *testing.T) {
	o, srv := serve(t, crawltest.Config{})
	db := filepath.Join(t.TempDir(), "polite.db")
	args := append([]string{"crawl", "--db", db, "--out", filepath.Join(t.TempDir(), "out"), "--refresh", "24h",
		srv.URL + "/b", srv.URL + "/a"}, fast...)
	if r := run(t, "", args...); r.code != 0 {
		t.Fatalf("first crawl: exit %d, stderr %s", r.code, r.stderr)
	}
	o.Reset()
	// The same URLs in another order are the same job.
	args[len(args)-len(fast)-2], args[len(args)-len(fast)-1] = srv.URL+"/a", srv.URL+"/b"
	if r := run(t, "", args...); r.code != 0 {
		t.Fatalf("second crawl: exit %d, stderr %s", r.code, r.stderr)
	}
	st := o.Stats()
	for _, p := range []string{"/a", "/b"} {
		if st.ByPath[p] != 1 {
			t.Errorf("second crawl: %s requested %d times, want once (named on the command line)", p, st.ByPath[p])
		}
	}
	if st.NotModified != 2 || st.Conditional != 2 {
		t.Errorf("second crawl: %d conditional requests, %d answered 304; want 2 and 2", st.Conditional, st.NotModified)
	}
	r := run(t, "", "runs", "--db", db)
	if n := strings.Count(r.stdout, "127.0.0.1+1"); n != 2 {
		t.Errorf("runs: want two runs of one job named 127.0.0.1+1, got %d:\n%s", n, r.stdout)
	}
}

// `polite crawl -` without --job warns that nothing will be resumed.
func TestCLIStdinWithoutJobWarns(t *testing.T) {
	_, srv := serve(t, crawltest.Config{})
	dir := t.TempDir()
	r := run(t, srv.URL+"/a\n", append([]string{"crawl", "-q", "--db", filepath.Join(dir, "polite.db"), "--out", filepath.Join(dir, "out"), "-"}, fast...)...)
	if r.code != 0 || !strings.Contains(r.stderr, "nothing of this run will be resumed") {
		t.Errorf("exit %d, stderr %q: want a warning that nothing will be resumed", r.code, r.stderr)
	}
}

// --db or POLITE_DB in a folder that does not exist is a usage error
// naming the path; the default folder is created; a new database file is
// announced on stderr.
func TestCLIDBTypo(t *testing.T) {
	dir := t.TempDir()
	typo := filepath.Join(dir, "no-such-folder", "polite.db")
	for _, c := range []struct {
		name string
		env  []string
		args []string
	}{
		{"--db", nil, []string{"status", "--db", typo}},
		{"POLITE_DB", []string{"POLITE_DB=" + typo}, []string{"status"}},
	} {
		r := runEnv(t, c.env, c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, typo) || !strings.Contains(r.stderr, "does not exist") {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 naming %s", c.name, r.code, r.stderr, typo)
		}
		if _, err := os.Stat(filepath.Dir(typo)); err == nil {
			t.Fatalf("%s: the folder %s was created", c.name, filepath.Dir(typo))
		}
	}
	fresh := filepath.Join(dir, "fresh.db")
	if r := run(t, "", "-q", "status", "--db", fresh); r.code != 0 || !strings.Contains(r.stderr, "new database") {
		t.Errorf("new file: exit %d, stderr %q; want it announced", r.code, r.stderr)
	}
	if r := run(t, "", "-q", "status", "--db", fresh); strings.Contains(r.stderr, "new database") {
		t.Errorf("second open: stderr %q announces a new database again", r.stderr)
	}
	state := t.TempDir()
	r := runIn(t, "", append(testEnv(t), "XDG_STATE_HOME="+filepath.Join(state, "deeper")), "status")
	if _, err := os.Stat(filepath.Join(state, "deeper", "polite", "polite.db")); r.code != 0 || err != nil {
		t.Errorf("default database: exit %d, stderr %q, %v; want its folder created", r.code, r.stderr, err)
	}
}
