package exclude

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/polite-crawler/polite/crawl/frontier"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		text string
		kind Kind
	}{
		{"example.org", "example.org", Host},
		{"  Example.ORG.  ", "example.org", Host},
		{"bücher.example", "xn--bcher-kva.example", Host},
		{"127.1", "127.0.0.1", Host},
		{"::1", "[::1]", Host},
		{"[::1]", "[::1]", Host},
		{".example.org", ".example.org", Domain},
		{"*.Example.org", ".example.org", Domain},
		{".org", ".org", Domain},
		{"https://Example.org/Private/", "https://example.org/Private/", Prefix},
		{"HTTP://example.org:80/a/../b?x=1#frag", "https://example.org/b?x=1", Prefix},
		{"http://example.org:8080/x", "https://example.org:8080/x", Prefix},
		{"http://example.org:443/x", "http://example.org:443/x", Prefix}, // https could not say port 443 under http
		{"https://example.org:80/x", "https://example.org:80/x", Prefix},
		{"https://example.org", "https://example.org/", Prefix},
		{"https://example.org:8443/api", "https://example.org:8443/api", Prefix},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			r, err := Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.in, err)
			}
			if r.Text != tt.text || r.Kind != tt.kind {
				t.Errorf("Parse(%q) = %q (%s), want %q (%s)", tt.in, r.Text, r.Kind, tt.text, tt.kind)
			}
			again, err := Parse(r.Text)
			if err != nil || again.Text != r.Text {
				t.Errorf("Parse(%q) again = %q, %v: the normal form must read back as itself", r.Text, again.Text, err)
			}
		})
	}
}

func TestParseRefuses(t *testing.T) {
	tests := []struct {
		in   string
		want string // in the error
	}{
		{"", "empty rule"},
		{"   ", "empty rule"},
		{"example.org:8080", "covers every port"},
		{"example.org:80", "covers every port"},
		{"example.org/private", "needs its scheme (https://example.org/private)"},
		{".127.0.0.1", "an address has no subdomains"},
		{".[::1]", "an address has no subdomains"},
		{".", "not a host name"},
		{"ftp://example.org/", `scheme "ftp" is not http or https`},
		{"https://user:pw@example.org/", "credentials"},
		{"https:///path", "no host"},
		{"exa mple.org", "not a host name"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			r, err := Parse(tt.in)
			if err == nil {
				t.Fatalf("Parse(%q) = %q, want an error", tt.in, r.Text)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse(%q) error %q does not say %q", tt.in, err, tt.want)
			}
			if strings.Contains(err.Error(), "pw") {
				t.Errorf("Parse(%q) error %q shows the password", tt.in, err)
			}
		})
	}
}

func TestListMatches(t *testing.T) {
	l, err := NewList("example.org", ".example.net", "https://shop.example.com/private/",
		"http://api.example.com:8080/v1", "https://whole.example.com", "[::1]", "10.0.0.1",
		"http://odd.example:443/a", "https://odd.example:80/b")
	if err != nil {
		t.Fatal(err)
	}
	urlTests := []struct {
		url, rule string
	}{
		// A host rule: every scheme and port of that exact name, no other name.
		{"https://example.org/", "example.org"},
		{"http://example.org:8080/x", "example.org"},
		{"https://example.org:8443/robots.txt", "example.org"},
		{"https://www.example.org/", ""},
		{"https://example.org.evil.test/", ""},
		{"https://notexample.org/", ""},
		// A domain rule: the name and every name under it.
		{"https://example.net/", ".example.net"},
		{"http://a.b.example.net:81/", ".example.net"},
		{"https://example.network/", ""},
		{"https://fooexample.net/", ""},
		// A prefix: under both schemes, a string prefix of path and query.
		{"https://shop.example.com/private/a", "https://shop.example.com/private/"},
		{"http://shop.example.com/private/", "https://shop.example.com/private/"},
		{"https://shop.example.com/private", ""},
		{"https://shop.example.com/public", ""},
		{"https://shop.example.com:8443/private/a", ""},
		{"http://api.example.com:8080/v1/users", "https://api.example.com:8080/v1"},
		{"https://api.example.com:8080/v10", "https://api.example.com:8080/v1"},
		{"http://api.example.com/v1", ""},
		{"https://whole.example.com/?q=1", "https://whole.example.com/"},
		{"http://whole.example.com/a", "https://whole.example.com/"},
		// A port that is the other scheme's default: the same port under both.
		{"http://odd.example:443/a", "http://odd.example:443/a"},
		{"https://odd.example/a", "http://odd.example:443/a"},
		{"http://odd.example/a", ""},
		{"http://odd.example/b", "https://odd.example:80/b"},
		{"https://odd.example:80/b", "https://odd.example:80/b"},
		{"https://odd.example/b", ""},
		// Addresses.
		{"http://[::1]:8080/", "[::1]"},
		{"http://10.0.0.1:9/", "10.0.0.1"},
		{"http://10.0.0.10/", ""},
	}
	for _, tt := range urlTests {
		if got := l.URL(tt.url); got != tt.rule {
			t.Errorf("URL(%q) = %q, want %q", tt.url, got, tt.rule)
		}
	}
	hostTests := []struct {
		key, rule string
	}{
		{"example.org", "example.org"},
		{"example.org:8080", "example.org"},
		{"www.example.net", ".example.net"},
		{"whole.example.com", "https://whole.example.com/"}, // the prefix covers its robots.txt
		{"shop.example.com", ""},                            // a prefix that leaves the host's other URLs alone
		{"api.example.com:8080", ""},
		{"[::1]:631", "[::1]"},
		{"10.0.0.1", "10.0.0.1"},
		{"other.example", ""},
	}
	for _, tt := range hostTests {
		if got := l.Host(tt.key); got != tt.rule {
			t.Errorf("Host(%q) = %q, want %q", tt.key, got, tt.rule)
		}
	}
	var empty *List
	if empty.Host("example.org") != "" || empty.URL("https://example.org/") != "" {
		t.Error("a nil List matches something")
	}
	if _, err := NewList("example.org", "example.org:1"); err == nil || !strings.Contains(err.Error(), `"example.org:1"`) {
		t.Errorf("NewList with a bad rule: %v, want an error naming it", err)
	}
}

// source is an exclusion list in memory that counts its reads.
type source struct {
	rules    []string
	version  int64
	failList error
	failVer  error
	lists    int
}

func (s *source) Exclusions() ([]frontier.Exclusion, error) {
	s.lists++
	if s.failList != nil {
		return nil, s.failList
	}
	var xs []frontier.Exclusion
	for _, r := range s.rules {
		xs = append(xs, frontier.Exclusion{Rule: r})
	}
	return xs, nil
}

func (s *source) ExclusionsVersion() (int64, error) { return s.version, s.failVer }

func (s *source) add(rule string) {
	s.rules = append(s.rules, rule)
	s.version++
}

func TestWatchReadsTheRulesOnlyWhenTheyChange(t *testing.T) {
	src := &source{}
	w := NewWatch(src, nil)
	steps := []struct {
		name      string
		change    func()
		wantLists int
		wantURL   frontier.Reason // for https://a.example/x
	}{
		{"first pass reads the list", nil, 1, ""},
		{"unchanged: the version alone", nil, 1, ""},
		{"a rule added", func() { src.add("a.example") }, 2, "excluded by the operator: a.example"},
		{"unchanged again", nil, 2, "excluded by the operator: a.example"},
		{"the rule removed", func() { src.rules = nil; src.version++ }, 3, ""},
	}
	for _, st := range steps {
		if st.change != nil {
			st.change()
		}
		if err := w.Refresh(); err != nil {
			t.Fatalf("%s: Refresh: %v", st.name, err)
		}
		if src.lists != st.wantLists {
			t.Errorf("%s: the list was read %d times, want %d", st.name, src.lists, st.wantLists)
		}
		if got := w.URL("https://a.example/x"); got != st.wantURL {
			t.Errorf("%s: URL = %q, want %q", st.name, got, st.wantURL)
		}
	}
}

func TestWatchErrors(t *testing.T) {
	boom := errors.New("boom")
	src := &source{failVer: boom}
	w := NewWatch(src, nil)
	if err := w.Refresh(); !errors.Is(err, boom) {
		t.Fatalf("first Refresh = %v, want the store's error: a crawl must not run without the list", err)
	}
	src.failVer = nil
	src.add("a.example")
	if err := w.Refresh(); err != nil {
		t.Fatal(err)
	}
	src.failList = boom
	src.add("b.example")
	if err := w.Refresh(); err != nil {
		t.Fatalf("a later Refresh = %v, want nil: the rules last read stand", err)
	}
	if w.URL("https://a.example/") == "" || w.URL("https://b.example/") != "" {
		t.Error("after a failed read the rules last read do not stand")
	}
	src.failList = nil
	if err := w.Refresh(); err != nil || w.URL("https://b.example/") == "" {
		t.Errorf("Refresh after the failure: %v; b.example not excluded, want the list read again", err)
	}
	src.rules = append(src.rules, "bad:rule:1")
	src.version++
	if err := w.Refresh(); err != nil || w.URL("https://b.example/") == "" {
		t.Errorf("a bad stored rule later: %v; want the rules last read to stand", err)
	}
	if err := NewWatch(src, nil).Refresh(); err == nil || !strings.Contains(err.Error(), "bad:rule:1") {
		t.Errorf("a bad stored rule at the start: %v, want an error naming it", err)
	}
}

func TestWatchHits(t *testing.T) {
	src := &source{}
	src.add(".example.org")
	src.add("https://b.example/private/")
	w := NewWatch(src, nil)
	if err := w.Refresh(); err != nil {
		t.Fatal(err)
	}
	for range 3 { // a host checked at every pass counts once
		w.Host("www.example.org")
		w.Host("b.example")
	}
	w.Host("example.org:8080")
	w.URL("https://b.example/private/1")
	w.URL("https://b.example/private/2")
	w.URL("https://b.example/public")
	want := []Hits{
		{Rule: ".example.org", Hosts: []string{"example.org:8080", "www.example.org"}},
		{Rule: "https://b.example/private/", URLs: 2},
	}
	if got := w.Hits(); !reflect.DeepEqual(got, want) {
		t.Errorf("Hits = %+v, want %+v", got, want)
	}
}
