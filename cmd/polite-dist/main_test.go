package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const epoch = "1767366245" // 2026-01-02T15:04:05Z

// release makes a tree like make dist's stage: a binary, man pages,
// completions and a README, with the given file times and modes.
func release(t *testing.T, dir string, at time.Time, plainMode fs.FileMode) {
	t.Helper()
	files := map[string]fs.FileMode{
		"bin/polite": 0o755, "man/man1/polite.1": plainMode, "man/man1/polite-crawl.1": plainMode,
		"completions/_polite": plainMode, "completions/polite.bash": plainMode, "README.md": plainMode,
	}
	for name, mode := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("content of "+name+"\n"), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil { // whatever the umask
			t.Fatal(err)
		}
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
}

func specs(dir string) []string {
	return []string{"polite=" + filepath.Join(dir, "bin/polite"), "man=" + filepath.Join(dir, "man"),
		"completions=" + filepath.Join(dir, "completions"), "README.md=" + filepath.Join(dir, "README.md")}
}

func pack(t *testing.T, out, src string) []byte {
	t.Helper()
	var stderr bytes.Buffer
	args := append([]string{"archive", "-o", out, "-root", "polite_1.0_linux_amd64"}, specs(src)...)
	if code := run(args, epoch, &stderr); code != 0 {
		t.Fatalf("archive: exit %d: %s", code, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// want is what every archive of release holds, in this order.
var want = []struct {
	name string
	mode fs.FileMode
}{
	{"polite_1.0_linux_amd64/", 0o755},
	{"polite_1.0_linux_amd64/README.md", 0o644},
	{"polite_1.0_linux_amd64/completions/", 0o755},
	{"polite_1.0_linux_amd64/completions/_polite", 0o644},
	{"polite_1.0_linux_amd64/completions/polite.bash", 0o644},
	{"polite_1.0_linux_amd64/man/", 0o755},
	{"polite_1.0_linux_amd64/man/man1/", 0o755},
	{"polite_1.0_linux_amd64/man/man1/polite-crawl.1", 0o644},
	{"polite_1.0_linux_amd64/man/man1/polite.1", 0o644},
	{"polite_1.0_linux_amd64/polite", 0o755},
}

// TestArchivesAreReproducible: two trees with the same contents but other
// file times and modes give archives of the same bytes, whose entries are
// sorted, owned by 0, dated SOURCE_DATE_EPOCH, with normalised modes, and
// a gzip header with no time.
func TestArchivesAreReproducible(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	release(t, a, time.Date(2030, 5, 6, 7, 8, 9, 0, time.UTC), 0o644)
	release(t, b, time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC), 0o600)
	at := time.Unix(1767366245, 0).UTC()
	for _, ext := range []string{".tar.gz", ".zip"} {
		t.Run(ext, func(t *testing.T) {
			out := t.TempDir()
			first := pack(t, filepath.Join(out, "one"+ext), a)
			second := pack(t, filepath.Join(out, "two"+ext), b)
			if !bytes.Equal(first, second) {
				t.Fatalf("two archives of the same files differ (%d and %d bytes)", len(first), len(second))
			}
			var got []string
			if ext == ".zip" {
				got = zipEntries(t, first, at)
			} else {
				got = tarEntries(t, first, at)
			}
			var w []string
			for _, e := range want {
				w = append(w, fmt.Sprintf("%s %v", e.name, e.mode))
			}
			if strings.Join(got, "\n") != strings.Join(w, "\n") {
				t.Errorf("entries:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(w, "\n"))
			}
			if leftover, _ := filepath.Glob(filepath.Join(out, ".*")); len(leftover) > 0 {
				t.Errorf("temporary files left: %v", leftover)
			}
		})
	}
}

// tarEntries checks a .tar.gz's headers and contents and lists its
// entries as "NAME MODE".
func tarEntries(t *testing.T, b []byte, at time.Time) []string {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if !zr.ModTime.IsZero() || zr.Name != "" || zr.Comment != "" {
		t.Errorf("gzip header: time %v, name %q, comment %q; want none", zr.ModTime, zr.Name, zr.Comment)
	}
	tr := tar.NewReader(zr)
	var got []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" {
			t.Errorf("%s: owner %d:%d (%q:%q), want 0:0 with no names", h.Name, h.Uid, h.Gid, h.Uname, h.Gname)
		}
		if !h.ModTime.Equal(at) {
			t.Errorf("%s: time %v, want %v", h.Name, h.ModTime, at)
		}
		checkContent(t, h.Name, tr)
		got = append(got, fmt.Sprintf("%s %v", h.Name, h.FileInfo().Mode().Perm()))
	}
	return got
}

func zipEntries(t *testing.T, b []byte, at time.Time) []string {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range zr.File {
		if !f.Modified.Equal(at) {
			t.Errorf("%s: time %v, want %v", f.Name, f.Modified, at)
		}
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		checkContent(t, f.Name, r)
		r.Close()
		got = append(got, fmt.Sprintf("%s %v", f.Name, f.Mode().Perm()))
	}
	return got
}

// checkContent: a file holds what release wrote into it.
func checkContent(t *testing.T, name string, r io.Reader) {
	t.Helper()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(name, "/") {
		if len(b) > 0 {
			t.Errorf("folder %s has content", name)
		}
		return
	}
	rel := strings.TrimPrefix(name, "polite_1.0_linux_amd64/")
	if rel == "polite" {
		rel = "bin/polite"
	}
	if w := "content of " + rel + "\n"; string(b) != w {
		t.Errorf("%s holds %q, want %q", name, b, w)
	}
}

// TestSums writes a SHA256SUMS that sha256sum -c accepts.
func TestSums(t *testing.T) {
	dir := t.TempDir()
	var args []string
	for _, name := range []string{"polite_1_windows_arm64.zip", "polite_1_darwin_amd64.tar.gz"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, p)
	}
	var stderr bytes.Buffer
	if code := run(append([]string{"sums", "-o", filepath.Join(dir, "SHA256SUMS")}, args...), "", &stderr); code != 0 {
		t.Fatalf("sums: exit %d: %s", code, stderr.String())
	}
	got, err := os.ReadFile(filepath.Join(dir, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	sum := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
	w := sum("polite_1_darwin_amd64.tar.gz") + "  polite_1_darwin_amd64.tar.gz\n" +
		sum("polite_1_windows_arm64.zip") + "  polite_1_windows_arm64.zip\n"
	if string(got) != w {
		t.Errorf("SHA256SUMS:\n%s\nwant:\n%s", got, w)
	}
	if _, err := exec.LookPath("sha256sum"); err != nil {
		return // the bytes are checked above; sha256sum is coreutils'
	}
	check := exec.Command("sha256sum", "-c", "SHA256SUMS")
	check.Dir = dir
	if out, err := check.CombinedOutput(); err != nil {
		t.Errorf("sha256sum -c: %v\n%s", err, out)
	}
}

// TestBadInput: each mistake is named, and no archive is left behind.
func TestBadInput(t *testing.T) {
	src := t.TempDir()
	release(t, src, time.Now(), 0o644)
	out := t.TempDir()
	tests := []struct {
		name  string
		args  []string
		epoch string
		code  int
		say   string
	}{
		{"no SOURCE_DATE_EPOCH", []string{"archive", "-o", filepath.Join(out, "a.tar.gz"), "README.md=" + filepath.Join(src, "README.md")}, "", 1, "SOURCE_DATE_EPOCH is not set"},
		{"SOURCE_DATE_EPOCH no number", []string{"archive", "-o", filepath.Join(out, "a.tar.gz"), "README.md=" + filepath.Join(src, "README.md")}, "yesterday", 1, `SOURCE_DATE_EPOCH="yesterday"`},
		{"unknown format", []string{"archive", "-o", filepath.Join(out, "a.rar"), "README.md=" + filepath.Join(src, "README.md")}, epoch, 1, "must end in .tar.gz or .zip"},
		{"a name out of the archive", []string{"archive", "-o", filepath.Join(out, "a.zip"), "../x=" + filepath.Join(src, "README.md")}, epoch, 1, "without . or .. parts"},
		{"no =", []string{"archive", "-o", filepath.Join(out, "a.zip"), filepath.Join(src, "README.md")}, epoch, 1, "want NAME=PATH"},
		{"a missing file", []string{"archive", "-o", filepath.Join(out, "a.zip"), "x=" + filepath.Join(src, "nope")}, epoch, 1, filepath.Join(src, "nope")},
		{"one name twice", []string{"archive", "-o", filepath.Join(out, "a.zip"), "x=" + filepath.Join(src, "README.md"), "x=" + filepath.Join(src, "bin/polite")}, epoch, 1, "x: named twice"},
		{"unknown command", []string{"pack", "-o", "x", "y"}, epoch, 2, `unknown command "pack"`},
		{"no -o", []string{"sums", "x"}, epoch, 2, "usage:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			code := run(tt.args, tt.epoch, &stderr)
			if code != tt.code || !strings.Contains(stderr.String(), tt.say) {
				t.Errorf("exit %d, stderr %q; want exit %d saying %q", code, stderr.String(), tt.code, tt.say)
			}
			if left, _ := os.ReadDir(out); len(left) > 0 {
				t.Errorf("left in the output folder: %v", left)
			}
		})
	}
}
