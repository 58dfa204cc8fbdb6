package wacz

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/warc"
)

// writeWARC writes one file of two captures, an HTML page (gzip-encoded,
// as sent) and an image, and closes it with its index.
func writeWARC(t *testing.T, dir string) string {
	t.Helper()
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	w, err := warc.Open(dir, warc.Options{Prefix: "job-1-20260304T050607Z", Worker: "host~1", Now: func() time.Time { return at }})
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("<html><head><title> A &amp; B </title></head><body>x</body></html>"))
	zw.Close()
	for _, ex := range []warc.Exchange{
		{URL: "http://example.org/", Date: at, Request: []byte("GET / HTTP/1.1\r\nHost: example.org\r\n\r\n"),
			ResponseHead: []byte("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\n\r\n"), Payload: gz.Bytes()},
		{URL: "http://example.org/a.png", Date: at, Request: []byte("GET /a.png HTTP/1.1\r\nHost: example.org\r\n\r\n"),
			ResponseHead: []byte("HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n\r\n"), Payload: []byte("png")},
	} {
		if _, err := w.WriteExchange(ex); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.warc.gz"))
	if len(files) != 1 {
		t.Fatalf("WARC files %v, want one", files)
	}
	return files[0]
}

// A package holds the file, the index, the pages (the HTML page alone,
// its title read through its gzip encoding) and datapackage.json.
func TestWrite(t *testing.T) {
	t.Parallel()
	path := writeWARC(t, t.TempDir())
	var out bytes.Buffer
	if err := Write(&out, Package{Title: "job", Software: "polite/test", Created: time.Now(), WARCs: []string{path}}); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(out.Bytes()), int64(out.Len()))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, f := range zr.File {
		rc, _ := f.Open()
		b, _ := io.ReadAll(rc)
		rc.Close()
		files[f.Name] = string(b)
		if strings.HasPrefix(f.Name, "archive/") && f.Method != zip.Store {
			t.Errorf("%s compressed again (method %d): replay reads it by range", f.Name, f.Method)
		}
	}
	for _, name := range []string{"archive/" + filepath.Base(path), "indexes/index.cdxj", "pages/pages.jsonl", "datapackage.json", "datapackage-digest.json"} {
		if _, ok := files[name]; !ok {
			t.Errorf("no %s in the package (%d files)", name, len(files))
		}
	}
	lines := strings.Split(strings.TrimSpace(files["pages/pages.jsonl"]), "\n")
	var page struct{ URL, TS, Title string }
	if len(lines) != 2 || json.Unmarshal([]byte(lines[1]), &page) != nil || page.URL != "http://example.org/" ||
		page.Title != "A & B" || page.TS != "2026-03-04T05:06:07Z" {
		t.Errorf("pages.jsonl:\n%s\nwant a header line and the page with its title and time", files["pages/pages.jsonl"])
	}
	if n := strings.Count(files["indexes/index.cdxj"], "\n"); n != 2 {
		t.Errorf("index of %d lines, want the 2 captures", n)
	}
}

// Nothing to package, or a WARC file without its index (a run that has
// not ended), is an error naming what is missing.
func TestWriteRefuses(t *testing.T) {
	t.Parallel()
	if err := Write(io.Discard, Package{}); err == nil || !strings.Contains(err.Error(), "no WARC files") {
		t.Errorf("no files: %v", err)
	}
	path := writeWARC(t, t.TempDir())
	index := strings.TrimSuffix(path, ".warc.gz") + ".cdxj"
	if err := os.Remove(index); err != nil {
		t.Fatal(err)
	}
	if err := Write(io.Discard, Package{WARCs: []string{path}}); err == nil || !strings.Contains(err.Error(), index) {
		t.Errorf("no index: %v, want an error naming %s", err, index)
	}
}
