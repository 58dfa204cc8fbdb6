package crawl

import (
	"errors"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
			if again, err := Normalize(s.URL); err != nil || again != s.URL {
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
func checkNormal(t *testing.T, s string) {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatalf("normalised %q does not parse: %v", s, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.User != nil || u.Fragment != "" || u.Opaque != "" {
		t.Errorf("normalised %q: scheme %q host %q user %v fragment %q opaque %q", s, u.Scheme, u.Host, u.User, u.Fragment, u.Opaque)
	}
	if len(s) > maxURLBytes {
		t.Errorf("normalised URL of %d bytes, over %d", len(s), maxURLBytes)
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f {
			t.Errorf("normalised %q has byte %#x at %d", s, c, i)
			break
		}
	}
	if again, err := Normalize(s); err != nil || again != s {
		t.Errorf("Normalize is not idempotent: %q -> %q (%v)", s, again, err)
	}
	checkBodyPath(t, u)
}

func FuzzNormalize(f *testing.F) {
	f.Add("HTTP://Example.ORG:80/a/./b/../c?q=%7e#frag")
	f.Fuzz(func(t *testing.T, raw string) {
		s, err := Normalize(raw)
		if err != nil {
			if s != "" {
				t.Errorf("Normalize(%q) = %q with error %v", raw, s, err)
			}
			return
		}
		checkNormal(t, s)
	})
}

func FuzzExtractLinks(f *testing.F) {
	f.Add([]byte(`<base href="/b/"><a href="x">x</a><link rel=next href="//h.example/n">`), "http://example.org/dir/page")
	f.Fuzz(func(t *testing.T, body []byte, base string) {
		b, err := normalizeURL(base)
		if err != nil {
			b = mustURL("http://example.org/")
		}
		links := extractLinks(body, b, nil)
		if len(links) > maxLinks {
			t.Errorf("%d links, over %d", len(links), maxLinks)
		}
		seen := map[string]bool{}
		for _, l := range links {
			s := l.String()
			if seen[s] {
				t.Errorf("link %q twice", s)
			}
			seen[s] = true
			checkNormal(t, s)
		}
	})
}

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
		if u, err := normalizeURL(raw); err == nil {
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
func TestNormalizeFuzzFindings(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"host of dots", "HTTP://.", "no host"},
		{"host of several dots", "http://../", "no host"},
		{"empty punycode label", "http://Xn--/", "bad host name"},
		{"invalid UTF-8 host", "http://\xff\xfe.example/", "bad host name"},
		{"replacement characters", "http://\ufffd\ufffd.example/", "bad host name"},
		{"long URL", "http://example.org/" + strings.Repeat("a", maxURLBytes), "longer than"},
		{"long once encoded", "http://example.org/" + strings.Repeat("é", maxURLBytes/4), "once normalised"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Normalize(tt.in)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Normalize(%q) err = %v, want one containing %q", clip(tt.in, 40), err, tt.want)
			}
		})
	}
	for in, want := range map[string]string{"http://0../": "http://0.0.0.0/", "http://example.org../x": "http://example.org/x"} {
		if got, err := Normalize(in); err != nil || got != want {
			t.Errorf("Normalize(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

// dirOf is the host folder of a body path: the only part that may hold ":".
func dirOf(p string) string {
	d, _, _ := strings.Cut(p, "/")
	return d
}
