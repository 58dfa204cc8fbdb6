// Package warciotest reads WARC files in tests with webrecorder's
// warcio.js, a reader that shares no code with polite: package warc's
// tests and crawl's end-to-end tests check what polite wrote with it.
package warciotest

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// checkScript is package warc's testdata/check.mjs, found from this file.
func checkScript() string {
	_, here, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(here), "..", "testdata", "check.mjs")
}

// Checked is what testdata/check.mjs prints.
type Checked struct {
	Files   []string       `json:"files"`
	Counts  map[string]int `json:"counts"`
	Records []struct {
		File            string  `json:"file"`
		Offset          int64   `json:"offset"`
		Length          int64   `json:"length"`
		Type            string  `json:"type"`
		ID              string  `json:"id"`
		URI             string  `json:"uri"`
		Date            string  `json:"date"`
		IP              string  `json:"ip"`
		ContentLength   int64   `json:"contentLength"`
		BlockLength     int64   `json:"blockLength"`
		BlockDigest     string  `json:"blockDigest"`
		BlockDigestOK   *bool   `json:"blockDigestOK"`
		PayloadDigest   string  `json:"payloadDigest"`
		PayloadDigestOK *bool   `json:"payloadDigestOK"`
		Truncated       *string `json:"truncated"`
		ConcurrentTo    string  `json:"concurrentTo"`
		WarcinfoID      string  `json:"warcinfoID"`
		Filename        string  `json:"filename"`
		Profile         string  `json:"profile"`
		RefersTo        string  `json:"refersTo"`
		RefersToURI     string  `json:"refersToURI"`
		RefersToDate    string  `json:"refersToDate"`
		RefersToFound   bool    `json:"refersToFound"`
		RefersToDigest  bool    `json:"refersToDigestMatch"`
		RefersToURIDate bool    `json:"refersToURIMatch"`
		Status          *int    `json:"status"`
		Head            string  `json:"head"`
		Fields          string  `json:"fields"`
	} `json:"records"`
	CDX    []string `json:"cdx"`
	Errors []string `json:"errors"`
}

// Run runs testdata/check.mjs (of package warc) on files with Debian's node and
// webrecorder's warcio.js from $POLITE_WARCIO_DIR (see .ci/run). Without
// POLITE_WARCIO_DIR it skips, saying why; with it set (as CI sets it), a
// missing node or warcio.js is a failure, so CI never skips.
func Run(t testing.TB, files ...string) Checked {
	t.Helper()
	dir := os.Getenv("POLITE_WARCIO_DIR")
	if dir == "" {
		t.Skip("POLITE_WARCIO_DIR is not set: install warcio.js with `npm install --prefix DIR warcio@2.4` and set it to DIR (.ci/run does)")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "warcio", "package.json")); err != nil {
		t.Fatalf("warcio.js is not installed under POLITE_WARCIO_DIR=%s: %v", dir, err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		if node, err = exec.LookPath("nodejs"); err != nil {
			t.Fatalf("POLITE_WARCIO_DIR is set but node is not installed: %v", err)
		}
	}
	cmd := exec.Command(node, append([]string{checkScript()}, files...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("check.mjs: %v\n%s", err, stderr.String())
	}
	var c Checked
	if err := json.Unmarshal(out, &c); err != nil {
		t.Fatalf("check.mjs printed no JSON summary: %v\n%s", err, out)
	}
	return c
}

// Check is Run, failing the test on any parse error, digest
// mismatch or Content-Length that is not the block's.
func Check(t testing.TB, files ...string) Checked {
	t.Helper()
	c := Run(t, files...)
	for _, e := range c.Errors {
		t.Errorf("warcio.js: %s", e)
	}
	for i, r := range c.Records {
		if r.BlockDigestOK == nil || !*r.BlockDigestOK {
			t.Errorf("record %d (%s %s): block digest %q does not match the block, says warcio.js", i, r.Type, r.URI, r.BlockDigest)
		}
		if r.ContentLength != r.BlockLength {
			t.Errorf("record %d (%s %s): Content-Length %d, block read %d", i, r.Type, r.URI, r.ContentLength, r.BlockLength)
		}
		if (r.Type == "request" || r.Type == "response") && (r.PayloadDigestOK == nil || !*r.PayloadDigestOK) {
			t.Errorf("record %d (%s %s): payload digest %q does not match the payload, says warcio.js", i, r.Type, r.URI, r.PayloadDigest)
		}
	}
	return c
}
