package urls

import (
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
			if got := Redact(tt.in); got != tt.want {
				t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
