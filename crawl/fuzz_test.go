package crawl

import (
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/urls"
)

// The seed corpora of these targets live in testdata/fuzz/FuzzXxx and run
// as ordinary tests; `make fuzz` runs each target for a while.

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

func FuzzParseRateLimit(f *testing.F) {
	f.Add(`"default";r=5;t=30`, `"default";q=10;w=60`, "10", "5", "30", "NaN", "-1", "1700000000", int64(1700000000))
	f.Fuzz(func(t *testing.T, rl, policy, limit, remaining, reset, xlimit, xremaining, xreset string, nowUnix int64) {
		h := http.Header{}
		for k, v := range map[string]string{
			"RateLimit": rl, "RateLimit-Policy": policy,
			"RateLimit-Limit": limit, "RateLimit-Remaining": remaining, "RateLimit-Reset": reset,
			"X-RateLimit-Limit": xlimit, "X-RateLimit-Remaining": xremaining, "X-RateLimit-Reset": xreset,
		} {
			if v != "" {
				h.Set(k, v)
			}
		}
		q, ok := ParseRateLimit(h, time.Unix(nowUnix, 0))
		if ok != (q != nil) {
			t.Fatalf("ok %v with quota %+v", ok, q)
		}
		if !ok {
			return
		}
		if q.Remaining < 0 || q.Limit < 0 || q.Reset <= 0 || q.Reset > maxQuotaReset+time.Second {
			t.Errorf("quota %+v out of range (reset at most %s)", *q, maxQuotaReset)
		}
		if q.Limit > 0 && q.Limit < q.Remaining {
			t.Errorf("quota %+v: limit below remaining", *q)
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
