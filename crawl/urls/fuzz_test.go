package urls_test

import (
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polite-crawler/polite/crawl/output"
	"github.com/polite-crawler/polite/crawl/urls"
)

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
	if len(s) > urls.MaxBytes {
		t.Errorf("normalised URL of %d bytes, over %d", len(s), urls.MaxBytes)
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f {
			t.Errorf("normalised %q has byte %#x at %d", s, c, i)
			break
		}
	}
	if again, err := urls.Normalize(s); err != nil || again != s {
		t.Errorf("Normalize is not idempotent: %q -> %q (%v)", s, again, err)
	}
	checkBodyPath(t, u)
}

// checkBodyPath checks that the body path output.BodyPath makes for u is
// HOST/NAME in the safe alphabet, local, and not a device name.
func checkBodyPath(t *testing.T, u *url.URL) {
	t.Helper()
	p := output.BodyPath(u, "text/html")
	dir, name, ok := strings.Cut(p, "/")
	if !ok || strings.Contains(name, "/") || !filepath.IsLocal(p) {
		t.Fatalf("BodyPath(%q) = %q, want HOST/NAME inside the folder", u, p)
	}
	for _, part := range []string{dir, name} {
		if part == "" || part[0] == '.' || len(part) > 120 ||
			strings.Trim(part, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-:") != "" || strings.Contains(part, ":") && part != dir {
			t.Errorf("BodyPath(%q) = %q: unsafe part %q", u, p, part)
		}
	}
	if deviceName(dir) {
		t.Errorf("BodyPath(%q) = %q: folder is a reserved device name", u, p)
	}
	if strings.HasSuffix(name, ".part") {
		t.Errorf("BodyPath(%q) = %q: a body named like a temporary file", u, p)
	}
}

// deviceName reports whether a folder name is a device name on Windows
// (CON, PRN, AUX, NUL, COM0-9, LPT0-9, with or without an extension).
func deviceName(name string) bool {
	base, _, _ := strings.Cut(strings.ToUpper(name), ".")
	switch base {
	case "CON", "PRN", "AUX", "NUL":
		return true
	}
	return len(base) == 4 && (strings.HasPrefix(base, "COM") || strings.HasPrefix(base, "LPT")) &&
		base[3] >= '0' && base[3] <= '9'
}

func FuzzNormalize(f *testing.F) {
	f.Add("HTTP://Example.ORG:80/a/./b/../c?q=%7e#frag")
	f.Fuzz(func(t *testing.T, raw string) {
		s, err := urls.Normalize(raw)
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
		b, err := urls.Parse(base)
		if err != nil {
			b = urls.Must("http://example.org/")
		}
		links := urls.Links(body, b, nil)
		if len(links) > urls.MaxLinks {
			t.Errorf("%d links, over %d", len(links), urls.MaxLinks)
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
		{"long URL", "http://example.org/" + strings.Repeat("a", urls.MaxBytes), "longer than"},
		{"long once encoded", "http://example.org/" + strings.Repeat("é", urls.MaxBytes/4), "once normalised"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := urls.Normalize(tt.in)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Normalize(%q) err = %v, want one containing %q", urls.Clip(tt.in, 40), err, tt.want)
			}
		})
	}
	for in, want := range map[string]string{"http://0../": "http://0.0.0.0/", "http://example.org../x": "http://example.org/x"} {
		if got, err := urls.Normalize(in); err != nil || got != want {
			t.Errorf("Normalize(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}
