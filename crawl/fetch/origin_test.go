package fetch

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
			o := OriginOf(urls.Must(tt.url))
			got := Origins{o: true}.List()
			if len(got) != 1 || got[0] != tt.want {
				t.Fatalf("List = %q, want %q", got, tt.want)
			}
			back, ok := ParseOrigin(got[0])
			if !ok || back != o {
				t.Errorf("ParseOrigin(%q) = %+v, %v; want %+v", got[0], back, ok, o)
			}
		})
	}
	for _, bad := range []string{"", "http://", "a.example:80", "http://a.example"} {
		if o, ok := ParseOrigin(bad); ok {
			t.Errorf("ParseOrigin(%q) = %+v, want not ok", bad, o)
		}
	}
}
