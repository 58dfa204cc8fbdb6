package crawl

import (
	"bytes"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/fetch"
	"github.com/polite-crawler/polite/crawl/frontier"
)

var updateManifest = flag.Bool("update-manifest", false, "rewrite ../testdata/golden/manifest.jsonl")

// nopCloser is a buffer as the run's manifest journal.
type nopCloser struct{ bytes.Buffer }

func (nopCloser) Close() error { return nil }

// TestGoldenManifest keeps manifest.jsonl's lines, and the fetch records
// queued with them, as they are: the reason of each kind of final fetch
// the ledger writes (go test -run TestGoldenManifest -update-manifest
// rewrites the golden file).
func TestGoldenManifest(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)
	var out nopCloser
	l := newLedger("golden", "golden")
	l.runID, l.manifest = 4, &out
	ok := fetch.Response{Status: 200, TTFB: 120 * time.Millisecond, Header: http.Header{"Content-Type": {"text/html"}}}
	moved := fetch.Response{Status: 301, TTFB: 80 * time.Millisecond, Header: http.Header{"Location": {"https://a.example/loop"}}}
	tests := []struct {
		state  frontier.State
		reason frontier.Reason
		resp   fetch.Response
	}{
		{frontier.Done, "", ok},
		{frontier.NotModified, "", fetch.Response{Status: 304, TTFB: 90 * time.Millisecond}},
		{frontier.Done, "", moved},
		{frontier.Dead, "redirect-loop", moved},
		{frontier.Dead, "http-404", fetch.Response{Status: 404, TTFB: 50 * time.Millisecond}},
		{frontier.Dead, "http-503", fetch.Response{Status: 503}},
		{frontier.Dead, "timeout", fetch.Response{}},
		{frontier.Dead, "too-large", fetch.Response{Status: 200}},
	}
	for i, tt := range tests {
		e := frontier.Entry{URL: "https://a.example/" + string(rune('a'+i)), Host: "a.example", Attempts: 1 + i%3}
		if tt.state == frontier.Done && tt.resp.Status == 200 {
			e.File, e.SHA256, e.Bytes = "a.example/a", "e3b0c442", 512
		}
		l.finish(&e, tt.state, tt.reason)
		l.writeManifest(e, tt.resp, time.Second, at)
	}
	for i, f := range l.fetches {
		if f.Reason != tests[i].reason {
			t.Errorf("fetch record %d: reason %q, want %q", i, f.Reason, tests[i].reason)
		}
	}
	path := filepath.Join("..", "testdata", "golden", "manifest.jsonl")
	if *updateManifest {
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Errorf("manifest lines differ from %s\n--- got\n%s\n--- want\n%s", path, out.Bytes(), want)
	}
}
