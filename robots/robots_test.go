package robots

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestFromResponse(t *testing.T) {
	body := []byte("User-agent: *\nDisallow: /private\n")
	tests := []struct {
		name       string
		status     int
		wantAccess Access
		path       string
		wantAllow  bool
		wantReason string
	}{
		{"200 parses", 200, Parsed, "/private", false, "longest matching rule"},
		{"206 parses", 206, Parsed, "/public", true, "no rule matched"},
		{"3xx: redirects ran out", 301, AllowAll, "/private", true, "robots.txt redirected more than 5 times (301): everything allowed"},
		{"308 allows", 308, AllowAll, "/private", true, "robots.txt redirected more than 5 times (308): everything allowed"},
		{"400 allows", 400, AllowAll, "/private", true, "no robots.txt (400): everything allowed"},
		{"401 allows", 401, AllowAll, "/private", true, "no robots.txt (401): everything allowed"},
		{"403 allows", 403, AllowAll, "/private", true, "no robots.txt (403): everything allowed"},
		{"404 allows", 404, AllowAll, "/private", true, "no robots.txt (404): everything allowed"},
		{"410 allows", 410, AllowAll, "/private", true, "no robots.txt (410): everything allowed"},
		{"499 allows", 499, AllowAll, "/private", true, "no robots.txt (499): everything allowed"},
		{"429 unreachable", 429, Unreachable, "/public", false, "robots.txt unreachable (429): everything disallowed for now"},
		{"500 unreachable", 500, Unreachable, "/public", false, "robots.txt unreachable (500): everything disallowed for now"},
		{"503 unreachable", 503, Unreachable, "/public", false, "robots.txt unreachable (503): everything disallowed for now"},
		{"599 unreachable", 599, Unreachable, "/public", false, "robots.txt unreachable (599): everything disallowed for now"},
		{"network error unreachable", 0, Unreachable, "/public", false, "robots.txt unreachable (network error): everything disallowed for now"},
		{"1xx unreachable", 100, Unreachable, "/public", false, "robots.txt unreachable (100): everything disallowed for now"},
		{"600 unreachable", 600, Unreachable, "/public", false, "robots.txt unreachable (600): everything disallowed for now"},
		{"unreachable still allows robots.txt", 503, Unreachable, "/robots.txt", true, "robots.txt is always allowed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := FromResponse(tc.status, body)
			if r.Access != tc.wantAccess {
				t.Errorf("Access = %d, want %d", r.Access, tc.wantAccess)
			}
			if r.Status != tc.status {
				t.Errorf("Status = %d, want %d", r.Status, tc.status)
			}
			d := r.Test("polite", tc.path)
			if d.Allowed != tc.wantAllow || d.Reason != tc.wantReason {
				t.Errorf("Test(%q) = allowed %v %q, want allowed %v %q", tc.path, d.Allowed, d.Reason, tc.wantAllow, tc.wantReason)
			}
			if tc.wantAccess != Parsed {
				if g := r.Group("polite"); g != (Group{}) {
					t.Errorf("Group = %+v, want none", g)
				}
				if d.Group != "" || d.Rule != "" {
					t.Errorf("Decision names group %q rule %q, want none", d.Group, d.Rule)
				}
			}
		})
	}
}

func TestZeroAndNil(t *testing.T) {
	tests := []struct {
		name string
		r    *Robots
	}{
		{"zero value", &Robots{}},
		{"nil", nil},
		{"empty body", Parse(nil)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if d := tc.r.Test("polite", "/anything"); !d.Allowed {
				t.Errorf("Test = %+v, want allowed", d)
			}
			if g := tc.r.Group("polite"); g != (Group{}) {
				t.Errorf("Group = %+v, want none", g)
			}
			if s := tc.r.Sitemaps(); len(s) != 0 {
				t.Errorf("Sitemaps = %q, want none", s)
			}
		})
	}
}

func TestMaxBytes(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("User-agent: *\nDisallow: /a\n")
	filler := "# " + strings.Repeat("x", 97) + "\n" // 100 bytes
	for b.Len()+len(filler) < MaxBytes-20 {
		b.WriteString(filler)
	}
	b.WriteString("Disallow: /c\n")
	straddle := "Disallow: /straddles-the-limit\n"
	for b.Len()+len(straddle) <= MaxBytes {
		b.WriteString("#\n")
	}
	if b.Len() >= MaxBytes || b.Len()+len(straddle) <= MaxBytes {
		t.Fatalf("setup: straddling line at %d..%d does not cross %d", b.Len(), b.Len()+len(straddle), MaxBytes)
	}
	b.WriteString(straddle)
	b.WriteString("Disallow: /b\n")
	for b.Len() < 10<<20 {
		b.WriteString(filler)
		b.WriteString("Disallow: /b\n")
	}

	start := time.Now()
	r := Parse(b.Bytes())
	elapsed := time.Since(start)

	tests := []struct {
		path string
		want bool
	}{
		{"/a", false},
		{"/c", false},
		{"/straddles-the-limit", true},
		{"/b", true},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			if got := r.Test("polite", tc.path).Allowed; got != tc.want {
				t.Errorf("Test(%q).Allowed = %v, want %v", tc.path, got, tc.want)
			}
		})
	}
	t.Logf("parsed a %d-byte body in %v", b.Len(), elapsed)
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		name    string
		body    []byte
		wantLen int
	}{
		{"short body kept", []byte("User-agent: *\n"), 14},
		{"exactly MaxBytes kept", bytes.Repeat([]byte("a"), MaxBytes), MaxBytes},
		{"one line past MaxBytes dropped", bytes.Repeat([]byte("a"), MaxBytes+1), 0},
		{"cut after the last line end", append(append(bytes.Repeat([]byte("a"), 99), '\r'), bytes.Repeat([]byte("b"), MaxBytes)...), 100},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := len(truncate(tc.body)); got != tc.wantLen {
				t.Errorf("len(truncate) = %d, want %d", got, tc.wantLen)
			}
		})
	}
}

func TestDecisionFields(t *testing.T) {
	const txt = `# Example
User-agent: *
Disallow: /private # secret

User-agent: polite
User-agent: other
Allow: /private/ok
Disallow: /private
Crawl-delay: 2.5
Request-rate: 1/5
Sitemap: https://example.org/sitemap.xml
User-agent: polite
Disallow: /tmp
Disallow: /same
Allow: /same
`
	r := Parse([]byte(txt))
	merged := "User-agent: polite; User-agent: other; User-agent: polite"
	tests := []struct {
		name, agent, path string
		want              Decision
	}{
		{"star group rule without comment", "bot", "/private/x", Decision{Group: "User-agent: *", GroupLine: 2, Rule: "Disallow: /private", RuleLine: 3, Reason: "longest matching rule"}},
		{"merged group names both lines", "polite", "/private/x", Decision{Group: merged, GroupLine: 5, Rule: "Disallow: /private", RuleLine: 8, Reason: "longest matching rule"}},
		{"rule from the second group", "polite", "/tmp/a", Decision{Group: merged, GroupLine: 5, Rule: "Disallow: /tmp", RuleLine: 13, Reason: "longest matching rule"}},
		{"longer allow", "polite", "/private/ok", Decision{Allowed: true, Group: merged, GroupLine: 5, Rule: "Allow: /private/ok", RuleLine: 7, Reason: "longest matching rule"}},
		{"tie goes to allow", "polite", "/same", Decision{Allowed: true, Group: merged, GroupLine: 5, Rule: "Allow: /same", RuleLine: 15, Reason: "allow wins a tie with an equally long disallow"}},
		{"no rule matched", "polite", "/public", Decision{Allowed: true, Group: merged, GroupLine: 5, Reason: "no rule matched"}},
		{"second agent of a group", "OTHER", "/private/x", Decision{Group: "User-agent: polite; User-agent: other", GroupLine: 5, Rule: "Disallow: /private", RuleLine: 8, Reason: "longest matching rule"}},
		{"full user-agent string", "polite/0.1 (+https://x)", "/tmp", Decision{Group: merged, GroupLine: 5, Rule: "Disallow: /tmp", RuleLine: 13, Reason: "longest matching rule"}},
		{"absolute URL reduced to its path", "polite", "https://example.org/tmp/a?b=1#frag", Decision{Group: merged, GroupLine: 5, Rule: "Disallow: /tmp", RuleLine: 13, Reason: "longest matching rule"}},
		{"fragment ignored", "bot", "/x#/private", Decision{Allowed: true, Group: "User-agent: *", GroupLine: 2, Reason: "no rule matched"}},
		{"empty target is the root", "bot", "", Decision{Allowed: true, Group: "User-agent: *", GroupLine: 2, Reason: "no rule matched"}},
		{"target without a slash", "bot", "private", Decision{Group: "User-agent: *", GroupLine: 2, Rule: "Disallow: /private", RuleLine: 3, Reason: "longest matching rule"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := r.Test(tc.agent, tc.path); got != tc.want {
				t.Errorf("Test(%q, %q)\n got %+v\nwant %+v", tc.agent, tc.path, got, tc.want)
			}
		})
	}
}

func TestGroup(t *testing.T) {
	tests := []struct {
		name, txt, agent string
		want             Group
	}{
		{"crawl-delay seconds", "User-agent: *\nCrawl-delay: 10\n", "polite",
			Group{Name: "User-agent: *", Line: 1, CrawlDelay: 10 * time.Second}},
		{"crawl-delay decimal", "User-agent: *\nCrawl-delay: 0.5\n", "polite",
			Group{Name: "User-agent: *", Line: 1, CrawlDelay: 500 * time.Millisecond}},
		{"crawl-delay with a unit word", "User-agent: *\nCrawl-delay: 5 seconds\n", "polite",
			Group{Name: "User-agent: *", Line: 1, CrawlDelay: 5 * time.Second}},
		{"crawl-delay without hyphen", "User-agent: *\nCrawldelay: 4\n", "polite",
			Group{Name: "User-agent: *", Line: 1, CrawlDelay: 4 * time.Second}},
		{"crawl-delay infinite ignored", "User-agent: *\nCrawl-delay: Inf\n", "polite",
			Group{Name: "User-agent: *", Line: 1}},
		{"crawl-delay NaN ignored", "User-agent: *\nCrawl-delay: NaN\n", "polite",
			Group{Name: "User-agent: *", Line: 1}},
		{"crawl-delay huge capped", "User-agent: *\nCrawl-delay: 1e300\n", "polite",
			Group{Name: "User-agent: *", Line: 1, CrawlDelay: maxDelay}},
		{"crawl-delay of another group", "User-agent: a\nCrawl-delay: 9\nDisallow: /\nUser-agent: *\nDisallow: /x\n", "polite",
			Group{Name: "User-agent: *", Line: 4}},
		{"crawl-delay between user-agent lines belongs to the group", "User-agent: a\nCrawl-delay: 9\nUser-agent: polite\nDisallow: /x\n", "polite",
			Group{Name: "User-agent: a; User-agent: polite", Line: 1, CrawlDelay: 9 * time.Second}},
		{"slowest crawl-delay of a group", "User-agent: *\nCrawl-delay: 9\nCrawl-delay: 3\n", "polite",
			Group{Name: "User-agent: *", Line: 1, CrawlDelay: 9 * time.Second}},
		{"slowest crawl-delay of merged groups", "User-agent: polite\nCrawl-delay: 2\nDisallow: /a\nUser-agent: polite\nCrawl-delay: 7\n", "polite",
			Group{Name: "User-agent: polite; User-agent: polite", Line: 1, CrawlDelay: 7 * time.Second}},
		{"request-rate", "User-agent: *\nRequest-rate: 1/5\n", "polite",
			Group{Name: "User-agent: *", Line: 1, RequestRate: Rate{1, 5 * time.Second}}},
		{"request-rate with time window", "User-agent: *\nRequest-rate: 1/5 0900-1700\n", "polite",
			Group{Name: "User-agent: *", Line: 1, RequestRate: Rate{1, 5 * time.Second}}},
		{"bad request-rate ignored", "User-agent: *\nRequest-rate: often\n", "polite",
			Group{Name: "User-agent: *", Line: 1}},
		{"slowest request-rate of merged groups", "User-agent: polite\nRequest-rate: 1/5\nDisallow: /a\nUser-agent: polite\nRequest-rate: 10/1m\n", "polite",
			Group{Name: "User-agent: polite; User-agent: polite", Line: 1, RequestRate: Rate{10, time.Minute}}},
		{"no group", "User-agent: a\nCrawl-delay: 9\n", "polite", Group{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Parse([]byte(tc.txt)).Group(tc.agent); got != tc.want {
				t.Errorf("Group(%q) = %+v, want %+v", tc.agent, got, tc.want)
			}
		})
	}
}

func TestSitemaps(t *testing.T) {
	r := Parse([]byte("Sitemap: https://e.org/a.xml\nUser-agent: *\nSite-map: https://e.org/b.xml # second\nDisallow: /\nsitemap:\nSITEMAP:https://e.org/c.xml\n"))
	want := []string{"https://e.org/a.xml", "https://e.org/b.xml", "https://e.org/c.xml"}
	got := r.Sitemaps()
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("Sitemaps() = %q, want %q", got, want)
	}
	got[0] = "changed"
	if again := r.Sitemaps(); again[0] != want[0] {
		t.Errorf("Sitemaps()[0] after caller changed its copy = %q, want %q", again[0], want[0])
	}
}

func TestRateInterval(t *testing.T) {
	tests := []struct {
		name string
		rate Rate
		want time.Duration
	}{
		{"one per five seconds", Rate{1, 5 * time.Second}, 5 * time.Second},
		{"ten per minute", Rate{10, time.Minute}, 6 * time.Second},
		{"zero", Rate{}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.rate.Interval(); got != tc.want {
				t.Errorf("Interval() = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestConcurrentUse(t *testing.T) {
	r := Parse([]byte("User-agent: *\nDisallow: /a\nAllow: /a/*.html$\nCrawl-delay: 1\n"))
	want := r.Test("polite", "/a/b")
	done := make(chan Decision)
	for range 8 {
		go func() {
			var d Decision
			for range 100 {
				d = r.Test("polite", "/a/b")
				r.Group("polite")
				r.Sitemaps()
			}
			done <- d
		}()
	}
	for range 8 {
		if got := <-done; got != want {
			t.Errorf("concurrent Test = %+v, want %+v", got, want)
		}
	}
}
