package output

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// MergeJournals keeps, per URL, the newest line of the old manifest and
// the journals (later runs win), drops a half line a crash left, keeps the
// lines of URLs no journal has, and renames each journal the run's own.
func TestMergeJournals(t *testing.T) {
	t.Parallel()
	line := func(url, file string) string { return `{"url":"` + url + `","status":200,"file":"` + file + `"}` }
	long := func(name string) string { return "https://example.org/" + strings.Repeat(name, 150<<10) }
	tests := []struct {
		name     string
		manifest string            // "" for none
		journals map[string]string // run id → journal
		runs     []string          // the pending journals, oldest first
		want     []string
	}{
		{"first run", "", map[string]string{"1": line("a", "a1") + "\n" + line("b", "b1") + "\n"}, []string{"1"},
			[]string{line("a", "a1"), line("b", "b1")}},
		{"a run that fetched nothing keeps the manifest", line("a", "a1") + "\n", map[string]string{"2": ""}, []string{"2"},
			[]string{line("a", "a1")}},
		{"a newer line replaces the old one", line("a", "a1") + "\n" + line("b", "b1") + "\n",
			map[string]string{"3": line("b", "b3") + "\n"}, []string{"3"},
			[]string{line("a", "a1"), line("b", "b3")}},
		{"a crashed run's half line is dropped, the later run wins", line("a", "a1") + "\n",
			map[string]string{"4": line("b", "b4") + "\n" + line("c", "c4") + "\n" + `{"url":"d","sta`, "5": line("c", "c5") + "\n"},
			[]string{"4", "5"}, []string{line("a", "a1"), line("b", "b4"), line("c", "c5")}},
		{"two databases' runs of one number stay apart, an older polite's folder first", "",
			map[string]string{"3": line("a", "a3") + "\n", "0f0f0f0f-4": line("a", "a4") + "\n", "1e1e1e1e-4": line("b", "b4") + "\n",
				"notes": "", "x-0": ""}, []string{"3", "0f0f0f0f-4", "1e1e1e1e-4"},
			[]string{line("a", "a4"), line("b", "b4")}},
		{"an unreadable manifest line is dropped", "garbage\n" + line("a", "a1") + "\n", map[string]string{"6": ""}, []string{"6"},
			[]string{line("a", "a1")}},
		{"a URL twice in one journal keeps its later line", line("a", "a1") + "\n",
			map[string]string{"7": line("a", "a7") + "\n" + line("b", "b7") + "\n" + line("a", "a7b") + "\n"}, []string{"7"},
			[]string{line("b", "b7"), line("a", "a7b")}},
		{"lines longer than the reader's buffer are read whole", line(long("m"), "m1") + "\n" + line("a", "a1") + "\n",
			map[string]string{"8": line(long("j"), "j8") + "\n" + line("a", "a8") + "\n" + line(long("m"), "m8") + "\n"}, []string{"8"},
			[]string{line(long("j"), "j8"), line("a", "a8"), line(long("m"), "m8")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.manifest != "" {
				mustWrite(t, filepath.Join(dir, ManifestName), tt.manifest)
			}
			for id, text := range tt.journals {
				mustWrite(t, filepath.Join(dir, runsDir, id, pendingName), text)
			}
			o, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer o.Close()
			pending, err := o.PendingJournals("")
			if err != nil || !slices.Equal(pending, tt.runs) {
				t.Fatalf("PendingJournals = %v, %v; want %v", pending, err, tt.runs)
			}
			if err := o.MergeJournals(pending); err != nil {
				t.Fatalf("MergeJournals: %v", err)
			}
			got, _ := os.ReadFile(filepath.Join(dir, ManifestName))
			if want := strings.Join(tt.want, "\n") + "\n"; string(got) != want {
				t.Errorf("manifest.jsonl =\n%s\nwant\n%s", got, want)
			}
			for _, id := range tt.runs {
				text := tt.journals[id]
				kept, err := os.ReadFile(filepath.Join(dir, runsDir, id, ManifestName))
				if err != nil || string(kept) != text {
					t.Errorf("runs/%s/manifest.jsonl = %q, %v; want the journal", id, kept, err)
				}
			}
			if left, _ := o.PendingJournals(""); len(left) != 0 {
				t.Errorf("journals still pending after the merge: %v", left)
			}
		})
	}
}

func mustWrite(t testing.TB, name, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// decodedURL is lineURL the slow way: the line decoded whole.
func decodedURL(line []byte) (urlKey, bool) {
	var m struct {
		URL string `json:"url"`
	}
	if json.Unmarshal(line, &m) != nil || m.URL == "" {
		return urlKey{}, false
	}
	sum := sha256.Sum256([]byte(m.URL))
	return urlKey(sum[:16]), true
}

// TestLineURLReadsWhatDecodingReads: the quick read of a line polite
// wrote finds the URL decoding finds; any other line, a half line or one
// whose URL has escapes, is decoded (or refused) as before.
func TestLineURLReadsWhatDecodingReads(t *testing.T) {
	var lines [][]byte
	for _, m := range []ManifestLine{
		{Job: "nightly", Run: 7, URL: "https://example.org/a", Status: 200},
		{Job: `odd "job" \ name`, Run: 12345, URL: "https://example.org/b?x=1&y=<2>", Status: 404},
		{Job: "", Run: 0, URL: "https://例え.jp/パス", Status: 200},
		{Job: "j", Run: 1, URL: "", Status: 0},
	} {
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, b, b[:len(b)-1], b[:len(b)/2])
	}
	lines = append(lines,
		[]byte(`{"url":"https://example.org/first","job":"x","run":1}`),
		[]byte(`{"job":"x","run":1,"url":"https://example.org/\u0061"}`),
		[]byte(`{"job":"x","run":1,"url":"https://example.org/a"} trailing`),
		[]byte(`{"job":"x","run":-1,"url":"https://example.org/a"}`),
		[]byte(`{"job":"x\"","run":1,"url":"https://example.org/a"}`),
		[]byte(`not json`), []byte(`{}`), []byte(`{"job":"`))
	for _, line := range lines {
		got, gok := lineURL(line)
		want, wok := decodedURL(line)
		if got != want || gok != wok {
			t.Errorf("lineURL(%s) = %x, %v; decoding reads %x, %v", line, got, gok, want, wok)
		}
	}
}

// BenchmarkLineURL reads the URL of a manifest line as a crawl writes it.
func BenchmarkLineURL(b *testing.B) {
	line, err := json.Marshal(ManifestLine{Job: "nightly", Run: 42, URL: "https://example.org/docs/page/17", Status: 200,
		File: "example.org/docs_page_17.html", SHA256: strings.Repeat("ab", 32), Bytes: 18340,
		ContentType: "text/html; charset=utf-8", FetchedAt: "2026-12-03T13:58:18.256123456Z", Attempts: 1})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, ok := lineURL(line); !ok {
			b.Fatal("no URL")
		}
	}
}

// BenchmarkMergeJournals merges a run's journal of 4,000 lines into a
// manifest of 40,000 (a new output folder: none), as a crawl's end does.
func BenchmarkMergeJournals(b *testing.B) {
	for _, old := range []int{0, 40000} {
		b.Run(fmt.Sprintf("manifest=%d", old), func(b *testing.B) {
			dir := b.TempDir()
			manifest := manifestLines(b, 0, old)
			journal := manifestLines(b, old-2000, 4000) // half of it in the manifest
			o, err := Open(dir)
			if err != nil {
				b.Fatal(err)
			}
			defer o.Close()
			run := 0
			for b.Loop() {
				b.StopTimer()
				run++
				id := strconv.Itoa(run)
				mustWrite(b, filepath.Join(dir, ManifestName), manifest)
				mustWrite(b, filepath.Join(dir, runsDir, id, pendingName), journal)
				b.StartTimer()
				if err := o.MergeJournals([]string{id}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// manifestLines is n manifest lines as a crawl writes them, of pages
// from to from+n.
func manifestLines(b *testing.B, from, n int) string {
	var s strings.Builder
	for i := from; i < from+n; i++ {
		line, err := json.Marshal(ManifestLine{Job: "nightly", Run: 42, URL: fmt.Sprintf("https://example.org/docs/page/%d", i),
			Status: 200, File: fmt.Sprintf("example.org/docs_page_%d.html", i), SHA256: strings.Repeat("ab", 32), Bytes: 18340,
			ContentType: "text/html; charset=utf-8", FetchedAt: "2026-12-03T13:58:18.256123456Z", Attempts: 1})
		if err != nil {
			b.Fatal(err)
		}
		s.Write(line)
		s.WriteByte('\n')
	}
	return s.String()
}
