package robots

// This file is polite's own pre-pass over a robots.txt body. It exists
// because github.com/temoto/robotstxt v1.1.2 departs from RFC 9309 in how it
// reads lines and builds groups; rfc_test.go pins every departure with a
// case whose temoto field records what temoto alone answers:
//
//   - One line temoto dislikes (a rule before the first User-agent, a bad
//     or empty Crawl-delay, a partial byte-order mark, "User agent" with a
//     space) makes temoto reject the whole file. Here such a line is
//     skipped and the others are used (RFC 9309 2.2).
//   - temoto counts a Crawl-delay as a rule, so a Crawl-delay between two
//     User-agent lines splits them into two groups. Here only a User-agent
//     line that follows an Allow or Disallow starts a new group (RFC 9309
//     2.1, 2.2.4: other records must not interfere with grouping).
//   - temoto drops a last group that has no rules, so its agent falls back
//     to "*". Here it stays a group that allows everything (RFC 9309 2.1).
//   - temoto keeps only the first word of a value ("Disallow: /a b" blocks
//     "/a"). Here the value runs to the end of the line or comment, as in
//     the reference parser, and is percent-encoded before matching.
//   - temoto reads "#" glued to a value as part of the value, and a space
//     before the colon as part of the value. Here "#" always starts a
//     comment and whitespace around the colon is ignored, as in Google's
//     reference parser.
//   - The misspellings Google's reference parser accepts (disalow,
//     dissallow, dissalow, diasllow, disallaw, useragent, user agent,
//     site-map) are accepted, and a key may be separated from its value by
//     whitespace alone when the line has exactly two words.
//
// Group selection, precedence and pattern matching are in match.go.

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"time"
)

// kind is what a robots.txt line is.
type kind int

const (
	kindUnknown kind = iota
	kindUserAgent
	kindAllow
	kindDisallow
	kindSitemap
	kindCrawlDelay
	kindRequestRate
	kindContentUsage
)

// keys maps a lower-cased key, inner whitespace collapsed to one space, to
// its kind. The misspellings are those Google's reference parser accepts.
var keys = map[string]kind{
	"user-agent":    kindUserAgent,
	"useragent":     kindUserAgent,
	"user agent":    kindUserAgent,
	"allow":         kindAllow,
	"disallow":      kindDisallow,
	"dissallow":     kindDisallow,
	"dissalow":      kindDisallow,
	"disalow":       kindDisallow,
	"diasllow":      kindDisallow,
	"disallaw":      kindDisallow,
	"sitemap":       kindSitemap,
	"site-map":      kindSitemap,
	"crawl-delay":   kindCrawlDelay,
	"crawldelay":    kindCrawlDelay,
	"request-rate":  kindRequestRate,
	"requestrate":   kindRequestRate,
	"content-usage": kindContentUsage,
}

// line is one meaningful line of a robots.txt file.
type line struct {
	kind  kind
	value string // trimmed, comment removed
	text  string // the whole line as written, comment and outer space removed
	num   int    // 1-based line number
}

// truncate keeps the first MaxBytes of body, cut after the last complete
// line inside them (RFC 9309 2.5). A body of one line longer than MaxBytes
// keeps nothing.
func truncate(body []byte) []byte {
	if len(body) <= MaxBytes {
		return body
	}
	head := body[:MaxBytes]
	if i := bytes.LastIndexAny(head, "\r\n"); i >= 0 {
		return head[:i+1]
	}
	return nil
}

// stripBOM removes a UTF-8 byte-order mark, or the start of one, from the
// beginning of body, as Google's reference parser does.
func stripBOM(body []byte) []byte {
	bom := []byte{0xEF, 0xBB, 0xBF}
	for i := 0; i < len(bom) && len(body) > 0 && body[0] == bom[i]; i++ {
		body = body[1:]
	}
	return body
}

// splitLines calls fn for each line of body with its 1-based number. CR,
// LF and CRLF all end a line; CRLF counts once.
func splitLines(body []byte, fn func(num int, raw []byte)) {
	num := 0
	for len(body) > 0 {
		i := bytes.IndexAny(body, "\r\n")
		if i < 0 {
			num++
			fn(num, body)
			return
		}
		num++
		fn(num, body[:i])
		if body[i] == '\r' && i+1 < len(body) && body[i+1] == '\n' {
			i++
		}
		body = body[i+1:]
	}
}

// isSpace reports whether c is ASCII white space other than a line end.
func isSpace(c rune) bool {
	return c == ' ' || c == '\t' || c == '\v' || c == '\f'
}

// parseLine reads one raw line. ok is false for a blank line, a comment,
// or a line with no key.
func parseLine(num int, raw []byte) (l line, ok bool) {
	s := string(raw)
	if i := strings.IndexByte(s, '#'); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimFunc(s, isSpace)
	if s == "" {
		return line{}, false
	}
	key, value, found := strings.Cut(s, ":")
	if !found {
		// Google's reference parser accepts whitespace in place of a
		// missing colon when the line has exactly two words.
		f := strings.FieldsFunc(s, isSpace)
		if len(f) != 2 {
			return line{}, false
		}
		key, value = f[0], f[1]
	}
	key = strings.Join(strings.FieldsFunc(strings.ToLower(key), isSpace), " ")
	if key == "" {
		return line{}, false
	}
	return line{
		kind:  keys[key],
		value: strings.TrimFunc(value, isSpace),
		text:  s,
		num:   num,
	}, true
}

// lines returns the meaningful lines of body: the first MaxBytes, without
// a byte-order mark, blank lines and comments.
func lines(body []byte) []line {
	var out []line
	splitLines(stripBOM(truncate(body)), func(num int, raw []byte) {
		if l, ok := parseLine(num, raw); ok {
			out = append(out, l)
		}
	})
	return out
}

// agentLine is one User-agent line of a group.
type agentLine struct {
	token string // lower-cased product token; "*" for the global group; "" matches nothing
	text  string
	num   int
}

// group is one group of a robots.txt file as written.
type group struct {
	agents      []agentLine
	rules       []*rule
	crawlDelay  time.Duration
	requestRate Rate
	usage       []usageRule // Content-Usage lines (draft-ietf-aipref-attach)
}

// parsed is what the pre-pass makes of a file.
type parsed struct {
	groups   []*group
	sitemaps []string
}

// build groups the lines of a file (RFC 9309 2.1, 2.2.1). A User-agent
// line opens a new group only after a rule; Crawl-delay, Request-rate,
// Sitemap and unknown lines leave the grouping alone. Rules, Crawl-delay
// and Request-rate before the first User-agent line are ignored. When a
// group repeats Crawl-delay or Request-rate, the slowest value counts.
func build(ls []line) parsed {
	var (
		p       parsed
		cur     *group
		inRules bool
	)
	for _, l := range ls {
		switch l.kind {
		case kindUserAgent:
			if cur == nil || inRules {
				cur = &group{}
				p.groups = append(p.groups, cur)
				inRules = false
			}
			cur.agents = append(cur.agents, agentLine{token: agentToken(l.value), text: l.text, num: l.num})
		case kindAllow, kindDisallow:
			if cur == nil {
				continue
			}
			cur.rules = append(cur.rules, newRule(l.kind == kindAllow, l.value, l.text, l.num))
			inRules = true
		case kindContentUsage:
			// A rule of its group, as Allow and Disallow are: the next
			// User-agent line opens a new group.
			if cur == nil {
				continue
			}
			inRules = true
			if u, ok := newUsageRule(l); ok {
				cur.usage = append(cur.usage, u)
			}
		case kindCrawlDelay:
			if d, ok := parseCrawlDelay(l.value); ok && cur != nil {
				cur.crawlDelay = max(cur.crawlDelay, d)
			}
		case kindRequestRate:
			f := strings.FieldsFunc(l.value, isSpace)
			if len(f) == 0 || cur == nil {
				continue
			}
			if rate, err := ParseRequestRate(f[0]); err == nil {
				cur.requestRate = slower(cur.requestRate, rate)
			}
		case kindSitemap:
			if l.value != "" {
				p.sitemaps = append(p.sitemaps, l.value)
			}
		}
	}
	return p
}

// agentToken reduces a User-agent value from a file to the token it is
// matched by: "*" for the global group (also "* anything", as Google's
// reference parser reads it), else the lower-cased product token
// ("PoliteBot/1.0" -> "politebot").
func agentToken(v string) string {
	if v == "*" || strings.HasPrefix(v, "*") && len(v) > 1 && isSpace(rune(v[1])) {
		return "*"
	}
	return strings.ToLower(ProductToken(v))
}

// maxDelay caps a Crawl-delay so that huge values do not overflow.
const maxDelay = time.Duration(1<<63 - 1)

// parseCrawlDelay reads a Crawl-delay value in seconds; decimals are
// allowed. Negative, empty and non-numeric values are not ok.
func parseCrawlDelay(v string) (time.Duration, bool) {
	f := strings.FieldsFunc(v, isSpace)
	if len(f) == 0 {
		return 0, false
	}
	secs, err := strconv.ParseFloat(f[0], 64)
	if err != nil || math.IsNaN(secs) || math.IsInf(secs, 0) || secs < 0 {
		return 0, false
	}
	if secs >= maxDelay.Seconds() {
		return maxDelay, true
	}
	return time.Duration(secs * float64(time.Second)), true
}

// slower returns whichever of a and b asks for the longer interval; a zero
// Rate counts as absent.
func slower(a, b Rate) Rate {
	if a.Requests == 0 || b.Interval() > a.Interval() {
		return b
	}
	return a
}
