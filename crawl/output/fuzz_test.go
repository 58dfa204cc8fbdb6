package output

import (
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polite-crawler/polite/crawl/urls"
)

// The seed corpus of FuzzBodyPath lives in testdata/fuzz/FuzzBodyPath and
// runs as an ordinary test; `make fuzz` runs the target for a while.

// checkBodyPath checks that a body path is HOST/NAME in the safe alphabet,
// local, and not a device name.
func checkBodyPath(t *testing.T, u *url.URL) {
	t.Helper()
	p := BodyPath(u, "text/html")
	dir, name, ok := strings.Cut(p, "/")
	if !ok || strings.Contains(name, "/") || !filepath.IsLocal(p) {
		t.Fatalf("BodyPath(%q) = %q, want HOST/NAME inside the folder", u, p)
	}
	for _, part := range []string{dir, name} {
		if part == "" || part[0] == '.' || len(part) > 120 ||
			strings.Trim(part, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-:") != "" || strings.Contains(part, ":") && part != dirOf(p) {
			t.Errorf("BodyPath(%q) = %q: unsafe part %q", u, p, part)
		}
	}
	if reservedName(dir) {
		t.Errorf("BodyPath(%q) = %q: folder is a reserved device name", u, p)
	}
	if strings.HasSuffix(name, ".part") {
		t.Errorf("BodyPath(%q) = %q: a body named like a temporary file", u, p)
	}
}

func FuzzBodyPath(f *testing.F) {
	f.Add("http://example.org/../../etc/passwd")
	f.Fuzz(func(t *testing.T, raw string) {
		// Whatever url.Parse accepts: BodyPath must be safe even for a URL
		// that was never normalised.
		if u, err := url.Parse(raw); err == nil {
			checkBodyPath(t, u)
		}
		if u, err := urls.Parse(raw); err == nil {
			checkBodyPath(t, u)
		}
	})
}

// dirOf is the host folder of a body path: the only part that may hold ":".
func dirOf(p string) string {
	d, _, _ := strings.Cut(p, "/")
	return d
}
