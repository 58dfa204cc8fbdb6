package output

import (
	"os"
	"path/filepath"
	"slices"
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

func mustWrite(t *testing.T, name, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
