package crawl

import (
	"strings"
	"testing"
)

func TestRedactUserinfo(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"user and password", "http://alice:S3cretPass@host/", "http://alice:xxxxx@host/"},
		{"a token as user name", "https://ghp_T0ken@github.com/x", "https://REDACTED@github.com/x"},
		{"an @ in the password", "http://alice:p@ss@host:8080/a", "http://alice:xxxxx@host:8080/a"},
		{"no scheme", "alice:S3cretPass@host/", "alice:xxxxx@host/"},
		{"a line with a priority", "http://alice:S3cretPass@host/ 5 # note", "http://alice:xxxxx@host/ 5 # note"},
		{"a URL in a query", "http://h/?next=http://bob:Hunter2@x/", "http://h/?next=http://bob:xxxxx@x/"},
		{"quoted in a message", `URL "http://alice:S3cretPass@host/" is bad`, `URL "http://alice:xxxxx@host/" is bad`},
		{"an @ in the path is no userinfo", "http://host/users/@me", "http://host/users/@me"},
		{"an @ in the query is no userinfo", "http://host/?mail=a@b.example", "http://host/?mail=a@b.example"},
		{"no @ at all", "http://host/a b c", "http://host/a b c"},
		{"upper-case scheme", "HTTP://Alice:S3cretPass@HOST/", "HTTP://Alice:xxxxx@HOST/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := redactUserinfo(tt.in); got != tt.want {
				t.Errorf("redactUserinfo(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestCredentialsNeverInErrors: whatever rejects a URL with credentials
// (the credentials themselves, or any other fault found first), the error
// and the rejected seed line do not show the password.
func TestCredentialsNeverInErrors(t *testing.T) {
	t.Parallel()
	const secret = "S3cretPass"
	lines := []string{
		"http://alice:" + secret + "@example.org/",
		"ftp://alice:" + secret + "@example.org/",
		"alice:" + secret + "@example.org/",
		"http://alice:" + secret + "@example.org:99999/",
		"http://alice:" + secret + "@exa mple.org/",
		"http://alice:" + secret + "@example.org/ notanumber",
		"http://alice:" + secret + "@example.org/\x01",
		"http://alice:" + secret + "@" + strings.Repeat("a", 9000) + ".org/",
	}
	for _, l := range lines {
		if _, err := normalizeURL(l); err == nil || strings.Contains(err.Error(), secret) {
			t.Errorf("normalizeURL(%.40q) = %v, want an error without the password", l, err)
		}
		if _, err := resolve(mustURL("http://example.org/"), l); err == nil || strings.Contains(err.Error(), secret) {
			t.Errorf("resolve(%.40q) = %v, want an error without the password", l, err)
		}
	}
	_, sr := readAll("seeds.txt", strings.Join(lines, "\n")+"\nhttp://example.org/ok\n")
	rejected := sr.Rejected()
	if len(rejected) != len(lines) {
		t.Fatalf("%d lines rejected, want %d", len(rejected), len(lines))
	}
	for _, r := range rejected {
		if strings.Contains(r.Text+r.Reason, secret) {
			t.Errorf("rejected line %d shows the password: %q %q", r.Line, r.Text, r.Reason)
		}
	}
}
