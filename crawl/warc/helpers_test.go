package warc

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	gowarc "github.com/nlnwa/gowarc/v3"
)

var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func testOptions() Options {
	return Options{
		Prefix: "job-run1-20261130120000",
		Info:   Info{Software: "polite/test", UserAgent: "polite/test (+https://example.org/polite)", Robots: "obey", Job: "job", Run: "run1"},
		Now:    func() time.Time { return t0 },
	}
}

func mustOpen(t *testing.T, dir string, opts Options) *Writer {
	t.Helper()
	w, err := Open(dir, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

// exchange is a GET of url answered with status and body.
func exchange(url string, at time.Time, status int, body string) Exchange {
	host := strings.SplitN(strings.SplitN(url, "//", 2)[1], "/", 2)[0]
	path := "/" + strings.SplitN(strings.SplitN(url, "//", 2)[1], "/", 2)[1]
	return Exchange{
		URL:  url,
		Date: at,
		IP:   "127.0.0.1",
		Request: []byte("GET " + path + " HTTP/1.1\r\nHost: " + host +
			"\r\nUser-Agent: polite/test\r\n\r\n"),
		ResponseHead: fmt.Appendf(nil, "HTTP/1.1 %d %s\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: %d\r\n\r\n",
			status, statusText(status), len(body)),
		Payload: []byte(body),
	}
}

func statusText(code int) string {
	switch code {
	case 200:
		return "OK"
	case 304:
		return "Not Modified"
	case 404:
		return "Not Found"
	}
	return "Status"
}

func sha256Of(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

// record is one record as the library's reader gives it back.
type record struct {
	typ    string
	header *gowarc.WarcFields
	block  []byte
	offset int64
}

func (r record) get(k string) string { return r.header.Get(k) }

// readWARC reads every record of path, failing on any digest or syntax
// problem the library finds.
func readWARC(t *testing.T, path string) []record {
	t.Helper()
	rd, err := gowarc.NewWarcFileReader(path, 0, gowarc.WithSpecViolationPolicy(gowarc.ErrFail), gowarc.WithSyntaxErrorPolicy(gowarc.ErrFail))
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	defer rd.Close()
	var out []record
	for rec, err := range rd.Records() {
		if err != nil {
			t.Fatalf("read %s: record %d: %v", path, len(out), err)
		}
		raw, err := rec.WarcRecord.Block().RawBytes()
		if err != nil {
			t.Fatalf("read %s: record %d block: %v", path, len(out), err)
		}
		b, err := io.ReadAll(raw)
		if err != nil {
			t.Fatalf("read %s: record %d block: %v", path, len(out), err)
		}
		if _, err := rec.WarcRecord.ValidateDigest(); err != nil {
			t.Errorf("read %s: record %d: %v", path, len(out), err)
		}
		out = append(out, record{typ: rec.WarcRecord.Type().String(), header: rec.WarcRecord.WarcHeader(), block: b, offset: rec.Offset})
		rec.Close()
	}
	return out
}

func types(recs []record) []string {
	var s []string
	for _, r := range recs {
		s = append(s, r.typ)
	}
	return s
}

// warcFiles lists the WARC files in dir, sorted.
func warcFiles(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*.warc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(m)
	return m
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}
