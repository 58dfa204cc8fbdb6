package warc

import (
	"os"
	"strings"
	"testing"
	"time"
)

// A WARC file left without its index (the disk filled as the index was
// written, or the run was killed) gets it from Reindex, read back from
// the records: byte for byte the index the writer wrote, revisits and
// every rotated file included. A file that has its index is left alone.
func TestReindexRebuildsTheIndexTheWriterWrote(t *testing.T) {
	dir := t.TempDir()
	opts := testOptions()
	opts.MaxSize = 2000
	w := mustOpen(t, dir, opts)
	var orig Capture
	for i := range 5 {
		c, err := w.WriteExchange(exchange("http://127.0.0.1:8080/p?n="+string(rune('0'+i))+"&x=y", t0.Add(time.Duration(i)*time.Second), 200, strings.Repeat("a", i*90)))
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			orig = c
		}
	}
	nm := exchange("http://127.0.0.1:8080/p?n=0&x=y", t0.Add(time.Minute), 304, "")
	if _, err := w.WriteRevisit(Revisit{Profile: NotModified, Exchange: nm, Ref: Ref{RecordID: orig.RecordID, URL: nm.URL, Date: orig.Date, PayloadDigest: orig.PayloadDigest}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	files := warcFiles(t, dir)
	if len(files) < 2 {
		t.Fatalf("%d files, want rotation", len(files))
	}
	want := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(indexPath(f))
		if err != nil {
			t.Fatal(err)
		}
		want[f] = b
	}
	for f, b := range want {
		if len(b) == 0 {
			t.Fatalf("%s: the writer wrote an empty index", f)
		}
	}
	if !strings.Contains(string(want[files[len(files)-1]]), "warc/revisit") {
		t.Fatalf("the last index holds no revisit:\n%s", want[files[len(files)-1]])
	}
	kept := files[0]
	for _, f := range files[1:] {
		if err := os.Remove(indexPath(f)); err != nil {
			t.Fatal(err)
		}
	}
	done, err := Reindex(dir)
	if err != nil || len(done) != len(files)-1 {
		t.Fatalf("Reindex = %v, %v; want the %d files without an index", done, err, len(files)-1)
	}
	for _, f := range files {
		got, err := os.ReadFile(indexPath(f))
		if err != nil || string(got) != string(want[f]) {
			t.Errorf("%s: index read back (%v):\n%s\nwant the writer's:\n%s", f, err, got, want[f])
		}
	}
	if done, err := Reindex(dir); err != nil || len(done) != 0 {
		t.Errorf("Reindex again = %v, %v; want nothing to do (%s kept its own)", done, err, kept)
	}
}
