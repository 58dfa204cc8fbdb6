package urls

import (
	"net/url"
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"scheme and host case", "HTTP://Example.ORG/Path", "http://example.org/Path"},
		{"default http port", "http://example.org:80/a", "http://example.org/a"},
		{"default https port", "https://example.org:443/a", "https://example.org/a"},
		{"other port kept", "https://example.org:8443/a", "https://example.org:8443/a"},
		{"empty path", "http://example.org", "http://example.org/"},
		{"fragment dropped", "http://example.org/a#top", "http://example.org/a"},
		{"dot segments", "http://example.org/a/./b/../c", "http://example.org/a/c"},
		{"dot segments above root", "http://example.org/../../a", "http://example.org/a"},
		{"encoded dots are dots", "http://example.org/a/%2e%2E/b", "http://example.org/b"},
		{"hex case", "http://example.org/a%2fb", "http://example.org/a%2Fb"},
		{"unreserved decoded", "http://example.org/%7Euser/%41", "http://example.org/~user/A"},
		{"space encoded", "http://example.org/a b", "http://example.org/a%20b"},
		{"utf-8 encoded", "http://example.org/café", "http://example.org/caf%C3%A9"},
		{"query kept in order", "http://example.org/?b=2&a=1", "http://example.org/?b=2&a=1"},
		{"query escapes", "http://example.org/?q=%7e%2f", "http://example.org/?q=~%2F"},
		{"empty query dropped", "http://example.org/a?", "http://example.org/a"},
		{"trailing slash kept", "http://example.org/a/", "http://example.org/a/"},
		{"idn to punycode", "http://bücher.example/", "http://xn--bcher-kva.example/"},
		{"ipv6 literal", "http://[::1]:8080/", "http://[::1]:8080/"},
		{"ipv6 long form", "http://[0:0:0:0:0:0:0:1]/", "http://[::1]/"},
		{"trailing dot host", "http://example.org./", "http://example.org/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Normalize(tt.in)
			if err != nil {
				t.Fatalf("Normalize(%q): %v", tt.in, err)
			}
			if got != tt.want {
				t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
			}
			again, err := Normalize(got)
			if err != nil || again != got {
				t.Errorf("Normalize is not idempotent: %q -> %q (%v)", got, again, err)
			}
		})
	}
}

func TestNormalizeRejects(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"no scheme", "example.org/a", "no scheme"},
		{"mailto", "mailto:a@example.org", "not http or https"},
		{"javascript", "javascript:alert(1)", "not http or https"},
		{"no host", "http:///a", "no host"},
		{"port too big", "http://example.org:65536/", "out of range"},
		{"port zero", "http://example.org:0/", "out of range"},
		{"control char", "http://example.org/\x01", "control character"},
		{"credentials", "http://u:p@example.org/", "credentials"},
		{"bad idn", "http://xn--a.example/", "bad host name"},
		{"stray percent", "http://example.org/100%", "unparsable URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Normalize(tt.in)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Normalize(%q) err = %v, want one containing %q", tt.in, err, tt.want)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	t.Parallel()
	base, _ := url.Parse("http://example.org/dir/page.html")
	tests := []struct{ ref, want string }{
		{"other.html", "http://example.org/dir/other.html"},
		{"/root", "http://example.org/root"},
		{"../up", "http://example.org/up"},
		{"//cdn.example.org/x", "http://cdn.example.org/x"},
		{"https://Example.org:443/y#f", "https://example.org/y"},
		{"?q=1", "http://example.org/dir/page.html?q=1"},
	}
	for _, tt := range tests {
		u, err := Resolve(base, tt.ref)
		if err != nil {
			t.Errorf("Resolve(%q): %v", tt.ref, err)
			continue
		}
		if u.String() != tt.want {
			t.Errorf("Resolve(%q) = %q, want %q", tt.ref, u, tt.want)
		}
	}
}

func TestHostKey(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"Example.ORG", "example.org"},
		{"example.org:80", "example.org"},
		{"example.org:8080", "example.org:8080"},
		{"https://example.org:443/path?q", "example.org"},
		{"https://example.org:8443/", "example.org:8443"},
		{"bücher.example", "xn--bcher-kva.example"},
		{"[::1]:8080", "[::1]:8080"},
	}
	for _, tt := range tests {
		if got, err := HostKey(tt.in); err != nil || got != tt.want {
			t.Errorf("HostKey(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "http://", "example.org:99999", "ftp://example.org/"} {
		if got, err := HostKey(bad); err == nil {
			t.Errorf("HostKey(%q) = %q, want an error", bad, got)
		}
	}
}

// TestHostOneAcrossSchemes: http://example.org/ and https://example.org/
// are one host key, so one pace (and one hold, one robots.txt copy)
// covers a site under both schemes on their default ports; another port
// is another host whatever the scheme.
func TestHostOneAcrossSchemes(t *testing.T) {
	t.Parallel()
	tests := []struct{ a, b, want, wantB string }{
		{"http://example.org/", "https://example.org/", "example.org", "example.org"},
		{"http://Example.org:80/a", "https://example.org:443/b", "example.org", "example.org"},
		{"http://example.org:443/", "https://example.org:443/", "example.org:443", "example.org"},
		{"http://example.org:8080/", "https://example.org:8080/", "example.org:8080", "example.org:8080"},
	}
	for _, tt := range tests {
		a, errA := Parse(tt.a)
		b, errB := Parse(tt.b)
		if errA != nil || errB != nil {
			t.Fatalf("parse %s, %s: %v, %v", tt.a, tt.b, errA, errB)
		}
		if ga, gb := Host(a), Host(b); ga != tt.want || gb != tt.wantB {
			t.Errorf("Host(%s), Host(%s) = %q, %q; want %q, %q", tt.a, tt.b, ga, gb, tt.want, tt.wantB)
		}
	}
}
