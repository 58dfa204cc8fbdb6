package crawltest

import (
	"net/http"
	"testing"
)

func TestRobotsStatuses(t *testing.T) {
	const text = "User-agent: *\nDisallow: /private\n"
	cases := []struct {
		name       string
		cfg        Config
		wantStatus int
		wantLoc    string
		wantBody   string // "" skips the check
		robots2    int    // status of /robots2.txt
	}{
		{"none is 404", Config{}, 404, "", "", 404},
		{"text is 200", Config{Robots: text}, 200, "", text, 200},
		{"forced 200 empty", Config{RobotsStatus: 200}, 200, "", "", 404},
		{"503", Config{Robots: text, RobotsStatus: 503}, 503, "", "", 200},
		{"500", Config{Robots: text, RobotsStatus: 500}, 500, "", "", 200},
		{"401", Config{Robots: text, RobotsStatus: 401}, 401, "", "", 200},
		{"301 to robots2", Config{Robots: text, RobotsStatus: 301}, 301, "/robots2.txt", "", 200},
		{"308 to robots2", Config{Robots: text, RobotsStatus: 308}, 308, "/robots2.txt", "", 200},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := New(tc.cfg)
			w := do(o, "/robots.txt")
			if w.Code != tc.wantStatus {
				t.Errorf("status %d, want %d", w.Code, tc.wantStatus)
			}
			if got := w.Header().Get("Location"); got != tc.wantLoc {
				t.Errorf("Location %q, want %q", got, tc.wantLoc)
			}
			if tc.wantBody != "" && w.Body.String() != tc.wantBody {
				t.Errorf("body %q, want %q", w.Body.String(), tc.wantBody)
			}
			if tc.wantStatus == http.StatusServiceUnavailable && w.Header().Get("Retry-After") == "" {
				t.Errorf("503 without Retry-After")
			}
			r2 := do(o, "/robots2.txt")
			if r2.Code != tc.robots2 {
				t.Errorf("/robots2.txt status %d, want %d", r2.Code, tc.robots2)
			}
			if r2.Code == 200 && r2.Body.String() != tc.cfg.Robots {
				t.Errorf("/robots2.txt body %q, want %q", r2.Body.String(), tc.cfg.Robots)
			}
			if s := o.Stats(); s.Robots != 2 || s.Disallowed != 0 {
				t.Errorf("Robots %d, Disallowed %d; want 2, 0", s.Robots, s.Disallowed)
			}
		})
	}
}

func TestDisallowedCounting(t *testing.T) {
	const text = `# a comment
User-agent: *
Disallow: /private
Allow: /private/ok   # longer, so it wins
Disallow: /*.pdf$
Disallow:

User-agent: badbot
User-agent: worsebot
Disallow: /bad
Allow: /bad/but-fine

User-agent: goodbot
Allow: /
`
	cases := []struct {
		path       string
		disallowed bool
	}{
		{"/", false},
		{"/public", false},
		{"/private", true},
		{"/private/x?y=1", true},
		{"/private/ok", false},
		{"/private/ok/deeper", false},
		{"/doc.pdf", true},
		{"/doc.pdf?x", false},
		{"/bad/thing", true},
		{"/bad/but-fine/1", false},
		{"/badge", true},
		{"/robots.txt", false},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			o := New(Config{Robots: text})
			do(o, tc.path)
			want := 0
			if tc.disallowed {
				want = 1
			}
			if got := o.Stats().Disallowed; got != want {
				t.Errorf("Disallowed = %d, want %d", got, want)
			}
		})
	}
}

func TestDisallowedByRobotsStatus(t *testing.T) {
	const text = "User-agent: *\nDisallow: /private\n"
	cases := []struct {
		name string
		cfg  Config
		want int // of /a, /private/b, /robots.txt
	}{
		{"2xx applies the text", Config{Robots: text}, 1},
		{"3xx applies the text at its target", Config{Robots: text, RobotsStatus: 302}, 1},
		{"4xx allows everything", Config{Robots: text, RobotsStatus: 404}, 0},
		{"5xx forbids everything", Config{Robots: text, RobotsStatus: 503}, 2},
		{"no robots.txt allows everything", Config{}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := New(tc.cfg)
			for _, p := range []string{"/a", "/private/b", "/robots.txt"} {
				do(o, p)
			}
			if got := o.Stats().Disallowed; got != tc.want {
				t.Errorf("Disallowed = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestRobotsMatch(t *testing.T) {
	cases := []struct {
		pattern, uri string
		want         bool
	}{
		{"/a", "/a", true},
		{"/a", "/abc", true},
		{"/a", "/b", false},
		{"/a$", "/a", true},
		{"/a$", "/ab", false},
		{"/*.gif$", "/x/y.gif", true},
		{"/*.gif$", "/x/y.gif?z", false},
		{"/*/c", "/a/b/c/d", true},
		{"/a*", "/a", true},
		{"*", "/anything", true},
		{"/a*b*c$", "/a-b-c", true},
		{"/a*b*c$", "/a-b-cd", false},
	}
	for _, tc := range cases {
		t.Run(tc.pattern+" "+tc.uri, func(t *testing.T) {
			if got := robotsMatch(tc.pattern, tc.uri); got != tc.want {
				t.Errorf("robotsMatch(%q, %q) = %v, want %v", tc.pattern, tc.uri, got, tc.want)
			}
		})
	}
}
