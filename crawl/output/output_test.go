package output

import (
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polite-crawler/polite/crawl/urls"
)

func TestBodyPathReservedHostNames(t *testing.T) {
	t.Parallel()
	tests := []struct{ url, wantDir string }{
		{"http://con/", "_con"},
		{"http://nul.example/", "_nul.example"},
		{"http://COM1/", "_com1"},
		{"http://com1:8080/", "com1:8080"},
		{"http://lpt9.example.org/", "_lpt9.example.org"},
		{"http://aux/a", "_aux"},
		{"http://console.example/", "console.example"},
		{"http://com10.example/", "com10.example"},
		{"http://example.org/", "example.org"},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			p := BodyPath(mustURLOf(t, tt.url), "")
			if dir, _, _ := strings.Cut(p, "/"); dir != tt.wantDir {
				t.Errorf("BodyPath(%s) = %q, want folder %q", tt.url, p, tt.wantDir)
			}
		})
	}
}

// plant prepares an output folder with something hostile in it and an
// outside folder it points at, and returns the Dir and the outside.
func plant(t *testing.T, setup func(t *testing.T, out, outside string)) (*Dir, string) {
	t.Helper()
	base := t.TempDir()
	out, outside := filepath.Join(base, "out"), filepath.Join(base, "outside")
	for _, d := range []string{out, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "victim"), []byte("untouched"), 0o644); err != nil {
		t.Fatal(err)
	}
	setup(t, out, outside)
	o, err := Open(out)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.Close() })
	return o, outside
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// TestOutDirWritesNothingOutside plants symlinks and files in the output
// folder where polite is about to write, and checks that nothing outside
// the folder changes: a write either lands inside, as a regular file, or
// fails with an error naming the file.
func TestOutDirWritesNothingOutside(t *testing.T) {
	t.Parallel()
	const rel = "example.org/page-0123456789ab.html"
	tests := []struct {
		name    string
		setup   func(t *testing.T, out, outside string)
		wantErr string // "" when the write must succeed inside the folder
	}{
		{name: "host folder is a symlink to outside", wantErr: "is not a folder",
			setup: func(t *testing.T, out, outside string) { symlink(t, outside, filepath.Join(out, "example.org")) }},
		{name: "host folder is a symlink inside", wantErr: "is not a folder",
			setup: func(t *testing.T, out, outside string) {
				os.Mkdir(filepath.Join(out, "elsewhere"), 0o755)
				symlink(t, "elsewhere", filepath.Join(out, "example.org"))
			}},
		{name: "host folder is a file", wantErr: "is not a folder",
			setup: func(t *testing.T, out, outside string) {
				os.WriteFile(filepath.Join(out, "example.org"), []byte("x"), 0o644)
			}},
		{name: "temporary name is a symlink to an outside file",
			setup: func(t *testing.T, out, outside string) {
				symlink(t, filepath.Join(outside, "victim"), filepath.Join(out, rel+".part"))
			}},
		{name: "final name is a symlink to an outside file",
			setup: func(t *testing.T, out, outside string) {
				symlink(t, filepath.Join(outside, "victim"), filepath.Join(out, rel))
			}},
		{name: "a stale temporary file of a killed run",
			setup: func(t *testing.T, out, outside string) {
				os.MkdirAll(filepath.Join(out, "example.org"), 0o755)
				os.WriteFile(filepath.Join(out, rel+".part"), []byte("half a bo"), 0o644)
			}},
		{name: "final name is a folder", wantErr: "write " + rel,
			setup: func(t *testing.T, out, outside string) { os.MkdirAll(filepath.Join(out, rel, "x"), 0o755) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, outside := plant(t, tt.setup)
			err := o.Write(rel, []byte("the body"))
			if b, _ := os.ReadFile(filepath.Join(outside, "victim")); string(b) != "untouched" {
				t.Errorf("the file outside the folder now holds %q", b)
			}
			if entries, _ := os.ReadDir(outside); len(entries) != 1 {
				t.Errorf("the outside folder holds %d entries, want only the victim", len(entries))
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("write: %v, want an error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("write: %v", err)
			}
			fi, err := os.Lstat(filepath.Join(o.dir, rel))
			if err != nil || !fi.Mode().IsRegular() {
				t.Fatalf("%s is %v (%v), want a regular file", rel, fi, err)
			}
			if b, _ := os.ReadFile(filepath.Join(o.dir, rel)); string(b) != "the body" {
				t.Errorf("%s holds %q, want the body", rel, b)
			}
			if _, err := os.Lstat(filepath.Join(o.dir, rel+".part")); !os.IsNotExist(err) {
				t.Errorf("the temporary file is left: %v", err)
			}
		})
	}
}

// TestOutDirManifestAndReportsDoNotFollowSymlinks: the manifest and the
// reports are created afresh, never through a link planted under their
// names.
func TestOutDirManifestAndReportsDoNotFollowSymlinks(t *testing.T) {
	t.Parallel()
	o, outside := plant(t, func(t *testing.T, out, outside string) {
		symlink(t, filepath.Join(outside, "victim"), filepath.Join(out, "manifest.jsonl"))
		symlink(t, filepath.Join(outside, "victim"), filepath.Join(out, "report.json.part"))
		os.WriteFile(filepath.Join(out, "inside"), []byte("a body"), 0o644)
		symlink(t, "inside", filepath.Join(out, "report.html"))
	})
	f, err := o.create("manifest.jsonl")
	if err != nil {
		t.Fatalf("create manifest: %v", err)
	}
	f.Write([]byte("{}\n"))
	f.Close()
	for _, name := range []string{"report.json", "report.html"} {
		if err := o.replace(name, func(w io.Writer) error {
			_, err := w.Write([]byte("report"))
			return err
		}); err != nil {
			t.Errorf("replace %s: %v", name, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "victim")); string(b) != "untouched" {
		t.Errorf("the file outside the folder now holds %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(o.dir, "inside")); string(b) != "a body" {
		t.Errorf("the file the report link pointed at now holds %q", b)
	}
	for _, name := range []string{"manifest.jsonl", "report.json", "report.html"} {
		if fi, err := os.Lstat(filepath.Join(o.dir, name)); err != nil || !fi.Mode().IsRegular() {
			t.Errorf("%s: %v %v, want a regular file", name, fi, err)
		}
	}
}

func TestOpenOutDirErrors(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Open(filepath.Join(file, "out"))
	if err == nil || !strings.Contains(err.Error(), "create output folder") || !strings.Contains(err.Error(), file) {
		t.Errorf("Open under a file: %v, want a create output folder error naming it", err)
	}
}

// A body keeps the extension of its URL's last segment, or else takes the
// one of its Content-Type; its folder reads as the host and port.
func TestBodyPathNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, url, ctype string
		wantDir, wantExt string
		wantPrefix       string
	}{
		{"pdf from the URL", "http://127.0.0.1:18081/files/report.pdf", "application/octet-stream", "127.0.0.1:18081", ".pdf", "files_report-"},
		{"json from the URL", "http://example.org/data.json", "text/plain", "example.org", ".json", "data-"},
		{"html from the type", "http://example.org/", "text/html; charset=utf-8", "example.org", ".html", "index-"},
		{"json from the type", "http://example.org/api/v1/items", "application/json", "example.org", ".json", "api_v1_items-"},
		{"pdf from the type", "http://example.org/download?id=3", "Application/PDF", "example.org", ".pdf", "download-"},
		{"unknown type, no extension", "http://example.org/blob", "application/x-unknown", "example.org", "", "blob-"},
		{"no type at all", "http://example.org/blob", "", "example.org", "", "blob-"},
		{"a dotted segment is no extension", "http://example.org/v1.2.3/", "text/html", "example.org", ".html", "v1.2.3-"},
		{"an escaped extension is none", "http://example.org/a.p%2Fdf", "text/plain", "example.org", ".txt", "a.p_2Fdf-"},
		{"a .part URL is not named like a temporary file", "http://example.org/x.part", "text/html", "example.org", ".html", "x.part-"},
		{"too long an extension", "http://example.org/a.verylongext", "", "example.org", "", "a.verylongext-"},
		{"ipv6 host", "http://[::1]:8080/a.txt", "", "___1__8080", ".txt", "a-"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := BodyPath(mustURLOf(t, tt.url), tt.ctype)
			dir, name, _ := strings.Cut(p, "/")
			if dir != tt.wantDir {
				t.Errorf("BodyPath(%s) = %q, want folder %q", tt.url, p, tt.wantDir)
			}
			// NAME-HASH.EXT: 12 hex digits between the name and the extension.
			if !strings.HasPrefix(name, tt.wantPrefix) || !strings.HasSuffix(name, tt.wantExt) ||
				len(name) != len(tt.wantPrefix)+12+len(tt.wantExt) {
				t.Errorf("BodyPath(%s) = %q, want %sHASH%s", tt.url, p, tt.wantPrefix, tt.wantExt)
			}
		})
	}
}

func TestBodyPathStaysInsideAndIsUnique(t *testing.T) {
	t.Parallel()
	hostile := []string{
		"http://example.org/../../etc/passwd",
		"http://example.org/%2e%2e/%2e%2e/etc/passwd",
		"http://example.org/..%2f..%2fetc%2fpasswd",
		"http://example.org/a\\..\\..\\b",
		"http://example.org//absolute//path",
		"http://example.org/CON",
		"http://example.org/nul.txt",
		"http://example.org/" + strings.Repeat("x", 5000),
		"http://example.org/.hidden",
		"http://example.org/a%00b",
		"http://example.org/?q=../../x",
		"http://[::1]:8080/a",
		"http://example.org/",
		"http://example.org",
	}
	seen := map[string]string{}
	for _, raw := range hostile {
		u, err := urls.Parse(raw)
		if err != nil {
			t.Fatalf("Parse(%q): %v", raw, err)
		}
		p := BodyPath(u, "text/html")
		parts := strings.Split(p, "/")
		if len(parts) != 2 {
			t.Errorf("BodyPath(%q) = %q, want HOST/NAME", raw, p)
		}
		for _, part := range parts {
			if part == "" || strings.HasPrefix(part, ".") || len(part) > 120 || strings.Trim(part, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-:") != "" || strings.Contains(part, ":") && part != dirOf(p) {
				t.Errorf("BodyPath(%q) = %q: unsafe part %q", raw, p, part)
			}
		}
		if prev, dup := seen[p]; dup && prev != u.String() {
			t.Errorf("BodyPath(%q) = BodyPath(%q) = %q", raw, prev, p)
		}
		seen[p] = u.String()
	}
}

func mustURLOf(t testing.TB, raw string) *url.URL {
	t.Helper()
	u, err := urls.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
