package main

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/polite-crawler/polite/crawl/crawltest"
	"github.com/polite-crawler/polite/crawl/warc/warciotest"
)

// cdxjURLs reads the CDXJ indexes polite wrote beside its WARC files and
// returns, per file name, the URL of every capture it lists.
func cdxjURLs(t *testing.T, dir string) map[string][]string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.cdxj"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
			// SURT TIMESTAMP {json}
			fields := strings.SplitN(line, " ", 3)
			var j struct {
				URL  string `json:"url"`
				File string `json:"filename"`
			}
			if len(fields) != 3 || json.Unmarshal([]byte(fields[2]), &j) != nil || j.URL == "" {
				t.Fatalf("%s:%d: not a CDXJ line: %q", filepath.Base(p), i+1, line)
			}
			got[j.File] = append(got[j.File], j.URL)
		}
	}
	return got
}

// polite crawl --warc, through the binary: small --warc-size rotates the
// files; warcio.js reads every record of every file with its digests;
// each manifest line has its response record with the same payload; each
// file opens with a warcinfo naming polite, the User-Agent and the job;
// the CDXJ index beside each file lists its captures as warcio's own
// cdx-index does. A second run (conditional) writes a revisit per page.
func TestCLIWarc(t *testing.T) {
	if os.Getenv("POLITE_WARCIO_DIR") == "" {
		t.Skip("POLITE_WARCIO_DIR is not set: install warcio.js with `npm install --prefix DIR warcio@2.4` and set it to DIR (.ci/run does)")
	}
	const pages = 12
	o, srv := serve(t, crawltest.Config{Pages: pages, Links: 3, Robots: "User-agent: *\nAllow: /\n"})
	dir := t.TempDir()
	db, out := filepath.Join(dir, "polite.db"), filepath.Join(dir, "out")
	args := append([]string{"crawl", "--db", db, "--out", out, "--job", "archive", "--warc", "--warc-size", "4KB",
		"--user-agent", "polite-test/1 (+mailto:tests@example.org)", "--depth", "20", srv.URL + "/page/0"}, fast...)

	r := run(t, "", args...)
	if r.code != 0 {
		t.Fatalf("crawl --warc exit %d\n%s", r.code, r.stderr)
	}
	manifest := checkManifest(t, "first run", out)
	if len(manifest) != pages {
		t.Fatalf("first run: %d pages in the manifest, want %d", len(manifest), pages)
	}
	warcDir := filepath.Join(out, "warc")
	files, err := filepath.Glob(filepath.Join(warcDir, "*.warc.gz"))
	if err != nil || len(files) < 2 {
		t.Fatalf("WARC files at --warc-size 4KB: %v, %v; want several", files, err)
	}
	slices.Sort(files)
	// JOB-RUN-TIMESTAMP-SERIAL-WORKER.warc.gz, the worker HOST~PID: two
	// workers writing one job into one folder never take the same name.
	host, _ := os.Hostname()
	host = regexp.MustCompile(`[^A-Za-z0-9._-]+`).ReplaceAllString(host, "_")
	host = host[:min(len(host), 60)]
	name := regexp.MustCompile(`^archive-1-\d{8}T\d{6}Z-\d{5}-` + regexp.QuoteMeta(host) + `~\d+\.warc\.gz$`)
	for _, f := range files {
		if !name.MatchString(filepath.Base(f)) {
			t.Errorf("WARC file %s, want %s", filepath.Base(f), name)
		}
	}
	c := warciotest.Check(t, files...)
	if c.Counts["warcinfo"] != len(files) || c.Counts["request"] != pages+1 || c.Counts["response"] != pages+1 {
		t.Errorf("records %v in %d files; want a warcinfo per file and %d requests and responses (robots.txt and %d pages)",
			c.Counts, len(files), pages+1, pages)
	}
	responses := map[string]string{} // URL -> payload digest
	for _, rec := range c.Records {
		switch rec.Type {
		case "warcinfo":
			for _, want := range []string{"software: polite", "polite-test/1", "archive", "robots: obey"} {
				if !strings.Contains(rec.Fields, want) {
					t.Errorf("%s: warcinfo lacks %q:\n%s", rec.File, want, rec.Fields)
				}
			}
			// An allow-list: no path (the database's, the output
			// folder's).
			for _, never := range []string{dir, "polite.db"} {
				if strings.Contains(rec.Fields, never) {
					t.Errorf("%s: warcinfo names %q:\n%s", rec.File, never, rec.Fields)
				}
			}
		case "response":
			if rec.Status == nil || *rec.Status != 200 {
				t.Errorf("%s: status %v, want 200", rec.URI, rec.Status)
			}
			responses[rec.URI] = rec.PayloadDigest
		}
	}
	for u, m := range manifest {
		want := "sha256:" + m.SHA256
		if got, ok := responses[u]; !ok || got != want {
			t.Errorf("%s: response record payload digest %q (found %v), want the manifest's %s", u, got, ok, want)
		}
	}
	ours := cdxjURLs(t, warcDir)
	theirs := map[string][]string{}
	for _, line := range c.CDX {
		fields := strings.SplitN(line, " ", 3)
		var j struct {
			URL  string `json:"url"`
			File string `json:"filename"`
		}
		if len(fields) == 3 && json.Unmarshal([]byte(fields[2]), &j) == nil {
			theirs[j.File] = append(theirs[j.File], j.URL)
		}
	}
	for f := range theirs {
		slices.Sort(theirs[f])
		slices.Sort(ours[f])
		if !slices.Equal(ours[f], theirs[f]) {
			t.Errorf("%s: polite's CDXJ lists %v, warcio's cdx-index %v", f, ours[f], theirs[f])
		}
	}
	captures := 0
	for _, urls := range ours {
		captures += len(urls)
	}
	if len(ours) != len(theirs) || captures != pages+1 {
		t.Errorf("CDXJ indexes list %d captures in %d files, warcio indexed captures in %d files; want %d captures",
			captures, len(ours), len(theirs), pages+1)
	}

	// The second run re-checks every page conditionally: 304s, kept as
	// server-not-modified revisits of the first run's captures.
	r = run(t, "", args...)
	if r.code != 0 {
		t.Fatalf("second crawl --warc exit %d\n%s", r.code, r.stderr)
	}
	if got := o.Stats().NotModified; got != pages {
		t.Fatalf("second run: %d answers 304, want %d", got, pages)
	}
	all, _ := filepath.Glob(filepath.Join(warcDir, "*.warc.gz"))
	c2 := warciotest.Check(t, all...)
	revisits := 0
	for _, rec := range c2.Records {
		if rec.Type != "revisit" {
			continue
		}
		revisits++
		if !rec.RefersToFound || !rec.RefersToDigest || !rec.RefersToURIDate ||
			rec.Profile != "http://netpreserve.org/warc/1.1/revisit/server-not-modified" {
			t.Errorf("revisit of %s: profile %q, refers to %s found %v", rec.URI, rec.Profile, rec.RefersTo, rec.RefersToFound)
		}
	}
	if revisits != pages {
		t.Errorf("second run: %d revisit records, want %d (%s)", revisits, pages, fmt.Sprint(c2.Counts))
	}
	checkWACZ(t, db, all, pages)
}

// checkWACZ runs polite wacz on the job of db and checks the file: every
// WARC file the job wrote under archive/, datapackage.json naming each
// resource with its SHA-256 and size, the merged index, and pages.jsonl
// with each HTML page captured and its title.
func checkWACZ(t *testing.T, db string, warcs []string, pages int) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "job.wacz")
	r := run(t, "", "wacz", "--db", db, "-o", file)
	if r.code != 0 {
		t.Fatalf("polite wacz: exit %d\n%s", r.code, r.stderr)
	}
	zr, err := zip.OpenReader(file)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	read := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		read[f.Name], _ = io.ReadAll(rc)
		rc.Close()
	}
	for _, w := range warcs {
		want, _ := os.ReadFile(w)
		if got, ok := read["archive/"+filepath.Base(w)]; !ok || !bytes.Equal(got, want) {
			t.Errorf("WACZ: archive/%s missing or not the file", filepath.Base(w))
		}
	}
	var dp struct {
		Version   string `json:"wacz_version"`
		Resources []struct {
			Path  string `json:"path"`
			Hash  string `json:"hash"`
			Bytes int    `json:"bytes"`
		} `json:"resources"`
	}
	if err := json.Unmarshal(read["datapackage.json"], &dp); err != nil || dp.Version != "1.1.1" || len(dp.Resources) != len(warcs)+2 {
		t.Fatalf("datapackage.json: %v %+v; want version 1.1.1 and the WARC files, index and pages", err, dp)
	}
	for _, res := range dp.Resources {
		sum := sha256.Sum256(read[res.Path])
		if res.Hash != "sha256:"+hex.EncodeToString(sum[:]) || res.Bytes != len(read[res.Path]) {
			t.Errorf("datapackage.json: %s hash %s, %d bytes; not the file's", res.Path, res.Hash, res.Bytes)
		}
	}
	titled := 0
	for _, line := range strings.Split(strings.TrimSpace(string(read["pages/pages.jsonl"])), "\n")[1:] {
		var p struct{ URL, TS, Title string }
		if json.Unmarshal([]byte(line), &p) == nil && strings.HasPrefix(p.Title, "Page ") && p.TS != "" {
			titled++
		}
	}
	if titled != pages {
		t.Errorf("pages.jsonl: %d pages with their title, want %d:\n%s", titled, pages, read["pages/pages.jsonl"])
	}
	if n := strings.Count(string(read["indexes/index.cdxj"]), "\n"); n != 2*pages+1 {
		t.Errorf("indexes/index.cdxj: %d lines, want a capture of each page per run and robots.txt (cached on the second), %d", n, 2*pages+1)
	}
}
