package main

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"io"
	"io/fs"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polite-crawler/polite/crawl/crawltest"
	"github.com/polite-crawler/polite/crawl/warc/warciotest"
)

// apiToken is the bearer token of the tests' API: no file polite writes
// may hold it, nor the session cookie the API sets for it.
const apiToken = "tok-7f3a9c2e51d04b68"

// headerFile writes a header file with the given mode.
func headerFile(t *testing.T, content string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "api.headers")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
	return p
}

// checkNoSecret fails for each file under the dirs (gzip members read
// decoded) and each text that holds one of secrets.
func checkNoSecret(t *testing.T, secrets []string, texts map[string]string, dirs ...string) (files int) {
	t.Helper()
	for name, s := range texts {
		for _, secret := range secrets {
			if strings.Contains(s, secret) {
				t.Errorf("%s holds the secret %q", name, secret)
			}
		}
	}
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if strings.HasSuffix(path, ".gz") {
				zr, err := gzip.NewReader(bytes.NewReader(data))
				if err != nil {
					t.Fatalf("%s: %v", path, err)
				}
				if data, err = io.ReadAll(zr); err != nil {
					t.Fatalf("%s: %v", path, err)
				}
			}
			files++
			for _, secret := range secrets {
				if bytes.Contains(data, []byte(secret)) {
					t.Errorf("%s holds the secret %q", path, secret)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// A nightly API harvest through the binary: one seed, the default depth,
// every page fetched by following Link rel="next"; the JSON bodies kept
// as .json and not read for links; the token sent to the API's origin
// only (not to another port's host under --scope any, whether a Link or a
// redirect leads there); the token and the session cookie set in answer
// to it in none of stdout, stderr (-v), the output folder (the WARC
// files decoded, whose request records keep the header's name) and the
// database.
func TestCLIAPIHarvest(t *testing.T) {
	other := &crawltest.Recorder{}
	otherSrv := httptest.NewServer(other)
	t.Cleanup(otherSrv.Close)
	api := &crawltest.API{Pages: 5, Token: apiToken, Last: otherSrv.URL + "/after-last", Moved: otherSrv.URL + "/moved-here"}
	apiSrv := httptest.NewServer(api)
	t.Cleanup(apiSrv.Close)
	hf := headerFile(t, "# the API's token\nAuthorization: Bearer "+apiToken+"\n", 0o600)
	dir := t.TempDir()
	db, out := filepath.Join(dir, "polite.db"), filepath.Join(dir, "out")

	r := run(t, "", append([]string{"crawl", "-v", "--db", db, "--out", out, "--warc", "--scope", "any", "--allow-private", "--job", "api",
		"--header", "Accept: application/json", "--header-file", hf, apiSrv.URL + "/items", apiSrv.URL + "/moved"}, fast...)...)
	if r.code != 0 {
		t.Fatalf("crawl exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	pages := map[string]int{}
	for _, q := range api.Requests() {
		if q.Path == "/robots.txt" {
			continue
		}
		pages[q.Path]++
		if got := q.Header.Get("Authorization"); got != "Bearer "+apiToken {
			t.Errorf("API request %s: Authorization %q, want the token", q.Path, got)
		}
	}
	want := []string{"/items", "/items?page=2", "/items?page=3", "/items?page=4", "/items?page=5", "/moved"}
	for _, p := range want {
		if pages[p] != 1 {
			t.Errorf("API: %s requested %d times, want once (requests: %v)", p, pages[p], pages)
		}
	}
	if len(pages) != len(want) {
		t.Errorf("API requests %v, want %v (a JSON body is not read for links)", pages, want)
	}
	got := map[string]bool{}
	for _, q := range other.Requests() {
		got[q.Path] = true
		for _, h := range []string{"Authorization", "Accept", "Cookie"} {
			if v := q.Header.Get(h); v != "" {
				t.Errorf("the other port's host got %s: %q with %s", h, v, q.Path)
			}
		}
	}
	if !got["/after-last"] || !got["/moved-here"] {
		t.Errorf("the other host got %v; want the last page's next link and the redirect's target", got)
	}
	jsons, _ := filepath.Glob(filepath.Join(out, "*", "*.json"))
	if len(jsons) < 5 {
		all, _ := filepath.Glob(filepath.Join(out, "*", "*"))
		t.Errorf("%d bodies saved as .json, want the 5 pages at least: %v", len(jsons), all)
	}

	secrets := []string{apiToken, crawltest.Session(apiToken)}
	n := checkNoSecret(t, secrets, map[string]string{"stdout": r.stdout, "stderr (-v)": r.stderr}, dir)
	if n < 10 {
		t.Errorf("only %d files read for the secret", n)
	}
	warcs, _ := filepath.Glob(filepath.Join(out, "warc", "*.warc.gz"))
	if len(warcs) == 0 {
		t.Fatal("no WARC file")
	}
	c := warciotest.Run(t, warcs...)
	redacted, info := 0, false
	for _, rec := range c.Records {
		switch rec.Type {
		case "request":
			head, err := base64.StdEncoding.DecodeString(rec.Head)
			if err != nil {
				t.Fatalf("request record %s: head %q: %v", rec.URI, rec.Head, err)
			}
			switch {
			case strings.HasPrefix(rec.URI, apiSrv.URL) && strings.Contains(string(head), "\r\nAuthorization: [redacted]\r\n"):
				redacted++
			case strings.HasPrefix(rec.URI, apiSrv.URL) || strings.Contains(string(head), "Authorization"):
				t.Errorf("request record %s: %q; want Authorization: [redacted] to the API alone", rec.URI, head)
			}
		case "warcinfo":
			info = info || strings.Contains(rec.Fields, "Authorization") && strings.Contains(rec.Fields, "[redacted]")
		}
	}
	if redacted != 7 || !info {
		t.Errorf("WARC: %d request records with Authorization: [redacted], want 7 (robots.txt, 5 pages, /moved); warcinfo notes it: %v", redacted, info)
	}
}

// A header file that grants anything to group or others is refused with
// exit 2, naming the file; a header flag naming a header polite sets
// itself is a usage error too.
func TestCLIHeaderFileRefused(t *testing.T) {
	hf := headerFile(t, "Authorization: Bearer "+apiToken+"\n", 0o644)
	r := run(t, "", "crawl", "--db", filepath.Join(t.TempDir(), "polite.db"), "--header-file", hf, "http://127.0.0.1:9/")
	if r.code != 2 || !strings.Contains(r.stderr, hf) || !strings.Contains(r.stderr, "group or others") {
		t.Errorf("header file of mode 644: exit %d, stderr:\n%s\nwant 2, naming the file and its mode", r.code, r.stderr)
	}
	bad := headerFile(t, "Accept: application/json\nno colon here\n", 0o600)
	r = run(t, "", "crawl", "--db", filepath.Join(t.TempDir(), "polite.db"), "--header-file", bad, "http://127.0.0.1:9/")
	if r.code != 2 || !strings.Contains(r.stderr, bad+":2") {
		t.Errorf("a header file's bad line: exit %d, stderr:\n%s\nwant 2, naming FILE:2", r.code, r.stderr)
	}
	checkNoSecret(t, []string{apiToken}, map[string]string{"stderr": r.stderr})
	r = run(t, "", "crawl", "--db", filepath.Join(t.TempDir(), "polite.db"), "--header", "User-Agent: x", "http://127.0.0.1:9/")
	if r.code != 2 || !strings.Contains(r.stderr, "--user-agent") {
		t.Errorf("--header User-Agent: exit %d, stderr:\n%s\nwant 2, pointing to --user-agent", r.code, r.stderr)
	}
}

// A host that answers 401 to everything is stopped after 5 requests in
// a row: exit 1, named on stderr as an authentication failure, stopped
// "auth" in report.json, its other URLs left waiting for the next run.
func TestCLIRefusedCredentialsStopTheHost(t *testing.T) {
	api := &crawltest.API{Pages: 8} // no token: 401 to every request
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	hf := headerFile(t, "Authorization: Bearer expired-"+apiToken+"\n", 0o600)
	var seeds strings.Builder
	seeds.WriteString(srv.URL + "/items\n")
	for p := 2; p <= 8; p++ {
		seeds.WriteString(srv.URL + "/items?page=" + string(rune('0'+p)) + "\n")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	r := run(t, "", append([]string{"crawl", "-q", "--db", filepath.Join(dir, "polite.db"), "--out", out, "--header-file", hf,
		writeFile(t, "seeds.txt", seeds.String())}, fast...)...)
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	asked := 0
	for _, q := range api.Requests() {
		if q.Path != "/robots.txt" {
			asked++
		}
	}
	if asked != 5 {
		t.Errorf("%d requests to the refusing host, want 5", asked)
	}
	host := strings.TrimPrefix(srv.URL, "http://")
	if !strings.Contains(r.stderr, "authentication failed") || !strings.Contains(r.stderr, host) {
		t.Errorf("stderr does not name %s and the authentication failure:\n%s", host, r.stderr)
	}
	var rep struct {
		Totals struct {
			Waiting int `json:"waiting"`
			Dead    int `json:"dead"`
		} `json:"totals"`
		Hosts []struct {
			Host    string `json:"host"`
			Stopped string `json:"stopped"`
		} `json:"hosts"`
	}
	readJSON(t, filepath.Join(out, "report.json"), &rep)
	if len(rep.Hosts) != 1 || rep.Hosts[0].Stopped != "auth" || rep.Totals.Waiting != 8 || rep.Totals.Dead != 0 {
		t.Errorf("report.json hosts %+v, totals %+v; want the host stopped auth and its 8 URLs waiting, none dead", rep.Hosts, rep.Totals)
	}
	checkNoSecret(t, []string{apiToken}, map[string]string{"stdout": r.stdout, "stderr": r.stderr}, dir)
}

// A harvest of one URL whose token has gone stale: the 401 is not the
// URL's fault (it waits for the next run, not dead), and the run says so
// on stderr with exit 1 although the host got fewer than 5 requests.
func TestCLIStaleTokenOnOneURL(t *testing.T) {
	api := &crawltest.API{Pages: 1, Token: apiToken}
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	r := runEnv(t, []string{"POLITE_HEADERS=Authorization: Bearer stale-token"}, append([]string{"crawl", "-q", "--db", filepath.Join(dir, "polite.db"),
		"--out", out, "--header", "Accept: application/json", srv.URL + "/items"}, fast...)...)
	if r.code != 1 || !strings.Contains(r.stderr, "authentication failed") || strings.Contains(r.stderr+r.stdout, "stale-token") {
		t.Fatalf("exit %d, want 1 naming the authentication failure, without the token\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	var rep struct {
		Totals struct {
			Waiting int `json:"waiting"`
			Dead    int `json:"dead"`
		} `json:"totals"`
	}
	readJSON(t, filepath.Join(out, "report.json"), &rep)
	if rep.Totals.Waiting != 1 || rep.Totals.Dead != 0 {
		t.Errorf("totals %+v; want the URL waiting for the next run, not dead", rep.Totals)
	}
	checkNoSecret(t, []string{"stale-token"}, nil, dir)
}
