package output

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// MergeJournals keeps, per URL, the newest line of the old manifest and
// the journals (later runs win), drops a half line a crash left, keeps the
// lines of URLs no journal has, and renames each journal the run's own.
func TestMergeJournals(t *testing.T) {
	t.Parallel()
	line := func(url, file string) string { return `{"url":"` + url + `","status":200,"file":"` + file + `"}` }
	tests := []struct {
		name     string
		manifest string            // "" for none
		journals map[string]string // run id → journal
		ids      []int64
		want     []string
	}{
		{"first run", "", map[string]string{"1": line("a", "a1") + "\n" + line("b", "b1") + "\n"}, []int64{1},
			[]string{line("a", "a1"), line("b", "b1")}},
		{"a run that fetched nothing keeps the manifest", line("a", "a1") + "\n", map[string]string{"2": ""}, []int64{2},
			[]string{line("a", "a1")}},
		{"a newer line replaces the old one", line("a", "a1") + "\n" + line("b", "b1") + "\n",
			map[string]string{"3": line("b", "b3") + "\n"}, []int64{3},
			[]string{line("a", "a1"), line("b", "b3")}},
		{"a crashed run's half line is dropped, the later run wins", line("a", "a1") + "\n",
			map[string]string{"4": line("b", "b4") + "\n" + line("c", "c4") + "\n" + `{"url":"d","sta`, "5": line("c", "c5") + "\n"},
			[]int64{4, 5}, []string{line("a", "a1"), line("b", "b4"), line("c", "c5")}},
		{"an unreadable manifest line is dropped", "garbage\n" + line("a", "a1") + "\n", map[string]string{"6": ""}, []int64{6},
			[]string{line("a", "a1")}},
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
			pending, err := o.PendingJournals(0)
			if err != nil || len(pending) != len(tt.ids) {
				t.Fatalf("PendingJournals = %v, %v; want %v", pending, err, tt.ids)
			}
			if err := o.MergeJournals(pending); err != nil {
				t.Fatalf("MergeJournals: %v", err)
			}
			got, _ := os.ReadFile(filepath.Join(dir, ManifestName))
			if want := strings.Join(tt.want, "\n") + "\n"; string(got) != want {
				t.Errorf("manifest.jsonl =\n%s\nwant\n%s", got, want)
			}
			for id, text := range tt.journals {
				kept, err := os.ReadFile(filepath.Join(dir, runsDir, id, ManifestName))
				if err != nil || string(kept) != text {
					t.Errorf("runs/%s/manifest.jsonl = %q, %v; want the journal", id, kept, err)
				}
			}
			if left, _ := o.PendingJournals(0); len(left) != 0 {
				t.Errorf("journals still pending after the merge: %v", left)
			}
		})
	}
}

func mustWrite(t *testing.T, name, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
