package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/polite-crawler/polite/crawl/crawltest"
)

// typedOrigin answers each path with a body of the Content-Type the path
// names, and counts its requests; robots.txt is 404.
type typedOrigin struct{ requests atomic.Int64 }

func (o *typedOrigin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/robots.txt" {
		http.NotFound(w, r)
		return
	}
	o.requests.Add(1)
	types := map[string]string{
		"/report.pdf": "application/octet-stream", // the URL names it
		"/data.json":  "text/plain",
		"/":           "text/html; charset=utf-8",
		"/api/items":  "application/json",
		"/download":   "application/pdf",
	}
	ct, ok := types[r.URL.Path]
	if !ok {
		ct = "text/html"
	}
	w.Header().Set("Content-Type", ct)
	fmt.Fprintf(w, "body of %s", r.URL.Path)
}

// manifestLine is a line of manifest.jsonl as a reader of the archive
// uses it.
type manifestLine struct {
	URL         string  `json:"url"`
	File        string  `json:"file"`
	SHA256      string  `json:"sha256"`
	Bytes       int64   `json:"bytes"`
	Status      int     `json:"status"`
	ContentType string  `json:"content_type"`
	FetchedAt   string  `json:"fetched_at"`
	LatencyMS   float64 `json:"latency_ms"`
}

// checkManifest checks that manifest.jsonl lists every body under out,
// once, with its hash and size, and returns the lines by URL.
func checkManifest(t *testing.T, when, out string) map[string]manifestLine {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(out, "manifest.jsonl"))
	if err != nil {
		t.Fatalf("%s: %v", when, err)
	}
	byURL, byFile := map[string]manifestLine{}, map[string]bool{}
	for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if line == "" {
			continue
		}
		var m manifestLine
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%s: manifest line %d: %v: %q", when, i+1, err, line)
		}
		if _, dup := byURL[m.URL]; dup {
			t.Errorf("%s: %s twice in the manifest", when, m.URL)
		}
		if m.File == "" || m.SHA256 == "" || m.Status != 200 || m.ContentType == "" || m.FetchedAt == "" {
			t.Errorf("%s: manifest line %d lacks a field: %q", when, i+1, line)
		}
		byURL[m.URL], byFile[m.File] = m, true
	}
	for rel := range bodiesOnDisk(t, out) {
		rel = filepath.ToSlash(rel)
		if !byFile[rel] {
			t.Errorf("%s: body %s is in the folder but not in the manifest", when, rel)
		}
	}
	for _, m := range byURL {
		b, err := os.ReadFile(filepath.Join(out, m.File))
		sum := sha256.Sum256(b)
		if err != nil || hex.EncodeToString(sum[:]) != m.SHA256 || int64(len(b)) != m.Bytes {
			t.Errorf("%s: %s: file %s does not match its line (%v)", when, m.URL, m.File, err)
		}
	}
	return byURL
}

// checkManifestWhole checks that every line of manifest.jsonl is a whole
// JSON line, as a kill at any moment must leave it, and that each body it
// lists is on disk.
func checkManifestWhole(t *testing.T, when, out string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(out, "manifest.jsonl"))
	if err != nil {
		t.Fatalf("%s: %v", when, err)
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		t.Errorf("%s: manifest.jsonl ends in a half line", when)
	}
	for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		var m manifestLine
		if line == "" {
			continue
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Errorf("%s: manifest line %d is not whole: %v", when, i+1, err)
		} else if _, err := os.Stat(filepath.Join(out, m.File)); err != nil {
			t.Errorf("%s: manifest lists %s, not on disk: %v", when, m.File, err)
		}
	}
}

// The output folder is an archive: after a cut-short run, its resumption
// and a run that fetches nothing, manifest.jsonl lists every body, each
// run's reports are kept under runs/RUN, and polite report RUN shows that
// run's own. Each run says whether it starts a new pass or resumes one.
// Bodies are named HOST/NAME-HASH.EXT after their URL or Content-Type.
func TestCLIOutIsAnArchive(t *testing.T) {
	origin := &typedOrigin{}
	srv := httptest.NewServer(origin)
	t.Cleanup(srv.Close)
	host := srv.Listener.Addr().String()
	paths := []string{"/", "/report.pdf", "/data.json", "/api/items", "/download", "/p/1", "/p/2", "/p/3", "/p/4", "/p/5"}
	var seeds strings.Builder
	for _, p := range paths {
		fmt.Fprintf(&seeds, "%s%s\n", srv.URL, p)
	}
	seedFile := writeFile(t, "seeds.txt", seeds.String())
	dir := t.TempDir()
	db, out := filepath.Join(dir, "polite.db"), filepath.Join(dir, "out")
	crawl := func(extra ...string) result {
		t.Helper()
		args := append(append([]string{"crawl", "--db", db, "--out", out}, fast...), extra...)
		r := run(t, "", append(args, seedFile)...)
		if r.code != 0 {
			t.Fatalf("crawl %v: exit %d\n%s\n%s", extra, r.code, r.stdout, r.stderr)
		}
		return r
	}
	passLine := regexp.MustCompile(`msg="(starting a new pass|resuming a cut-short pass)".*`)
	pass := func(when, stderr, want string) string {
		t.Helper()
		m := passLine.FindAllStringSubmatch(stderr, -1)
		if len(m) != 1 || m[0][1] != want {
			t.Fatalf("%s: pass lines %q, want one %q\n%s", when, m, want, stderr)
		}
		return m[0][0]
	}

	r := crawl("--max-requests", "4")
	pass("cut-short run", r.stderr, "starting a new pass")
	if got := len(checkManifest(t, "after the cut-short run", out)); got == 0 || got >= len(paths) {
		t.Fatalf("the cut-short run fetched %d URLs, want some, not all", got)
	}

	r = crawl()
	line := pass("resumed run", r.stderr, "resuming a cut-short pass")
	if !strings.Contains(line, " from_run=1") || !regexp.MustCompile(` queued=[1-9]`).MatchString(line) {
		t.Errorf("resume line %q does not say how many URLs are queued from run 1", line)
	}
	if got := len(checkManifest(t, "after the resumed run", out)); got != len(paths) {
		t.Errorf("after the resumed run the manifest lists %d URLs, want %d", got, len(paths))
	}

	before := origin.requests.Load()
	r = crawl("--refresh", "1h")
	pass("run that fetches nothing", r.stderr, "starting a new pass")
	if n := origin.requests.Load() - before; n != 0 {
		t.Fatalf("the third run fetched %d URLs, want none", n)
	}
	lines := checkManifest(t, "after a run that fetched nothing", out)
	if len(lines) != len(paths) {
		t.Errorf("after a run that fetched nothing the manifest lists %d URLs, want %d", len(lines), len(paths))
	}

	t.Run("names", func(t *testing.T) {
		for _, tc := range []struct{ path, want string }{
			{"/report.pdf", `report-[0-9a-f]{12}\.pdf`},
			{"/download", `download-[0-9a-f]{12}\.pdf`},
			{"/data.json", `data-[0-9a-f]{12}\.json`},
			{"/api/items", `api_items-[0-9a-f]{12}\.json`},
			{"/", `index-[0-9a-f]{12}\.html`},
		} {
			want := regexp.MustCompile("^" + regexp.QuoteMeta(host) + "/" + tc.want + "$")
			if f := lines[srv.URL+tc.path].File; !want.MatchString(f) {
				t.Errorf("%s is stored as %q, want %s", tc.path, f, want)
			}
		}
	})

	t.Run("reports per run", func(t *testing.T) {
		for id := 1; id <= 3; id++ {
			var rep struct {
				RunID  int64  `json:"run_id"`
				RunDir string `json:"run_dir"`
			}
			dir := runFolder(t, out, id)
			readJSON(t, filepath.Join(dir, "report.json"), &rep)
			if rep.RunID != int64(id) || rep.RunDir != dir {
				t.Errorf("%s/report.json is run %d in %s", dir, rep.RunID, rep.RunDir)
			}
			if _, err := os.Stat(filepath.Join(dir, "report.html")); err != nil {
				t.Errorf("run %d's report.html: %v", id, err)
			}
		}
		var top struct {
			RunID int64 `json:"run_id"`
		}
		readJSON(t, filepath.Join(out, "report.json"), &top)
		if top.RunID != 3 {
			t.Errorf("report.json at the top is run %d, want the latest, 3", top.RunID)
		}
		r := run(t, "", "report", "--db", db, "1")
		if r.code != 0 || !strings.Contains(r.stdout, "run 1:") || !strings.Contains(r.stdout, runFolder(t, out, 1)) {
			t.Errorf("polite report 1: exit %d\n%s\nwant run 1 and its folder %s", r.code, r.stdout, runFolder(t, out, 1))
		}
		page := filepath.Join(dir, "two.html")
		if r := run(t, "", "report", "--db", db, "2", "--html", page); r.code != 0 {
			t.Fatalf("polite report 2 --html: exit %d\n%s", r.code, r.stderr)
		}
		own, err := os.ReadFile(filepath.Join(runFolder(t, out, 2), "report.html"))
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(page); string(got) != string(own) {
			t.Errorf("polite report 2 --html wrote another page than run 2's own report.html")
		}
		// The run stores its report compact and writes report.json
		// indented as it goes: polite report --json reads the same.
		ownJSON, err := os.ReadFile(filepath.Join(runFolder(t, out, 2), "report.json"))
		if err != nil {
			t.Fatal(err)
		}
		if r := run(t, "", "report", "--db", db, "2", "--json"); r.code != 0 || r.stdout != string(ownJSON) {
			t.Errorf("polite report 2 --json: exit %d, %d bytes, want run 2's own report.json (%d bytes)\n%s", r.code, len(r.stdout), len(ownJSON), r.stdout)
		}
	})

	// Another database writing to the same folder numbers its runs from 1
	// too; its run 1 gets a folder of its own, and the first database's
	// run 1 keeps its reports.
	t.Run("another database", func(t *testing.T) {
		first := runFolder(t, out, 1)
		kept, err := os.ReadFile(filepath.Join(first, "report.json"))
		if err != nil {
			t.Fatal(err)
		}
		other := filepath.Join(dir, "other.db")
		if r := run(t, "", append(append([]string{"crawl", "--db", other, "--out", out}, fast...), seedFile)...); r.code != 0 {
			t.Fatalf("crawl into the same folder from another database: exit %d\n%s", r.code, r.stderr)
		}
		ones, _ := filepath.Glob(filepath.Join(out, "runs", "*-1"))
		if len(ones) != 2 {
			t.Fatalf("run folders of number 1: %v, want one for each database", ones)
		}
		if again, _ := os.ReadFile(filepath.Join(first, "report.json")); string(again) != string(kept) {
			t.Errorf("the other database's run 1 changed %s/report.json", first)
		}
		var rep struct {
			RunID  int64  `json:"run_id"`
			RunDir string `json:"run_dir"`
		}
		readJSON(t, filepath.Join(out, "report.json"), &rep)
		if rep.RunID != 1 || rep.RunDir == first || !slices.Contains(ones, rep.RunDir) {
			t.Errorf("the other database's report: run %d in %s; want run 1 in the other of %v", rep.RunID, rep.RunDir, ones)
		}
	})
}

// runFolder is run id's own folder under out: runs/STORE-RUN, STORE the
// database's identity (8 hex digits); the test fails unless there is
// exactly one.
func runFolder(t *testing.T, out string, id int) string {
	t.Helper()
	ms, _ := filepath.Glob(filepath.Join(out, "runs", fmt.Sprintf("*-%d", id)))
	if len(ms) != 1 || !regexp.MustCompile(fmt.Sprintf(`^[0-9a-f]{8}-%d$`, id)).MatchString(filepath.Base(ms[0])) {
		t.Fatalf("run %d's folders under %s/runs: %v, want one named IDENTITY-%d", id, out, ms, id)
	}
	return ms[0]
}

func TestCLIRefusedHostIsNamed(t *testing.T) {
	_, srv := serve(t, crawltest.Config{})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := l.Addr().String()
	l.Close() // nothing listens there now: every connection is refused
	dir := t.TempDir()
	db, out := filepath.Join(dir, "polite.db"), filepath.Join(dir, "out")
	seeds := writeFile(t, "s.txt", srv.URL+"/ok\nhttp://"+refused+"/gone\n")
	r := run(t, "", append(append([]string{"crawl", "--db", db, "--out", out}, fast...), "--max-duration", "400ms", seeds)...)
	if r.code != 1 {
		t.Fatalf("exit %d, want 1 (a host unreachable all run)\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if want := "unreachable all run: " + refused + " (no answer to"; !strings.Contains(r.stdout, want) || !strings.Contains(r.stdout, "refused") {
		t.Errorf("summary does not name the refused host and why (%q):\n%s", want, r.stdout)
	}
	var rep struct {
		ExitCode int    `json:"exit_code"`
		Stop     string `json:"stop"`
		Hosts    []struct {
			Host          string `json:"host"`
			Stopped       string `json:"stopped"`
			StoppedReason string `json:"stopped_reason"`
			LastError     string `json:"last_error"`
		} `json:"hosts"`
	}
	readJSON(t, filepath.Join(out, "report.json"), &rep)
	want := map[string]string{srv.Listener.Addr().String(): "done", refused: "unreachable"}
	for _, h := range rep.Hosts {
		if h.Stopped != want[h.Host] {
			t.Errorf("report.json: host %s stopped %q, want %q", h.Host, h.Stopped, want[h.Host])
		}
		if h.Host == refused && (h.LastError != "refused" || h.StoppedReason == "") {
			t.Errorf("report.json: refused host: last_error %q, stopped_reason %q", h.LastError, h.StoppedReason)
		}
	}
	if len(rep.Hosts) != 2 || rep.ExitCode != 1 {
		t.Errorf("report.json: %d hosts, exit %d; want 2 hosts, exit 1", len(rep.Hosts), rep.ExitCode)
	}
	page, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "never answered") || strings.Contains(string(page), "every URL fetched") {
		t.Errorf("report.html does not mark the host that never answered, or claims every URL fetched")
	}
	var runs []struct {
		ID          int64    `json:"id"`
		State       string   `json:"state"`
		ExitCode    int      `json:"exit_code"`
		Unreachable []string `json:"unreachable"`
		Totals      struct {
			Done    int `json:"done"`
			Waiting int `json:"waiting"`
		} `json:"totals"`
	}
	rr := run(t, "", "runs", "--db", db, "--json")
	if err := json.Unmarshal([]byte(rr.stdout), &runs); err != nil {
		t.Fatalf("runs --json: %v\n%s", err, rr.stdout)
	}
	if len(runs) != 1 || runs[0].State != "ended" || runs[0].ExitCode != 1 || runs[0].Totals.Done != 1 ||
		runs[0].Totals.Waiting != 1 || len(runs[0].Unreachable) != 1 || runs[0].Unreachable[0] != refused {
		t.Errorf("runs --json = %+v, want one ended run, exit 1, 1 done, 1 waiting, %s unreachable", runs, refused)
	}
}
