package crawl

import (
	"testing"

	"github.com/polite-crawler/polite/crawl/urls"
)

// TestOriginsRoundTrip: the origins the database keeps read back as the
// ones collected, IPv6 literals included.
func TestOriginsRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, url, want string
	}{
		{"http, default port", "http://127.0.0.1/", "http://127.0.0.1:80"},
		{"https, default port", "https://a.example/x", "https://a.example:443"},
		{"explicit port", "http://a.example:8080/", "http://a.example:8080"},
		{"IPv6", "http://[::1]:9/", "http://[::1]:9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := originOf(urls.Must(tt.url))
			got := originList(map[origin]bool{o: true})
			if len(got) != 1 || got[0] != tt.want {
				t.Fatalf("originList = %q, want %q", got, tt.want)
			}
			back, ok := parseOrigin(got[0])
			if !ok || back != o {
				t.Errorf("parseOrigin(%q) = %+v, %v; want %+v", got[0], back, ok, o)
			}
		})
	}
	for _, bad := range []string{"", "http://", "a.example:80", "http://a.example"} {
		if o, ok := parseOrigin(bad); ok {
			t.Errorf("parseOrigin(%q) = %+v, want not ok", bad, o)
		}
	}
}
