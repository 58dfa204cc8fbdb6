package crawl

import (
	"errors"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polite-crawler/polite/crawl/urls"
)

// The seed corpora of these targets live in testdata/fuzz/FuzzXxx and run
// as ordinary tests; `make fuzz` runs each target for a while.

func FuzzReadSeeds(f *testing.F) {
	f.Add([]byte("https://example.org/a 5\n# comment\n\nftp://x/\n"), false)
	f.Fuzz(func(t *testing.T, data []byte, _ bool) { // the flag of older corpora: both ways are checked
		seeds, sr := readAll("f", string(data))
		n, err := CheckSeeds("f", strings.NewReader(string(data)))
		var se *SeedError
		switch {
		case err == nil && (n == 0 || n != len(seeds) || sr.RejectedCount() != 0):
			t.Fatalf("CheckSeeds = %d, nil; the reader read %d seeds and skipped %d lines", n, len(seeds), sr.RejectedCount())
		case err != nil && !errors.Is(err, ErrNoSeeds) && !errors.As(err, &se):
			t.Fatalf("unexpected error %v", err)
		case errors.As(err, &se) && (sr.RejectedCount() == 0 || se.Rejected != sr.Rejected()[0]):
			t.Fatalf("CheckSeeds failed on %+v, the reader's first skipped line is %v", se.Rejected, sr.Rejected())
		}
		lines := strings.Count(string(data), "\n") + 1
		last := 0
		for _, s := range seeds {
			if again, err := urls.Normalize(s.URL); err != nil || again != s.URL {
				t.Errorf("seed %q is not normalised: %q, %v", s.URL, again, err)
			}
			if s.Line <= last || s.Line > lines {
				t.Errorf("seed %q at line %d after line %d, file of %d lines", s.URL, s.Line, last, lines)
			}
			last = s.Line
		}
		for _, r := range sr.Rejected() {
			if r.Reason == "" || r.Line < 1 || r.Line > lines || len(r.Text) > 200+len("…") {
				t.Errorf("rejected line %+v", r)
			}
		}
	})
}

// checkNormal checks what every normalised URL must be.
// checkBodyPath checks that a body path is HOST/NAME in the safe alphabet,
// local, and not a device name.
func checkBodyPath(t *testing.T, u *url.URL) {
	t.Helper()
	p := bodyPath(u, "text/html")
	dir, name, ok := strings.Cut(p, "/")
	if !ok || strings.Contains(name, "/") || !filepath.IsLocal(p) {
		t.Fatalf("bodyPath(%q) = %q, want HOST/NAME inside the folder", u, p)
	}
	for _, part := range []string{dir, name} {
		if part == "" || part[0] == '.' || len(part) > 120 ||
			strings.Trim(part, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-:") != "" || strings.Contains(part, ":") && part != dirOf(p) {
			t.Errorf("bodyPath(%q) = %q: unsafe part %q", u, p, part)
		}
	}
	if reservedName(dir) {
		t.Errorf("bodyPath(%q) = %q: folder is a reserved device name", u, p)
	}
	if strings.HasSuffix(name, ".part") {
		t.Errorf("bodyPath(%q) = %q: a body named like a temporary file", u, p)
	}
}

func FuzzBodyPath(f *testing.F) {
	f.Add("http://example.org/../../etc/passwd")
	f.Fuzz(func(t *testing.T, raw string) {
		// Whatever url.Parse accepts: bodyPath must be safe even for a URL
		// that was never normalised.
		if u, err := url.Parse(raw); err == nil {
			checkBodyPath(t, u)
		}
		if u, err := urls.Parse(raw); err == nil {
			checkBodyPath(t, u)
		}
	})
}

// TestNormalizeFuzzFindings keeps what fuzzing found: hosts that encode
// but do not decode, or come out empty, and URLs too long to keep.
// dirOf is the host folder of a body path: the only part that may hold ":".
func dirOf(p string) string {
	d, _, _ := strings.Cut(p, "/")
	return d
}
