package robots

import "testing"

// MatchPattern reads a pattern as written: "*" any run, a final "$" the
// end, else a prefix.
func TestMatchPattern(t *testing.T) {
	for _, tt := range []struct {
		pattern, path string
		want          bool
	}{
		{"/books/", "/books/a", true},
		{"/books/", "/book", false},
		{"", "/anything", true},
		{"/*.pdf$", "/a/b.pdf", true},
		{"/*.pdf$", "/a/b.pdf?x", false},
		{"/a*b*c", "/a-b-c-d", true},
		{"/a*b*c$", "/a-c-b", false},
		{"/x$", "/x", true},
		{"/x$", "/xy", false},
	} {
		if got := MatchPattern(tt.pattern, tt.path); got != tt.want {
			t.Errorf("MatchPattern(%q, %q) = %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
}
