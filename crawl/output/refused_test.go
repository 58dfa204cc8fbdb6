package output

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// Refused drops a body only for a usage refusal; another reason, or an
// entry without a body, is left as it is, and a name outside the folder
// is never touched.
func TestRefused(t *testing.T) {
	dir := t.TempDir()
	o, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Write("a.example/p.html", []byte("kept")); err != nil {
		t.Fatal(err)
	}
	kept := frontier.Entry{File: "a.example/p.html", SHA256: "x", Bytes: 4, ETag: `"e"`, LastModified: "yesterday"}

	e := kept
	o.Refused(&e, frontier.ReasonRobots)
	if e != kept || !o.Has(e.File) {
		t.Errorf("robots.txt reason: entry %+v, body there %v; want both untouched", e, o.Has(kept.File))
	}

	outside := filepath.Join(t.TempDir(), "outside.txt")
	os.WriteFile(outside, []byte("x"), 0o644)
	far := frontier.Entry{File: "../" + filepath.Base(filepath.Dir(outside)) + "/outside.txt"}
	o.Refused(&far, frontier.UsageRefused("train-ai refused by x"))
	if _, err := os.Stat(outside); err != nil {
		t.Errorf("a name outside the folder was removed: %v", err)
	}

	o.Refused(&e, frontier.UsageRefused("train-ai refused by x"))
	if e.File != "" || e.SHA256 != "" || e.Bytes != 0 || e.ETag != "" || e.LastModified != "" || o.Has(kept.File) {
		t.Errorf("usage refusal: entry %+v, body there %v; want no body, no validators", e, o.Has(kept.File))
	}
}
