package robots

import (
	"strings"
	"testing"

	"github.com/temoto/robotstxt"
)

// rfcCase is one robots.txt question with the answer RFC 9309 (or, in its
// grey areas, Google's reference parser) gives.
type rfcCase struct {
	name  string
	txt   string
	agent string // "" means "polite"
	path  string
	want  bool // allowed
	// temoto is what temoto/robotstxt alone answers ("allow", "disallow",
	// or "error" when FromBytes rejects the file) when it differs from
	// want; "" means temoto agrees. Every non-empty value is a correction
	// this package makes.
	temoto string
	ref    string // the RFC 9309 section or reference-parser behaviour followed
}

// longLine is a rule line longer than Google's reference parser's line
// buffer (2083*8 octets).
var longLine = "Disallow: /" + strings.Repeat("a", 20000)

var rfcCases = []rfcCase{
	// Groups and user-agent matching.
	{name: "star group applies when no group names the agent", txt: "User-agent: *\nDisallow: /a\n", path: "/a", want: false, ref: "2.2.1 obey the * group"},
	{name: "named group replaces star group", txt: "User-agent: *\nDisallow: /\n\nUser-agent: polite\nDisallow: /b\n", path: "/a", want: true, ref: "2.2.1"},
	{name: "named group rules apply", txt: "User-agent: *\nDisallow: /\n\nUser-agent: polite\nDisallow: /b\n", path: "/b", want: false, ref: "2.2.1"},
	{name: "agent matching ignores case", txt: "User-agent: POLITE\nDisallow: /a\n", path: "/a", want: false, ref: "2.2.1 case-insensitive matching"},
	{name: "agent matching ignores case of our token", txt: "User-agent: polite\nDisallow: /a\n", agent: "Polite", path: "/a", want: false, ref: "2.2.1 case-insensitive matching"},
	{name: "group token is not a prefix of the agent", txt: "User-agent: Polite\nDisallow: /a\n", agent: "PoliteBot", path: "/a", want: true, temoto: "disallow", ref: "2.2.1 the product token is matched whole"},
	{name: "longer group token does not match", txt: "User-agent: politebot\nDisallow: /a\n", path: "/a", want: true, ref: "2.2.1"},
	{name: "group value reduced to its product token", txt: "User-agent: Polite/1.0\nDisallow: /a\n", path: "/a", want: false, temoto: "allow", ref: "reference parser ExtractUserAgent: [a-zA-Z_-] prefix of the value"},
	{name: "hyphen and underscore in token", txt: "User-agent: my_bot-x\nDisallow: /\n", agent: "My_Bot-X", path: "/a", want: false, ref: "2.2.1 token is [a-zA-Z_-]"},
	{name: "full user-agent string reduced to token", txt: "User-agent: polite\nDisallow: /a\n", agent: "polite/0.1 (+https://example.org)", path: "/a", want: false, ref: "2.2.1 product token"},
	{name: "groups naming one agent are merged first rule", txt: "User-agent: polite\nDisallow: /a\n\nUser-agent: *\nDisallow: /\n\nUser-agent: polite\nDisallow: /b\n", path: "/a", want: false, ref: "2.2.1 matching groups combined"},
	{name: "groups naming one agent are merged second rule", txt: "User-agent: polite\nDisallow: /a\n\nUser-agent: *\nDisallow: /\n\nUser-agent: polite\nDisallow: /b\n", path: "/b", want: false, ref: "2.2.1 matching groups combined"},
	{name: "merged group keeps star out", txt: "User-agent: polite\nDisallow: /a\n\nUser-agent: *\nDisallow: /\n\nUser-agent: polite\nDisallow: /b\n", path: "/c", want: true, ref: "2.2.1"},
	{name: "several user-agent lines share a group", txt: "User-agent: a\nUser-agent: polite\nDisallow: /x\n", path: "/x", want: false, ref: "2.1 group: one or more user-agent lines"},
	{name: "blank line between user-agent lines keeps one group", txt: "User-agent: polite\n\nUser-agent: a\nDisallow: /x\n", path: "/x", want: false, ref: "2.2 ABNF: *(startgroupline / emptyline)"},
	{name: "crawl-delay between user-agent lines keeps one group", txt: "User-agent: polite\nCrawl-delay: 5\nUser-agent: a\nDisallow: /x\n", path: "/x", want: false, temoto: "allow", ref: "2.2.4 other records must not interfere with groups"},
	{name: "request-rate between user-agent lines keeps one group", txt: "User-agent: polite\nRequest-rate: 1/5\nUser-agent: a\nDisallow: /x\n", path: "/x", want: false, ref: "2.2.4 other records must not interfere with groups"},
	{name: "sitemap between user-agent lines keeps one group", txt: "User-agent: polite\nSitemap: https://example.org/s.xml\nUser-agent: a\nDisallow: /x\n", path: "/x", want: false, ref: "2.2.4 a Sitemaps record must not terminate a group"},
	{name: "unknown record between user-agent lines keeps one group", txt: "User-agent: polite\nNoindex: /y\nUser-agent: a\nDisallow: /x\n", path: "/x", want: false, ref: "2.2.4; the reference parser would split here, the RFC does not"},
	{name: "user-agent after a rule starts a new group", txt: "User-agent: polite\nDisallow: /x\nUser-agent: a\nDisallow: /y\n", path: "/y", want: true, ref: "2.1 group terminated by a user-agent line"},
	{name: "empty last group is a group with no rules", txt: "User-agent: *\nDisallow: /\n\nUser-agent: polite\n", path: "/x", want: true, temoto: "disallow", ref: "2.1 the last group may have no rules: allows everything; 5.1 quxbot"},
	{name: "empty last group leaves other agents alone", txt: "User-agent: *\nDisallow: /\n\nUser-agent: polite\n", agent: "other", path: "/x", want: false, ref: "2.1"},
	{name: "group with only crawl-delay matches", txt: "User-agent: *\nDisallow: /\n\nUser-agent: polite\nCrawl-delay: 3\n", path: "/x", want: true, ref: "2.1 a group without rules allows everything"},
	{name: "no matching group and no star allows", txt: "User-agent: a\nDisallow: /\n", path: "/x", want: true, ref: "2.2.1 no group matches: no rules apply"},
	{name: "star followed by words is global", txt: "User-agent: * everyone\nDisallow: /a\n", path: "/a", want: false, ref: "reference parser: '*' then space is the global group"},
	{name: "empty user-agent value names nobody", txt: "User-agent:\nDisallow: /a\n", path: "/a", want: true, ref: "2.2.1 product-token required"},
	{name: "star group ignored when agent has its own", txt: "User-agent: polite\nAllow: /\n\nUser-agent: *\nDisallow: /\n", path: "/a", want: true, ref: "2.2.1"},

	// Lines that do not parse are skipped; the rest count.
	{name: "rule before first user-agent ignored", txt: "Disallow: /x\nUser-agent: *\nDisallow: /a\n", path: "/x", want: true, temoto: "error", ref: "2.2.2 ignore rules not in any group; 2.3.1.5 use the parseable rules"},
	{name: "rule before first user-agent does not spoil the rest", txt: "Disallow: /x\nUser-agent: *\nDisallow: /a\n", path: "/a", want: false, temoto: "error", ref: "2.3.1.5 use the parseable rules"},
	{name: "non-numeric crawl-delay skipped", txt: "User-agent: *\nCrawl-delay: soon\nDisallow: /a\n", path: "/a", want: false, temoto: "error", ref: "2.3.1.5"},
	{name: "empty crawl-delay skipped", txt: "User-agent: *\nCrawl-delay:\nDisallow: /a\n", path: "/a", want: false, temoto: "error", ref: "2.3.1.5"},
	{name: "negative crawl-delay skipped", txt: "User-agent: *\nCrawl-delay: -1\nDisallow: /a\n", path: "/a", want: false, temoto: "error", ref: "2.3.1.5"},
	{name: "crawl-delay before first user-agent skipped", txt: "Crawl-delay: 4\nUser-agent: *\nDisallow: /a\n", path: "/a", want: false, temoto: "error", ref: "2.3.1.5"},
	{name: "bad request-rate skipped", txt: "User-agent: *\nRequest-rate: fast\nDisallow: /a\n", path: "/a", want: false, ref: "2.3.1.5"},
	{name: "partial byte-order mark skipped", txt: "\xef\xbbUser-agent: *\nDisallow: /a\n", path: "/a", want: false, temoto: "error", ref: "reference parser skips a BOM prefix"},
	{name: "full byte-order mark skipped", txt: "\xef\xbb\xbfUser-agent: *\nDisallow: /a\n", path: "/a", want: false, ref: "reference parser skips a BOM"},
	{name: "user agent with a space", txt: "User agent: *\nDisallow: /a\n", path: "/a", want: false, temoto: "error", ref: "2.2.4 misspellings; reference parser accepts 'user agent'"},
	{name: "useragent without hyphen", txt: "Useragent: *\nDisallow: /a\n", path: "/a", want: false, ref: "reference parser accepts 'useragent'"},
	{name: "key case does not matter", txt: "USER-AGENT: *\nDISALLOW: /a\n", path: "/a", want: false, ref: "2.2 ABNF strings are case-insensitive"},
	{name: "odd case user-agent", txt: "uSeR-aGeNt: *\ndisALLOW: /a\n", path: "/a", want: false, ref: "2.2 ABNF strings are case-insensitive"},
	{name: "misspelt disalow", txt: "User-agent: *\nDisalow: /a\n", path: "/a", want: false, temoto: "allow", ref: "reference parser accepts 'disalow'"},
	{name: "misspelt dissallow", txt: "User-agent: *\nDissallow: /a\n", path: "/a", want: false, temoto: "allow", ref: "reference parser accepts 'dissallow'"},
	{name: "misspelt disallaw", txt: "User-agent: *\nDisallaw: /a\n", path: "/a", want: false, temoto: "allow", ref: "reference parser accepts 'disallaw'"},
	{name: "space before colon", txt: "User-agent : *\nDisallow : /a\n", path: "/a", want: false, temoto: "allow", ref: "2.2 ABNF: *WS \":\""},
	{name: "no space after colon", txt: "User-agent:*\nDisallow:/a\n", path: "/a", want: false, ref: "2.2 ABNF: *WS; 5.1 foobot"},
	{name: "tab around colon", txt: "User-agent:\t*\nDisallow\t:\t/a\n", path: "/a", want: false, temoto: "allow", ref: "2.2 ABNF: WS is space or tab"},
	{name: "leading white space on a line", txt: "  User-agent: *\n\tDisallow: /a\n", path: "/a", want: false, ref: "2.2 ABNF: *WS before the key"},
	{name: "white space instead of a colon", txt: "User-agent *\nDisallow /a\n", path: "/a", want: false, ref: "reference parser accepts white space for a missing colon"},
	{name: "three words without a colon skipped", txt: "User-agent: *\nDisallow /a /b\nDisallow: /c\n", path: "/a", want: true, temoto: "disallow", ref: "reference parser: only two words may lack a colon"},
	{name: "hash glued to a value starts a comment", txt: "User-agent: *\nDisallow: /a#secret\n", path: "/a", want: false, temoto: "allow", ref: "2.2 ABNF EOL = *WS [comment] NL; 2.2.3 '#'"},
	{name: "comment after a value", txt: "# top\nUser-agent: * # all\nDisallow: /a # trailing\n", path: "/a", want: false, ref: "2.2.3 '#' designates a line comment"},
	{name: "comment only file allows", txt: "# nothing here\n", path: "/a", want: true, ref: "2.2.1 no groups: no rules apply"},
	{name: "empty file allows", txt: "", path: "/a", want: true, ref: "2.2.1 no groups: no rules apply"},
	{name: "unknown records ignored", txt: "User-agent: *\nNoindex: /a\nDisallow: /b\n", path: "/a", want: true, ref: "2.2.4"},
	{name: "space inside a value is part of the path", txt: "User-agent: *\nDisallow: /a b\n", path: "/a", want: true, temoto: "disallow", ref: "reference parser keeps the whole value; 2.2.2 encode before comparing"},
	{name: "space inside a value matches %20", txt: "User-agent: *\nDisallow: /a b\n", path: "/a%20b", want: false, ref: "2.2.2 encode before comparing"},

	// Line ends, long lines.
	{name: "CR line ends", txt: "User-agent: *\rDisallow: /a\r", path: "/a", want: false, ref: "2.2 ABNF NL = CR / LF / CRLF"},
	{name: "CRLF line ends", txt: "User-agent: *\r\nDisallow: /a\r\n", path: "/a", want: false, ref: "2.2 ABNF NL"},
	{name: "mixed line ends", txt: "User-agent: *\r\nDisallow: /a\rDisallow: /b\n", path: "/b", want: false, ref: "2.2 ABNF NL"},
	{name: "no final line end", txt: "User-agent: *\nDisallow: /a", path: "/a", want: false, ref: "2.3.1.5 parse each line"},
	{name: "very long rule line", txt: "User-agent: *\n" + longLine + "\n", path: "/" + strings.Repeat("a", 20000) + "/x", want: false, ref: "2.5 at least 500 KiB; no line limit below it"},
	{name: "line after a very long line", txt: "User-agent: *\n" + longLine + "\nDisallow: /b\n", path: "/b", want: false, ref: "2.3.1.5 parse each line"},
	{name: "line after a very long comment", txt: "User-agent: *\n#" + strings.Repeat("c", 30000) + "\nDisallow: /b\n", path: "/b", want: false, ref: "2.3.1.5 parse each line"},

	// Precedence.
	{name: "longest match wins allow", txt: "User-agent: *\nDisallow: /a\nAllow: /a/b\n", path: "/a/b/c", want: true, ref: "2.2.2 most octets wins"},
	{name: "longest match wins disallow", txt: "User-agent: *\nAllow: /a\nDisallow: /a/b\n", path: "/a/b", want: false, ref: "2.2.2 most octets wins; 5.2"},
	{name: "rfc longest match example", txt: "User-Agent: foobot\nAllow: /example/page/\nDisallow: /example/page/disallowed.gif\n", agent: "foobot", path: "/example/page/disallowed.gif", want: false, ref: "5.2"},
	{name: "allow wins a tie after the disallow", txt: "User-agent: *\nDisallow: /a\nAllow: /a\n", path: "/a", want: true, temoto: "disallow", ref: "2.2.2 equivalent rules: allow should be used"},
	{name: "allow wins a tie before the disallow", txt: "User-agent: *\nAllow: /a\nDisallow: /a\n", path: "/a", want: true, ref: "2.2.2"},
	{name: "wildcard length as written", txt: "User-agent: *\nDisallow: /a/xxx.ph\nAllow: /a/*.php\n", path: "/a/xxx.php", want: false, temoto: "allow", ref: "2.2.2 octets of the rule; reference parser: pattern length"},
	{name: "wildcard rule longer than plain rule", txt: "User-agent: *\nDisallow: /a\nAllow: /a*b\n", path: "/a/b", want: true, ref: "2.2.2"},
	{name: "trailing star counts in a tie", txt: "User-agent: *\nDisallow: /ab\nAllow: /a*\n", path: "/abc", want: true, temoto: "disallow", ref: "2.2.2 tie: allow; reference parser counts the '*'"},
	{name: "merged groups compete by length", txt: "User-agent: polite\nAllow: /a/b\n\nUser-agent: polite\nDisallow: /a\n", path: "/a/b", want: true, ref: "2.2.1 combined, then 2.2.2"},

	// Patterns.
	{name: "allow root only", txt: "User-agent: *\nAllow: /$\nDisallow: /\n", path: "/", want: true, ref: "2.2.3 '$'"},
	{name: "allow root only blocks the rest", txt: "User-agent: *\nAllow: /$\nDisallow: /\n", path: "/x", want: false, ref: "2.2.3 '$'"},
	{name: "disallow slash blocks all", txt: "User-agent: *\nDisallow: /\n", path: "/anything?x=1", want: false, ref: "2.2.2"},
	{name: "empty disallow allows all", txt: "User-agent: *\nDisallow:\n", path: "/a", want: true, ref: "2.2 ABNF empty-pattern; 2.2.2 no match"},
	{name: "empty disallow leaves other rules", txt: "User-agent: *\nDisallow:\nDisallow: /a\n", path: "/a", want: false, ref: "2.2.2"},
	{name: "empty allow leaves other rules", txt: "User-agent: *\nAllow:\nDisallow: /\n", path: "/a", want: false, ref: "2.2.2"},
	{name: "star matches any run", txt: "User-agent: *\nDisallow: /*.php\n", path: "/dir/x.php", want: false, ref: "2.2.3 '*'"},
	{name: "pattern anchored at the start", txt: "User-agent: *\nDisallow: /fish*.php\n", path: "/x/fish.php", want: true, temoto: "disallow", ref: "2.2.2 matching starts with the first octet"},
	{name: "pattern matches from the start", txt: "User-agent: *\nDisallow: /fish*.php\n", path: "/fish/salmon.php", want: false, ref: "2.2.3 '*'"},
	{name: "pattern starting with star", txt: "User-agent: *\nDisallow: *.gif$\n", path: "/a/b.gif", want: false, ref: "5.1 Disallow: *.gif$"},
	{name: "dollar anchors the end", txt: "User-agent: *\nDisallow: /*.php$\n", path: "/x.php", want: false, ref: "2.2.3 '$'"},
	{name: "dollar rejects a longer path", txt: "User-agent: *\nDisallow: /*.php$\n", path: "/x.php?y=1", want: true, ref: "2.2.3 '$'"},
	{name: "disallow star blocks all", txt: "User-agent: *\nDisallow: *\n", path: "/x", want: false, temoto: "allow", ref: "2.2.3 '*' is 0 or more characters"},
	{name: "trailing star is a prefix", txt: "User-agent: *\nDisallow: /fish*\n", path: "/fishes", want: false, ref: "2.2.3"},
	{name: "several stars", txt: "User-agent: *\nDisallow: /*/private/*.html\n", path: "/a/private/b.html", want: false, ref: "2.2.3"},
	{name: "several stars need every segment", txt: "User-agent: *\nDisallow: /*/private/*.html\n", path: "/a/public/b.html", want: true, ref: "2.2.3"},
	{name: "dollar inside a pattern is literal", txt: "User-agent: *\nDisallow: /a$b\n", path: "/a$b", want: false, temoto: "allow", ref: "reference parser: '$' special only at the end"},
	{name: "dollar inside a pattern does not anchor", txt: "User-agent: *\nDisallow: /a$b\n", path: "/a", want: true, ref: "reference parser: '$' special only at the end"},
	{name: "dollar alone is the root", txt: "User-agent: *\nDisallow: $\n", path: "/a/", want: true, temoto: "disallow", ref: "2.2.2 start at the first octet; polite reads a missing '/' as present"},
	{name: "rule without leading slash gets one", txt: "User-agent: *\nDisallow: private\n", path: "/private/x", want: false, ref: "polite keeps temoto's reading; the reference parser would match nothing"},
	{name: "paths are case sensitive", txt: "User-agent: *\nDisallow: /Private\n", path: "/private", want: true, ref: "2.2.2 matching should be case sensitive"},
	{name: "query string in a rule", txt: "User-agent: *\nDisallow: /search?q=\n", path: "/search?q=cats", want: false, ref: "2.2.2 path with query"},
	{name: "query string rule leaves the bare path", txt: "User-agent: *\nDisallow: /search?q=\n", path: "/search", want: true, ref: "2.2.2"},
	{name: "wildcard before a query", txt: "User-agent: *\nDisallow: /*?sessionid=\n", path: "/shop/x?sessionid=1", want: false, ref: "2.2.3"},
	{name: "robots.txt is always allowed", txt: "User-agent: *\nDisallow: /\n", path: "/robots.txt", want: true, temoto: "disallow", ref: "2.2.2 /robots.txt is implicitly allowed"},
	{name: "only robots.txt itself is exempt", txt: "User-agent: *\nDisallow: /\n", path: "/robots.txt.bak", want: false, ref: "2.2.2"},

	// Percent-encoding.
	{name: "percent hex case ignored", txt: "User-agent: *\nDisallow: /a%2fb\n", path: "/a%2Fb", want: false, temoto: "allow", ref: "2.2.2 percent-encoding; reference parser upper-cases %xx"},
	{name: "encoded unreserved in rule equals the character", txt: "User-agent: *\nDisallow: /%7euser\n", path: "/~user", want: false, temoto: "allow", ref: "2.2.2 unencode unreserved"},
	{name: "encoded unreserved in path equals the character", txt: "User-agent: *\nDisallow: /~user\n", path: "/%7Euser", want: false, temoto: "allow", ref: "2.2.2 unencode unreserved; example /foo/bar/%62%61%7A"},
	{name: "raw utf-8 equals its encoding", txt: "User-agent: *\nDisallow: /café\n", path: "/caf%C3%A9", want: false, temoto: "allow", ref: "2.2.2 encode non-ASCII; example U+E38384"},
	{name: "encoded utf-8 with lower-case hex", txt: "User-agent: *\nDisallow: /caf%c3%a9\n", path: "/caf%C3%A9", want: false, temoto: "allow", ref: "2.2.2"},
	{name: "encoded slash is not a slash", txt: "User-agent: *\nDisallow: /a%2Fb\n", path: "/a/b", want: true, ref: "2.2.2 reserved characters stay encoded"},
	{name: "percent 2A is a literal star", txt: "User-agent: *\nDisallow: /a%2Ab\n", path: "/a*b", want: false, temoto: "allow", ref: "2.2.3 /path/file-with-a-%2A.html"},
	{name: "percent 2A is not a wildcard", txt: "User-agent: *\nDisallow: /a%2Ab\n", path: "/axxb", want: true, ref: "2.2.3"},
	{name: "percent 24 is a literal dollar", txt: "User-agent: *\nDisallow: /foo-%24\n", path: "/foo-$", want: false, temoto: "allow", ref: "2.2.3 /path/foo-%24"},
	{name: "percent 24 does not anchor", txt: "User-agent: *\nDisallow: /foo-%24\n", path: "/foo-$bar", want: false, temoto: "allow", ref: "2.2.3"},
}

// temotoAnswer is what temoto/robotstxt alone says about a case.
func temotoAnswer(txt, agent, path string) string {
	data, err := robotstxt.FromBytes([]byte(txt))
	if err != nil {
		return "error"
	}
	if data.FindGroup(agent).Test(path) {
		return "allow"
	}
	return "disallow"
}

func answer(allowed bool) string {
	if allowed {
		return "allow"
	}
	return "disallow"
}

func TestRFC9309(t *testing.T) {
	if len(rfcCases) < 80 {
		t.Fatalf("rfcCases has %d cases, want at least 80", len(rfcCases))
	}
	seen := map[string]bool{}
	for _, tc := range rfcCases {
		t.Run(tc.name, func(t *testing.T) {
			if seen[tc.name] {
				t.Fatalf("duplicate case name %q", tc.name)
			}
			seen[tc.name] = true
			if tc.ref == "" {
				t.Fatalf("case has no ref")
			}
			agent := tc.agent
			if agent == "" {
				agent = "polite"
			}
			d := Parse([]byte(tc.txt)).Test(agent, tc.path)
			if d.Allowed != tc.want {
				t.Errorf("Test(%q, %q) = %s (%s, rule %q line %d), want %s",
					agent, tc.path, answer(d.Allowed), d.Reason, d.Rule, d.RuleLine, answer(tc.want))
			}
			wantTemoto := tc.temoto
			if wantTemoto == "" {
				wantTemoto = answer(tc.want)
			}
			if got := temotoAnswer(tc.txt, agent, tc.path); got != wantTemoto {
				t.Errorf("temoto alone = %s, want %s (update the case's temoto field)", got, wantTemoto)
			}
		})
	}
}
