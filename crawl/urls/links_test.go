package urls

import (
	"net/url"
	"reflect"
	"testing"
)

func TestExtractLinks(t *testing.T) {
	t.Parallel()
	base, _ := url.Parse("http://example.org/dir/page")
	tests := []struct {
		name    string
		html    string
		xrobots []string
		want    []string
	}{
		{"anchors resolved and normalised", `<a href="a">x</a><a href="/b#frag">y</a><a href="HTTP://Example.org:80/c">z</a>`, nil,
			[]string{"http://example.org/dir/a", "http://example.org/b", "http://example.org/c"}},
		{"nofollow link skipped", `<a rel="nofollow" href="/no">n</a><a rel="noopener" href="/yes">y</a>`, nil,
			[]string{"http://example.org/yes"}},
		{"meta robots nofollow", `<meta name="robots" content="noindex, nofollow"><a href="/a">a</a>`, nil, nil},
		{"meta robots none", `<meta name="ROBOTS" content="none"><a href="/a">a</a>`, nil, nil},
		{"x-robots-tag nofollow", `<a href="/a">a</a>`, []string{"nofollow"}, nil},
		{"base href", `<base href="http://other.example/base/"><a href="x">x</a>`, nil, []string{"http://other.example/base/x"}},
		{"link rel next only", `<link rel="stylesheet" href="/s.css"><link rel="next" href="/p2"><script src="/s.js"></script><img src="/i.png">`, nil,
			[]string{"http://example.org/p2"}},
		{"non-http skipped", `<a href="mailto:a@b">m</a><a href="javascript:void(0)">j</a><a href="#top">t</a>`, nil, nil},
		{"duplicates once", `<a href="/a">1</a><a href="/a#x">2</a>`, nil, []string{"http://example.org/a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, u := range Links([]byte(tt.html), base, tt.xrobots) {
				got = append(got, u.String())
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestInScope(t *testing.T) {
	t.Parallel()
	from, _ := url.Parse("http://www.example.co.uk/a")
	tests := []struct {
		scope Scope
		to    string
		want  bool
	}{
		{ScopeHost, "http://www.example.co.uk/b", true},
		{ScopeHost, "http://img.example.co.uk/b", false},
		{ScopeDomain, "http://img.example.co.uk/b", true},
		{ScopeDomain, "http://other.co.uk/b", false},
		{ScopeAny, "http://other.example/", true},
	}
	for _, tt := range tests {
		to, _ := url.Parse(tt.to)
		if got := InScope(tt.scope, from, to); got != tt.want {
			t.Errorf("InScope(%s, %s) = %v, want %v", tt.scope, tt.to, got, tt.want)
		}
	}
}
