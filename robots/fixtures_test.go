package robots

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/temoto/robotstxt"
)

// fixtureDir holds realistic robots.txt files shared with the golden tests
// of `polite robots check`.
const fixtureDir = "../testdata/robots"

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	body, err := os.ReadFile(filepath.Join(fixtureDir, name))
	if err != nil {
		t.Fatalf("read fixture: %v", err)
	}
	return body
}

// Groups of the fixtures with several user-agent lines.
const (
	shopPolite  = "User-agent: polite; User-agent: archiver"
	messyPolite = "User agent: polite; User-agent: friendly-bot"
)

func TestFixtureDecisions(t *testing.T) {
	tests := []struct {
		file, agent, path string
		want              Decision
	}{
		// news.txt: AI crawlers blocked, wildcards, anchors, its own group for polite.
		{"news.txt", "polite", "/search?q=x", Decision{Group: "User-agent: polite", GroupLine: 19, Rule: "Disallow: /search", RuleLine: 21, Reason: "longest matching rule"}},
		{"news.txt", "polite", "/archive/2020/report.pdf", Decision{Group: "User-agent: polite", GroupLine: 19, Rule: "Disallow: /archive/*.pdf$", RuleLine: 22, Reason: "longest matching rule"}},
		{"news.txt", "polite", "/archive/2020/report.pdf?dl=1", Decision{Allowed: true, Group: "User-agent: polite", GroupLine: 19, Rule: "Allow: /archive/", RuleLine: 23, Reason: "longest matching rule"}},
		{"news.txt", "polite", "/story/1?share=tw", Decision{Allowed: true, Group: "User-agent: polite", GroupLine: 19, Reason: "no rule matched"}},
		{"news.txt", "GPTBot", "/story/1", Decision{Group: "User-agent: GPTBot; User-agent: CCBot; User-agent: Google-Extended", GroupLine: 4, Rule: "Disallow: /", RuleLine: 7, Reason: "longest matching rule"}},
		{"news.txt", "Google-Extended", "/story/1", Decision{Group: "User-agent: GPTBot; User-agent: CCBot; User-agent: Google-Extended", GroupLine: 4, Rule: "Disallow: /", RuleLine: 7, Reason: "longest matching rule"}},
		{"news.txt", "otherbot", "/story/1?share=tw", Decision{Group: "User-agent: *", GroupLine: 9, Rule: "Disallow: /*?share=", RuleLine: 12, Reason: "longest matching rule"}},
		{"news.txt", "otherbot", "/world/story/print", Decision{Group: "User-agent: *", GroupLine: 9, Rule: "Disallow: /*/print$", RuleLine: 13, Reason: "longest matching rule"}},
		{"news.txt", "otherbot", "/world/story/print/2", Decision{Allowed: true, Group: "User-agent: *", GroupLine: 9, Reason: "no rule matched"}},
		{"news.txt", "otherbot", "/account/login", Decision{Allowed: true, Group: "User-agent: *", GroupLine: 9, Rule: "Allow: /account/login", RuleLine: 15, Reason: "longest matching rule"}},
		{"news.txt", "otherbot", "/robots.txt", Decision{Allowed: true, Reason: "robots.txt is always allowed"}},

		// wiki.txt: many groups, empty Disallow, encoded and raw UTF-8 rules.
		{"wiki.txt", "polite", "/wiki/Go_(programming_language)", Decision{Allowed: true, Group: "User-agent: *", GroupLine: 26, Reason: "no rule matched"}},
		{"wiki.txt", "polite", "/w/index.php?title=X", Decision{Group: "User-agent: *", GroupLine: 26, Rule: "Disallow: /w/", RuleLine: 30, Reason: "longest matching rule"}},
		{"wiki.txt", "polite", "/w/load.php?modules=site", Decision{Allowed: true, Group: "User-agent: *", GroupLine: 26, Rule: "Allow: /w/load.php?", RuleLine: 28, Reason: "longest matching rule"}},
		{"wiki.txt", "polite", "/wiki/Sp%C3%A9cial:Recherche", Decision{Group: "User-agent: *", GroupLine: 26, Rule: "Disallow: /wiki/Spécial:", RuleLine: 35, Reason: "longest matching rule"}},
		{"wiki.txt", "polite", "/wiki/Special:Random", Decision{Group: "User-agent: *", GroupLine: 26, Rule: "Disallow: /wiki/Special:", RuleLine: 33, Reason: "longest matching rule"}},
		{"wiki.txt", "polite", "/wiki/Special%3aRandom", Decision{Group: "User-agent: *", GroupLine: 26, Rule: "Disallow: /wiki/Special%3A", RuleLine: 36, Reason: "longest matching rule"}},
		{"wiki.txt", "polite", "/wiki/特別:Search", Decision{Group: "User-agent: *", GroupLine: 26, Rule: "Disallow: /wiki/%E7%89%B9%E5%88%A5:Search", RuleLine: 37, Reason: "longest matching rule"}},
		{"wiki.txt", "Mediapartners-Google", "/wiki/X", Decision{Group: "User-agent: Mediapartners-Google*", GroupLine: 5, Rule: "Disallow: /", RuleLine: 6, Reason: "longest matching rule"}},
		{"wiki.txt", "IsraBot", "/w/index.php", Decision{Allowed: true, Group: "User-agent: IsraBot", GroupLine: 9, Reason: "no rule matched"}},

		// shop.txt: byte-order mark, CRLF, query-string rules, a misspelling.
		{"shop.txt", "otherbot", "/shoes?color=red&sort=price", Decision{Group: "User-agent: *", GroupLine: 1, Rule: "Disallow: /*&sort=", RuleLine: 5, Reason: "longest matching rule"}},
		{"shop.txt", "otherbot", "/compare?a=1", Decision{Group: "User-agent: *", GroupLine: 1, Rule: "Disalow: /compare", RuleLine: 6, Reason: "longest matching rule"}},
		{"shop.txt", "otherbot", "/static/site.css", Decision{Group: "User-agent: *", GroupLine: 1, Rule: "Disallow: /static/", RuleLine: 9, Reason: "longest matching rule"}},
		{"shop.txt", "otherbot", "/theme.css", Decision{Allowed: true, Group: "User-agent: *", GroupLine: 1, Rule: "Allow: /*.css$", RuleLine: 7, Reason: "longest matching rule"}},
		{"shop.txt", "polite", "/account/wishlist", Decision{Allowed: true, Group: shopPolite, GroupLine: 12, Rule: "Allow: /account/wishlist$", RuleLine: 17, Reason: "longest matching rule"}},
		{"shop.txt", "polite", "/account/wishlist/2", Decision{Group: shopPolite, GroupLine: 12, Rule: "Disallow: /account", RuleLine: 16, Reason: "longest matching rule"}},
		{"shop.txt", "polite", "/shoes?sort=price", Decision{Allowed: true, Group: shopPolite, GroupLine: 12, Reason: "no rule matched"}},
		{"shop.txt", "archiver", "/cart", Decision{Group: shopPolite, GroupLine: 12, Rule: "Disallow: /cart", RuleLine: 14, Reason: "longest matching rule"}},

		// messy.txt: every line temoto rejects, and an empty last group.
		{"messy.txt", "polite", "/before-any-group", Decision{Allowed: true, Group: messyPolite, GroupLine: 3, Reason: "no rule matched"}},
		{"messy.txt", "polite", "/tmp/x", Decision{Group: messyPolite, GroupLine: 3, Rule: "Disallow: /tmp", RuleLine: 6, Reason: "longest matching rule"}},
		{"messy.txt", "polite", "/drafts/1", Decision{Group: messyPolite, GroupLine: 3, Rule: "Disallow : /drafts", RuleLine: 7, Reason: "longest matching rule"}},
		{"messy.txt", "polite", "/Private", Decision{Group: messyPolite, GroupLine: 3, Rule: "DISALLOW:/Private", RuleLine: 8, Reason: "longest matching rule"}},
		{"messy.txt", "polite", "/private", Decision{Allowed: true, Group: messyPolite, GroupLine: 3, Reason: "no rule matched"}},
		{"messy.txt", "polite", "/old", Decision{Group: messyPolite, GroupLine: 3, Rule: "disalow: /old", RuleLine: 9, Reason: "longest matching rule"}},
		{"messy.txt", "polite", "/tmp/public/a", Decision{Allowed: true, Group: messyPolite, GroupLine: 3, Rule: "Allow: /tmp/public", RuleLine: 10, Reason: "longest matching rule"}},
		{"messy.txt", "friendly-bot", "/tmp/x", Decision{Group: messyPolite, GroupLine: 3, Rule: "Disallow: /tmp", RuleLine: 6, Reason: "longest matching rule"}},
		{"messy.txt", "latecomer", "/x", Decision{Allowed: true, Group: "User-agent: latecomer", GroupLine: 16, Reason: "group has no rules"}},
		{"messy.txt", "otherbot", "/x", Decision{Group: "User-agent: *", GroupLine: 13, Rule: "Disallow: /", RuleLine: 14, Reason: "longest matching rule"}},
	}
	parsed := map[string]*Robots{}
	for _, tc := range tests {
		t.Run(tc.file+" "+tc.agent+" "+tc.path, func(t *testing.T) {
			r, ok := parsed[tc.file]
			if !ok {
				r = Parse(readFixture(t, tc.file))
				parsed[tc.file] = r
			}
			if got := r.Test(tc.agent, tc.path); got != tc.want {
				t.Errorf("Test(%q, %q)\n got %+v\nwant %+v", tc.agent, tc.path, got, tc.want)
			}
		})
	}
}

func TestFixtureGroups(t *testing.T) {
	tests := []struct {
		file, agent  string
		want         Group
		wantSitemaps []string
	}{
		{"news.txt", "polite", Group{Name: "User-agent: polite", Line: 19, CrawlDelay: 5 * time.Second},
			[]string{"https://news.example/sitemap-index.xml", "https://news.example/sitemap-news.xml"}},
		{"news.txt", "otherbot", Group{Name: "User-agent: *", Line: 9, CrawlDelay: 2 * time.Second},
			[]string{"https://news.example/sitemap-index.xml", "https://news.example/sitemap-news.xml"}},
		{"wiki.txt", "polite", Group{Name: "User-agent: *", Line: 26, RequestRate: Rate{Requests: 1, Per: 5 * time.Second}}, nil},
		{"shop.txt", "polite", Group{Name: shopPolite, Line: 12, CrawlDelay: 1500 * time.Millisecond, RequestRate: Rate{Requests: 1, Per: 10 * time.Second}},
			[]string{"https://shop.example/sitemap.xml"}},
		{"shop.txt", "otherbot", Group{Name: "User-agent: *", Line: 1, RequestRate: Rate{Requests: 10, Per: time.Minute}},
			[]string{"https://shop.example/sitemap.xml"}},
		{"messy.txt", "polite", Group{Name: messyPolite, Line: 3, CrawlDelay: 3 * time.Second}, nil},
		{"messy.txt", "latecomer", Group{Name: "User-agent: latecomer", Line: 16}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.file+" "+tc.agent, func(t *testing.T) {
			r := Parse(readFixture(t, tc.file))
			if got := r.Group(tc.agent); got != tc.want {
				t.Errorf("Group(%q) = %+v, want %+v", tc.agent, got, tc.want)
			}
			if got := r.Sitemaps(); !slices.Equal(got, tc.wantSitemaps) {
				t.Errorf("Sitemaps() = %q, want %q", got, tc.wantSitemaps)
			}
		})
	}
}

// TestFixturesTemoto records which fixtures temoto alone cannot read at all.
func TestFixturesTemoto(t *testing.T) {
	tests := []struct {
		file    string
		wantErr bool
	}{
		{"news.txt", false},
		{"wiki.txt", false},
		{"shop.txt", false},
		{"messy.txt", true},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			_, err := robotstxt.FromBytes(readFixture(t, tc.file))
			if got := err != nil; got != tc.wantErr {
				t.Errorf("temoto FromBytes error = %v, want error %v", err, tc.wantErr)
			}
		})
	}
}
