package warc

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	gowarc "github.com/nlnwa/gowarc/v3"

	"github.com/polite-crawler/polite/crawl/warc/warciotest"
)

// The reader is shared with crawl's end-to-end tests, in warciotest.
type checked = warciotest.Checked

func runCheck(t *testing.T, files ...string) checked { t.Helper(); return warciotest.Run(t, files...) }

func warcio(t *testing.T, files ...string) checked { t.Helper(); return warciotest.Check(t, files...) }

// TestWARCIOReadsCrawl writes what a crawl and its conditional re-run
// write, in two runs and with rotation, and has warcio.js read it all:
// the record counts and types, statuses, digests, the request/response
// ties, the revisits' references, and its cdx-index against ours.
func TestWARCIOReadsCrawl(t *testing.T) {
	dir := t.TempDir()
	opts := testOptions()
	opts.MaxSize = 2000 // a few fetches per file
	pages := map[string]string{
		"http://127.0.0.1:8080/":          "<html><a href=/a>a</a></html>",
		"http://127.0.0.1:8080/a?z=1&b=2": "page a " + strings.Repeat("x", 500),
		"http://www.example.test/b":       "page b",
	}
	urls := slices.Sorted(func(yield func(string) bool) {
		for u := range pages {
			if !yield(u) {
				return
			}
		}
	})

	first := writeRun1(t, dir, opts, urls, pages)
	opts.Prefix = "job-run2-20261130130000"
	writeRun2(t, dir, opts, urls, pages, first)

	files := warcFiles(t, dir)
	if len(files) < 3 {
		t.Fatalf("%d WARC files, want rotation at %d bytes to make at least 3", len(files), opts.MaxSize)
	}
	c := warcio(t, files...)

	want := map[string]int{"warcinfo": len(files), "request": 9, "response": 7, "revisit": 2}
	for typ, n := range want {
		if c.Counts[typ] != n {
			t.Errorf("warcio.js counts %d %s records, want %d (all: %v)", c.Counts[typ], typ, n, c.Counts)
		}
	}
	if len(c.Counts) != len(want) {
		t.Errorf("record types %v, want only %v", c.Counts, want)
	}
	checkTies(t, c)
	checkStatuses(t, c)
	checkIndex(t, dir, c)
}

// writeRun1 writes a first run: every page, a robots.txt, a 404 and a
// truncated body.
func writeRun1(t *testing.T, dir string, opts Options, urls []string, pages map[string]string) map[string]Capture {
	t.Helper()
	w := mustOpen(t, dir, opts)
	first := map[string]Capture{}
	at := t0
	for _, u := range urls {
		at = at.Add(time.Second)
		c, err := w.WriteExchange(exchange(u, at, 200, pages[u]))
		if err != nil {
			t.Fatalf("WriteExchange(%s): %v", u, err)
		}
		first[u] = c
	}
	if _, err := w.WriteExchange(exchange("http://127.0.0.1:8080/robots.txt", at, 200, "User-agent: *\nDisallow: /private\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := w.WriteExchange(exchange("http://127.0.0.1:8080/gone", at, 404, "no")); err != nil {
		t.Fatal(err)
	}
	cut := exchange("http://127.0.0.1:8080/big", at, 200, strings.Repeat("y", 100))
	cut.ResponseHead = []byte("HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n")
	cut.Truncated = true
	if _, err := w.WriteExchange(cut); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return first
}

// writeRun2 writes a conditional re-run with a new writer: a 304, an
// unchanged 200 and a changed page.
func writeRun2(t *testing.T, dir string, opts Options, urls []string, pages map[string]string, first map[string]Capture) {
	t.Helper()
	w2 := mustOpen(t, dir, opts)
	at := t0.Add(time.Hour)
	nm := exchange(urls[0], at, 304, "")
	nm.ResponseHead = []byte("HTTP/1.1 304 Not Modified\r\nETag: \"v1\"\r\n\r\n")
	orig := first[urls[0]]
	if _, err := w2.WriteRevisit(Revisit{Profile: NotModified, Exchange: nm, Ref: Ref{RecordID: orig.RecordID, URL: urls[0], Date: orig.Date, PayloadDigest: orig.PayloadDigest}}); err != nil {
		t.Fatalf("WriteRevisit(not modified): %v", err)
	}
	orig = first[urls[1]]
	same := exchange(urls[1], at, 200, pages[urls[1]])
	if _, err := w2.WriteRevisit(Revisit{Profile: IdenticalPayload, Exchange: same, Ref: Ref{RecordID: orig.RecordID, URL: urls[1], Date: orig.Date, PayloadDigest: orig.PayloadDigest}}); err != nil {
		t.Fatalf("WriteRevisit(identical): %v", err)
	}
	if _, err := w2.WriteExchange(exchange(urls[2], at, 200, "page b, changed")); err != nil {
		t.Fatal(err)
	}
	if err := w2.Close(); err != nil {
		t.Fatal(err)
	}
}

// checkTies: every file opens with its warcinfo, every other record names
// it, and a request and its response or revisit name each other.
func checkTies(t *testing.T, c checked) {
	t.Helper()
	byID := map[string]int{}
	info := map[string]string{}
	for i, r := range c.Records {
		byID[r.ID] = i
		if r.Type == "warcinfo" {
			if _, dup := info[r.File]; dup || r.Offset != 0 {
				t.Errorf("%s: warcinfo at offset %d (a second one: %v), want one, first", r.File, r.Offset, dup)
			}
			info[r.File] = r.ID
			if r.Filename != r.File {
				t.Errorf("%s: WARC-Filename %q", r.File, r.Filename)
			}
			for _, f := range []string{"software: polite/test", "http-header-user-agent: polite/test", "robots: obey", "isPartOf: job"} {
				if !strings.Contains(r.Fields, f) {
					t.Errorf("%s: warcinfo lacks %q:\n%s", r.File, f, r.Fields)
				}
			}
		}
	}
	for _, r := range c.Records {
		if r.Type == "warcinfo" {
			continue
		}
		if r.WarcinfoID != info[r.File] {
			t.Errorf("%s %s: WARC-Warcinfo-ID %s, want its file's %s", r.Type, r.URI, r.WarcinfoID, info[r.File])
		}
		j, ok := byID[r.ConcurrentTo]
		if !ok {
			t.Errorf("%s %s: WARC-Concurrent-To %q names no record", r.Type, r.URI, r.ConcurrentTo)
			continue
		}
		o := c.Records[j]
		if o.ConcurrentTo != r.ID || o.URI != r.URI || o.File != r.File || (r.Type == "request") == (o.Type == "request") {
			t.Errorf("%s %s is tied to %s %s, which is not tied back to it", r.Type, r.URI, o.Type, o.URI)
		}
		if r.IP != "127.0.0.1" {
			t.Errorf("%s %s: WARC-IP-Address %q", r.Type, r.URI, r.IP)
		}
	}
}

// checkStatuses: the status codes, truncation and revisits as written.
func checkStatuses(t *testing.T, c checked) {
	t.Helper()
	var got []string
	for _, r := range c.Records {
		if r.Type != "response" && r.Type != "revisit" {
			continue
		}
		s := r.Type + " " + r.URI
		if r.Status != nil {
			s += " " + string(rune('0'+*r.Status/100)) + string(rune('0'+*r.Status/10%10)) + string(rune('0'+*r.Status%10))
		}
		if r.Truncated != nil {
			s += " truncated=" + *r.Truncated
		}
		if r.Type == "revisit" {
			s += " " + strings.TrimPrefix(r.Profile, "http://netpreserve.org/warc/1.1/revisit/")
			if !r.RefersToFound || !r.RefersToDigest || !r.RefersToURIDate {
				t.Errorf("revisit of %s: refers to %s (found %v, same digest %v, same URI and date %v)",
					r.URI, r.RefersTo, r.RefersToFound, r.RefersToDigest, r.RefersToURIDate)
			}
		}
		got = append(got, s)
	}
	want := []string{
		"response http://127.0.0.1:8080/ 200",
		"response http://127.0.0.1:8080/a?z=1&b=2 200",
		"response http://www.example.test/b 200",
		"response http://127.0.0.1:8080/robots.txt 200",
		"response http://127.0.0.1:8080/gone 404",
		"response http://127.0.0.1:8080/big 200 truncated=length",
		// The library marks a revisit's block, the head alone, as
		// truncated by length, as Heritrix does.
		"revisit http://127.0.0.1:8080/ 304 truncated=length server-not-modified",
		"revisit http://127.0.0.1:8080/a?z=1&b=2 200 truncated=length identical-payload-digest",
		"response http://www.example.test/b 200",
	}
	if !slices.Equal(got, want) {
		t.Errorf("responses and revisits as warcio.js read them:\n got %q\nwant %q", got, want)
	}
	for _, r := range c.Records {
		if r.Type == "revisit" && r.Status != nil && *r.Status == 304 {
			head, _ := base64.StdEncoding.DecodeString(r.Head)
			if !strings.Contains(string(head), "ETag: \"v1\"") {
				t.Errorf("304 revisit block %q lacks the 304's headers", head)
			}
		}
	}
}

// checkIndex: our CDXJ files hold the lines warcio's cdx-index makes of
// the same WARC files.
func checkIndex(t *testing.T, dir string, c checked) {
	t.Helper()
	idx, _ := filepath.Glob(filepath.Join(dir, "*.cdxj"))
	if len(idx) != len(c.Files) {
		t.Errorf("%d index files for %d WARC files", len(idx), len(c.Files))
	}
	var ours []string
	for _, p := range idx {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		if !slices.IsSorted(lines) {
			t.Errorf("%s is not sorted:\n%s", p, b)
		}
		ours = append(ours, lines...)
	}
	theirs := slices.Clone(c.CDX)
	slices.Sort(ours)
	slices.Sort(theirs)
	if len(theirs) != 9 {
		t.Errorf("warcio.js cdx-index made %d lines, want 9 (7 responses, 2 revisits)", len(theirs))
	}
	if !slices.Equal(ours, theirs) {
		t.Errorf("our CDXJ differs from warcio.js cdx-index:\n ours:\n%s\ntheirs:\n%s", strings.Join(ours, "\n"), strings.Join(theirs, "\n"))
	}
}

// TestWARCIOCatchesBadDigests: the check itself is not blind: a record
// whose digests do not match its bytes is flagged.
func TestWARCIOCatchesBadDigests(t *testing.T) {
	dir := t.TempDir()
	w := mustOpen(t, dir, testOptions())
	ex := exchange("http://127.0.0.1:8080/", t0, 200, "the real page")
	req, resp, err := w.buildPair(ex, ex.Payload, false)
	if err != nil {
		t.Fatal(err)
	}
	wrong := sha256Of([]byte("another page"))
	resp.WarcHeader().Set(gowarc.WarcBlockDigest, wrong)
	resp.WarcHeader().Set(gowarc.WarcPayloadDigest, wrong)
	if _, err := w.writePair(ex, req, resp); err != nil {
		t.Fatal(err)
	}
	w.Close()
	c := runCheck(t, warcFiles(t, dir)...)
	var got []string
	for _, r := range c.Records {
		if r.Type == "response" {
			got = append(got, fmt.Sprint(*r.BlockDigestOK, " ", *r.PayloadDigestOK))
		}
	}
	if want := []string{"false false"}; !slices.Equal(got, want) {
		t.Errorf("block and payload digest OK for the forged response: %q, want %q", got, want)
	}
}
