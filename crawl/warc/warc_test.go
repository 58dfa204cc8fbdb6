package warc

import (
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestExchangeRecords(t *testing.T) {
	dir := t.TempDir()
	w := mustOpen(t, dir, testOptions())
	ex := exchange("http://127.0.0.1:8080/page", t0, 200, "hello, archive")
	c, err := w.WriteExchange(ex)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	files := warcFiles(t, dir)
	if want := filepath.Join(dir, "job-run1-20261130120000-00000.warc.gz"); !slices.Equal(files, []string{want}) {
		t.Fatalf("files %q, want %q", files, want)
	}
	recs := readWARC(t, files[0])
	if got, want := types(recs), []string{"warcinfo", "request", "response"}; !slices.Equal(got, want) {
		t.Fatalf("record types %q, want %q", got, want)
	}
	req, resp := recs[1], recs[2]
	tests := []struct{ name, got, want string }{
		{"response id", resp.get("WARC-Record-ID"), c.RecordID},
		{"request id", req.get("WARC-Record-ID"), c.RequestID},
		{"request concurrent-to", req.get("WARC-Concurrent-To"), c.RecordID},
		{"response concurrent-to", resp.get("WARC-Concurrent-To"), c.RequestID},
		{"target", resp.get("WARC-Target-URI"), ex.URL},
		{"date", resp.get("WARC-Date"), "2026-11-30T12:00:00Z"},
		{"ip", resp.get("WARC-IP-Address"), "127.0.0.1"},
		{"payload digest", resp.get("WARC-Payload-Digest"), sha256Of(ex.Payload)},
		{"capture digest", c.PayloadDigest, sha256Of(ex.Payload)},
		{"block digest", resp.get("WARC-Block-Digest"), sha256Of(append(slices.Clone(ex.ResponseHead), ex.Payload...))},
		{"request block digest", req.get("WARC-Block-Digest"), sha256Of(ex.Request)},
		{"truncated", resp.get("WARC-Truncated"), ""},
		{"warcinfo id", resp.get("WARC-Warcinfo-ID"), recs[0].get("WARC-Record-ID")},
		{"response block", string(resp.block), string(ex.ResponseHead) + string(ex.Payload)},
		{"request block", string(req.block), string(ex.Request)},
		{"capture file", c.File, filepath.Base(files[0])},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
	if c.Offset != resp.offset {
		t.Errorf("capture offset %d, the response record starts at %d", c.Offset, resp.offset)
	}
}

// TestKeptAsReceived: a head with odd bytes (no reason phrase, Latin-1 and
// control bytes, a line with no colon, bare LF, a NUL) is stored byte for
// byte, and its digests are of those bytes.
func TestKeptAsReceived(t *testing.T) {
	heads := []struct{ name, head string }{
		{"latin-1 and control bytes", "HTTP/1.1 200\r\nX-Name: caf\xe9\x01\x7f\r\nContent-Type: text/html\r\n\r\n"},
		{"line without colon", "HTTP/1.1 200 OK\r\nthis is not a header\r\nX-A: b\r\n\r\n"},
		{"bare LF", "HTTP/1.0 200 OK\nServer: old\n\n"},
		{"NUL and invalid UTF-8", "HTTP/1.1 200 OK\r\nX-\x00: \xff\xfe\r\n\r\n"},
		{"folded header", "HTTP/1.1 200 OK\r\nX-Long: a\r\n  b\r\n\r\n"},
	}
	for _, tt := range heads {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			w := mustOpen(t, dir, testOptions())
			ex := exchange("http://127.0.0.1:8080/odd", t0, 200, "body\x00\xff")
			ex.ResponseHead = []byte(tt.head)
			c, err := w.WriteExchange(ex)
			if err != nil {
				t.Fatal(err)
			}
			w.Close()
			resp := readWARC(t, warcFiles(t, dir)[0])[2]
			if want := tt.head + "body\x00\xff"; string(resp.block) != want {
				t.Errorf("block %q, want %q", resp.block, want)
			}
			if want := sha256Of([]byte(tt.head + "body\x00\xff")); resp.get("WARC-Block-Digest") != want {
				t.Errorf("block digest %s, want %s", resp.get("WARC-Block-Digest"), want)
			}
			if want := sha256Of([]byte("body\x00\xff")); c.PayloadDigest != want {
				t.Errorf("payload digest %s, want %s", c.PayloadDigest, want)
			}
		})
	}
}

// TestPayloadWhereReadersSplit: the payload digest is of what follows the
// end of the head as a WARC reader finds it (the first line shorter than
// three bytes), even where that is not the end of the head polite passed.
func TestPayloadWhereReadersSplit(t *testing.T) {
	for _, tt := range []struct{ name, head, body, payload string }{
		{"blank line inside the head", "HTTP/1.1 200 OK\r\n\r\nX-After: a\r\n\r\n", "body", "X-After: a\r\n\r\nbody"},
		{"short line inside the head", "HTTP/1.1 200 OK\r\nX\nX-After: a\r\n\r\n", "body", "X-After: a\r\n\r\nbody"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			w := mustOpen(t, dir, testOptions())
			ex := exchange("http://127.0.0.1:8080/odd", t0, 200, tt.body)
			ex.ResponseHead = []byte(tt.head)
			ex.Request = append(ex.Request, "q=1"...) // a request body
			c, err := w.WriteExchange(ex)
			if err != nil {
				t.Fatal(err)
			}
			w.Close()
			recs := readWARC(t, warcFiles(t, dir)[0]) // checks both digests
			if want := sha256Of([]byte(tt.payload)); c.PayloadDigest != want || recs[2].get("WARC-Payload-Digest") != want {
				t.Errorf("payload digest %s (record %s), want %s", c.PayloadDigest, recs[2].get("WARC-Payload-Digest"), want)
			}
			if got, want := recs[1].get("WARC-Payload-Digest"), sha256Of([]byte("q=1")); got != want {
				t.Errorf("request payload digest %s, want %s", got, want)
			}
		})
	}
}

// TestTargetURIKeptAsGiven: a URL a WHATWG parser refuses (Go's accepts
// it) is still the records' WARC-Target-URI.
func TestTargetURIKeptAsGiven(t *testing.T) {
	dir := t.TempDir()
	w := mustOpen(t, dir, testOptions())
	if _, err := w.WriteExchange(exchange("http://a<b/", t0, 200, "page")); err != nil {
		t.Fatal(err)
	}
	w.Close()
	f, err := os.Open(warcFiles(t, dir)[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	all, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(all), "\r\nWARC-Target-URI: http://a<b/\r\n"); n != 2 {
		t.Errorf("WARC-Target-URI http://a<b/ in %d records, want 2 (request and response)", n)
	}
}

func TestTruncated(t *testing.T) {
	for _, cut := range []bool{false, true} {
		dir := t.TempDir()
		w := mustOpen(t, dir, testOptions())
		ex := exchange("http://127.0.0.1:8080/big", t0, 200, strings.Repeat("z", 64))
		ex.Truncated = cut
		if _, err := w.WriteExchange(ex); err != nil {
			t.Fatal(err)
		}
		w.Close()
		recs := readWARC(t, warcFiles(t, dir)[0])
		want := ""
		if cut {
			want = "length"
		}
		if got := recs[2].get("WARC-Truncated"); got != want {
			t.Errorf("Truncated %v: WARC-Truncated %q, want %q", cut, got, want)
		}
		if got := recs[1].get("WARC-Truncated"); got != "" {
			t.Errorf("Truncated %v: the request record says WARC-Truncated %q", cut, got)
		}
	}
}

func TestRotation(t *testing.T) {
	dir := t.TempDir()
	opts := testOptions()
	opts.MaxSize = 1500
	w := mustOpen(t, dir, opts)
	var caps []Capture
	for i := range 6 {
		c, err := w.WriteExchange(exchange("http://127.0.0.1:8080/p", t0.Add(time.Duration(i)*time.Second), 200, strings.Repeat("a", i*50)))
		if err != nil {
			t.Fatal(err)
		}
		caps = append(caps, c)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	files := warcFiles(t, dir)
	if len(files) < 3 {
		t.Fatalf("%d files at MaxSize %d, want rotation", len(files), opts.MaxSize)
	}
	total := 0
	for i, f := range files {
		if want := filepath.Join(dir, "job-run1-20261130120000-0000"+string(rune('0'+i))+".warc.gz"); f != want {
			t.Errorf("file %d is %s, want %s", i, f, want)
		}
		recs := readWARC(t, f)
		if recs[0].typ != "warcinfo" || recs[0].get("WARC-Filename") != filepath.Base(f) {
			t.Errorf("%s opens with %s %q, want its warcinfo", f, recs[0].typ, recs[0].get("WARC-Filename"))
		}
		for _, r := range recs[1:] {
			if r.typ == "warcinfo" {
				t.Errorf("%s: a second warcinfo", f)
			}
			// The first fetch of a new file was compressed for the last.
			if got, want := r.get("WARC-Warcinfo-ID"), recs[0].get("WARC-Record-ID"); got != want {
				t.Errorf("%s: %s record names warcinfo %s, want its file's %s", f, r.typ, got, want)
			}
		}
		total += (len(recs) - 1) / 2
		// A file ends with the fetch that takes it to MaxSize: all but the
		// last were under MaxSize before that fetch.
		if i < len(files)-1 && fileSize(t, f) < opts.MaxSize {
			t.Errorf("%s closed at %d bytes, under MaxSize %d", f, fileSize(t, f), opts.MaxSize)
		}
		if _, err := os.Stat(indexPath(f)); err != nil {
			t.Errorf("no index beside %s: %v", f, err)
		}
	}
	if total != 6 {
		t.Errorf("%d fetches in the files, want 6", total)
	}
	if caps[0].File == caps[5].File {
		t.Errorf("first and last capture both in %s", caps[0].File)
	}
}

// TestNewWriterNewFile: a second writer with the same prefix (a resumed
// run) leaves the first file as it was and starts the next serial.
func TestNewWriterNewFile(t *testing.T) {
	dir := t.TempDir()
	w := mustOpen(t, dir, testOptions())
	if _, err := w.WriteExchange(exchange("http://127.0.0.1:8080/", t0, 200, "one")); err != nil {
		t.Fatal(err)
	}
	w.Close()
	first := warcFiles(t, dir)[0]
	before, _ := os.ReadFile(first)
	w2 := mustOpen(t, dir, testOptions())
	if _, err := w2.WriteExchange(exchange("http://127.0.0.1:8080/", t0, 200, "two")); err != nil {
		t.Fatal(err)
	}
	w2.Close()
	after, _ := os.ReadFile(first)
	if !bytes.Equal(before, after) {
		t.Errorf("the first file changed when a second writer opened")
	}
	files := warcFiles(t, dir)
	if len(files) != 2 || !strings.HasSuffix(files[1], "-00001.warc.gz") {
		t.Errorf("files %q, want a new -00001 file", files)
	}
}

// TestCrashLeavesRecordsReadable: without Close (the process died), every
// fetch written is readable, and no index exists to point at anything.
func TestCrashLeavesRecordsReadable(t *testing.T) {
	dir := t.TempDir()
	w := mustOpen(t, dir, testOptions())
	for i := range 3 {
		if _, err := w.WriteExchange(exchange("http://127.0.0.1:8080/", t0.Add(time.Duration(i)), 200, "x")); err != nil {
			t.Fatal(err)
		}
	}
	recs := readWARC(t, warcFiles(t, dir)[0]) // w is still open
	if len(recs) != 7 {
		t.Errorf("%d records readable before Close, want 7", len(recs))
	}
	if idx, _ := filepath.Glob(filepath.Join(dir, "*.cdxj")); len(idx) != 0 {
		t.Errorf("index %q written before its WARC file was finished", idx)
	}
}

// failing wraps a file and fails once budget bytes have been written;
// budget < 0 never fails. What fits in the budget is written, as a full
// disk does.
type failing struct {
	*os.File
	budget *int64
}

var errDiskFull = errors.New("disk full")

func (f failing) Write(p []byte) (int, error) {
	if *f.budget < 0 || int64(len(p)) <= *f.budget {
		if *f.budget >= 0 {
			*f.budget -= int64(len(p))
		}
		return f.File.Write(p)
	}
	n, _ := f.File.Write(p[:*f.budget])
	*f.budget = 0
	return n, errDiskFull
}

// TestWriteErrorMidRecord: a write that fails part way leaves the file as
// it was before that fetch; the next fetch is written after it, and every
// record in the file is whole.
func TestWriteErrorMidRecord(t *testing.T) {
	big := make([]byte, 300<<10)
	rand.Read(big) // does not compress: the failure comes mid-record
	tests := []struct {
		name   string
		budget int64
		body   string
	}{
		{"nothing written", 0, "small"},
		{"a few bytes of the request", 10, "small"},
		{"request whole, response cut", 700, "small"},
		{"inside a large payload", 100 << 10, string(big)},
		{"last bytes of a large payload", 300 << 10, string(big)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			budget := int64(-1)
			create := func(path string) (file, error) {
				f, err := createFile(path)
				if err != nil {
					return nil, err
				}
				return failing{f.(*os.File), &budget}, nil
			}
			w, err := open(dir, testOptions(), create)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			if _, err := w.WriteExchange(exchange("http://127.0.0.1:8080/before", t0, 200, "kept")); err != nil {
				t.Fatal(err)
			}
			path := warcFiles(t, dir)[0]
			size := fileSize(t, path)
			budget = tt.budget
			_, err = w.WriteExchange(exchange("http://127.0.0.1:8080/failed", t0, 200, tt.body))
			if !errors.Is(err, errDiskFull) {
				t.Fatalf("WriteExchange = %v, want the disk's error", err)
			}
			if got := fileSize(t, path); got != size {
				t.Errorf("file is %d bytes after the failed write, want %d as before it", got, size)
			}
			budget = -1
			c, err := w.WriteExchange(exchange("http://127.0.0.1:8080/after", t0, 200, "kept too"))
			if err != nil {
				t.Fatalf("write after the failure: %v", err)
			}
			if c.Offset <= size-1 || c.File != filepath.Base(path) {
				t.Errorf("next capture at %s:%d, want after %d in the same file", c.File, c.Offset, size)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			var uris []string
			for _, r := range readWARC(t, path) {
				uris = append(uris, r.typ+" "+r.get("WARC-Target-URI"))
			}
			want := []string{"warcinfo ", "request http://127.0.0.1:8080/before", "response http://127.0.0.1:8080/before",
				"request http://127.0.0.1:8080/after", "response http://127.0.0.1:8080/after"}
			if !slices.Equal(uris, want) {
				t.Errorf("records %q, want %q", uris, want)
			}
			idx, err := os.ReadFile(indexPath(path))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(idx), "/failed") || strings.Count(string(idx), "\n") != 2 {
				t.Errorf("index:\n%s\nwant the two fetches written, not the failed one", idx)
			}
		})
	}
}

// stuck is a file whose writes fail and that cannot be cut back.
type stuck struct{ failing }

func (stuck) Truncate(int64) error { return errors.New("read-only file system") }

// TestCannotCutBack: when the failed record cannot be cut away, that file
// is finished (its index lists the whole records) and the next fetch goes
// to a new file.
func TestCannotCutBack(t *testing.T) {
	dir := t.TempDir()
	budget := int64(-1)
	create := func(path string) (file, error) {
		f, err := createFile(path)
		if err != nil {
			return nil, err
		}
		return stuck{failing{f.(*os.File), &budget}}, nil
	}
	w, err := open(dir, testOptions(), create)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.WriteExchange(exchange("http://127.0.0.1:8080/before", t0, 200, "kept")); err != nil {
		t.Fatal(err)
	}
	budget = 5
	if _, err := w.WriteExchange(exchange("http://127.0.0.1:8080/failed", t0, 200, "lost")); !errors.Is(err, errDiskFull) {
		t.Fatalf("WriteExchange = %v, want the disk's error", err)
	}
	budget = -1
	c, err := w.WriteExchange(exchange("http://127.0.0.1:8080/after", t0, 200, "kept too"))
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	files := warcFiles(t, dir)
	if len(files) != 2 || c.File != filepath.Base(files[1]) {
		t.Fatalf("files %q, capture in %s: want the next fetch in a second file", files, c.File)
	}
	idx, err := os.ReadFile(indexPath(files[0]))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(idx), "\n") != 1 || !strings.Contains(string(idx), "/before") {
		t.Errorf("index of the first file:\n%s\nwant only the whole fetch", idx)
	}
}

// BenchmarkWriteExchange: one fetch, request and response, as the crawl
// writes it, of a 16 KiB page and of a page of the size the throughput
// benchmark's origins serve (three links, about 200 bytes), where the cost
// per record rather than per byte is what counts.
func BenchmarkWriteExchange(b *testing.B) {
	for _, bc := range []struct {
		name string
		body string
	}{
		{"16KiB", strings.Repeat("<p>polite archive page</p>\n", 16<<10/27)},
		{"200B", "<!doctype html>\n<html><head><title>Page 7</title></head>\n<body>\n<h1>Page 7</h1>\n<ul>\n" +
			strings.Repeat("<li><a href=\"/page/8\">page 8</a></li>\n", 3) + "</ul>\n</body></html>\n"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			w, err := Open(b.TempDir(), testOptions())
			if err != nil {
				b.Fatal(err)
			}
			defer w.Close()
			ex := exchange("http://127.0.0.1:8080/page/7", t0, 200, bc.body)
			b.SetBytes(int64(len(ex.Payload)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := w.WriteExchange(ex); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestConcurrentWrites: fetches written from many goroutines, across
// rotations, each land whole, once, with one index line each.
func TestConcurrentWrites(t *testing.T) {
	dir := t.TempDir()
	opts := testOptions()
	opts.MaxSize = 12000
	w := mustOpen(t, dir, opts)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 10 {
				u := fmt.Sprintf("http://127.0.0.1:8080/g%d/%d", g, i)
				if _, err := w.WriteExchange(exchange(u, t0, 200, u)); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if n := len(warcFiles(t, dir)); n < 2 {
		t.Errorf("%d files, want the writes to cross a rotation", n)
	}
	seen := map[string]int{}
	lines := 0
	for _, f := range warcFiles(t, dir) {
		for _, r := range readWARC(t, f) {
			if r.typ == "response" {
				seen[r.get("WARC-Target-URI")]++
			}
		}
		idx, err := os.ReadFile(indexPath(f))
		if err != nil {
			t.Fatal(err)
		}
		lines += strings.Count(string(idx), "\n")
	}
	if len(seen) != 40 || lines != 40 {
		t.Errorf("%d distinct responses, %d index lines, want 40 of each", len(seen), lines)
	}
	for u, n := range seen {
		if n != 1 {
			t.Errorf("%s written %d times", u, n)
		}
	}
}
