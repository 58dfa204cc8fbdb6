package warc

import (
	"slices"
	"strings"
	"testing"
)

// A metadata record stands in for content polite did not keep: it names
// the URL and says why, and the warcinfo names the crawl's purpose.
func TestMetadataRecord(t *testing.T) {
	dir := t.TempDir()
	opts := testOptions()
	opts.Info.Purpose = "train-ai,research"
	w := mustOpen(t, dir, opts)
	url := "http://127.0.0.1:8080/kept-out"
	if err := w.WriteMetadata(url, t0, [][2]string{{"status", "200"}, {"not-kept", "excluded by usage: train-ai refused by Content-Usage: train-ai=n"}}); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteMetadata("http://x/a b", t0, nil); err == nil {
		t.Error("a URL with a space was written")
	}
	if err := w.WriteMetadata(url, t0, [][2]string{{"not-kept", "a\r\nWARC-Type: response"}}); err == nil {
		t.Error("a field with a line break was written")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	recs := readWARC(t, warcFiles(t, dir)[0])
	if got, want := types(recs), []string{"warcinfo", "metadata"}; !slices.Equal(got, want) {
		t.Fatalf("record types %q, want %q", got, want)
	}
	if !strings.Contains(string(recs[0].block), "purpose: train-ai,research\r\n") {
		t.Errorf("warcinfo %q names no purpose", recs[0].block)
	}
	m := recs[1]
	for _, c := range []struct{ name, got, want string }{
		{"target", m.get("WARC-Target-URI"), url},
		{"type", m.get("Content-Type"), "application/warc-fields"},
		{"date", m.get("WARC-Date"), "2026-11-30T12:00:00Z"},
		{"block", string(m.block), "status: 200\r\nnot-kept: excluded by usage: train-ai refused by Content-Usage: train-ai=n\r\n"},
	} {
		if c.got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, c.got, c.want)
		}
	}
}
