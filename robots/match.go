package robots

// Matching a path against the rules of a group (RFC 9309 2.2.2, 2.2.3).
//
// A plain rule (no "*", no trailing "$") is matched by
// github.com/temoto/robotstxt, which gets prefix matching right. polite
// does the rest itself, because temoto departs from the RFC there:
//
//   - temoto compiles a wildcard rule to a regular expression that is not
//     anchored at the start of the path, so "Disallow: /fish*.php" also
//     blocks "/x/fish.php", and "Disallow: $" blocks every path ending in
//     "/". Here a pattern always starts at the start of the path.
//   - temoto drops trailing "*", so "Disallow: *" becomes an empty rule that
//     matches nothing. Here it matches everything.
//   - temoto treats "$" anywhere as an end anchor. Here, as in Google's
//     reference parser, "$" is special only as the last character; elsewhere
//     it is a literal "$".
//   - temoto measures a wildcard rule by the length of its regular
//     expression ("\." counts two) and lets the first of two equally long
//     rules win. Here a rule's length is its octets after
//     percent-normalisation, and Allow wins a tie (RFC 9309 2.2.2).
//   - temoto compares bytes as written. Here rule and path are both
//     percent-normalised first (RFC 9309 2.2.2): "%xx" is upper-cased, an
//     encoded unreserved character is decoded, and a raw non-ASCII octet,
//     space or other character not allowed in a URI is encoded. "%2A" and
//     "%24" in a rule stay literal "*" and "$" and match a raw "*" or "$"
//     in the path (RFC 9309 2.2.3).
//
// A rule value that does not start with "/" or "*" is read with a "/" in
// front, as temoto does ("Disallow: private" blocks "/private"). Google's
// reference parser lets such a rule match nothing; polite reads what the
// author evidently meant, which fetches less.

import (
	"net/url"
	"strings"

	"github.com/temoto/robotstxt"
)

// rule is one Allow or Disallow line, compiled.
type rule struct {
	allow    bool
	text     string // the line as written
	num      int
	pattern  string           // normalised; "*" a wildcard, a final "$" the end; "" matches nothing
	plain    *robotstxt.Group // temoto's matcher when pattern has no wildcard and no anchor
	segs     []string         // pattern without its anchor, split at "*"; nil for a plain pattern
	anchored bool
}

// newRule compiles an Allow or Disallow value.
func newRule(allow bool, value, text string, num int) *rule {
	r := &rule{allow: allow, text: text, num: num}
	if value == "" {
		return r // an empty rule matches nothing (RFC 9309 2.2.2)
	}
	if value[0] != '/' && value[0] != '*' {
		value = "/" + value
	}
	r.pattern = normalise(value, true)
	body := r.pattern
	if strings.HasSuffix(body, "$") {
		r.anchored = true
		body = body[:len(body)-1]
	}
	if r.anchored || strings.Contains(body, "*") {
		r.segs = strings.Split(body, "*")
		return r
	}
	r.plain = temotoPrefix(body)
	return r
}

// temotoPrefix has temoto compile a plain pattern as the one rule of a
// file. A normalised pattern holds no white space, "#" or control byte, so
// temoto reads it whole; nil (never seen) falls back to strings.HasPrefix.
func temotoPrefix(pattern string) *robotstxt.Group {
	data, err := robotstxt.FromBytes([]byte("User-agent: *\nDisallow: " + pattern + "\n"))
	if err != nil {
		return nil
	}
	return data.FindGroup("*")
}

// match reports whether the rule applies to a normalised path.
func (r *rule) match(path string) bool {
	switch {
	case r.pattern == "":
		return false
	case r.segs != nil:
		return globMatch(r.segs, r.anchored, path)
	case r.plain != nil:
		// The rule is compiled as a Disallow: temoto's Test is false
		// exactly when it matches.
		return !r.plain.Test(path)
	}
	return strings.HasPrefix(path, r.pattern)
}

// MatchPattern matches path against a pattern as written, with no
// normalisation: "*" stands for any run of characters, a final "$" for
// the end of the path; otherwise the pattern is a prefix. It is how other
// files of a site (TDMRep's tdmrep.json) write their path rules.
func MatchPattern(pattern, path string) bool {
	anchored := strings.HasSuffix(pattern, "$")
	return globMatch(strings.Split(strings.TrimSuffix(pattern, "$"), "*"), anchored, path)
}

// globMatch matches path against a pattern split at its wildcards, from
// the start of the path, to its end when anchored. Taking the leftmost
// occurrence of each segment is enough when "*" is the only wildcard, and
// keeps the cost linear in the path for each segment.
func globMatch(segs []string, anchored bool, path string) bool {
	first := segs[0]
	if !strings.HasPrefix(path, first) {
		return false
	}
	pos := len(first)
	if len(segs) == 1 {
		return !anchored || pos == len(path)
	}
	for _, s := range segs[1 : len(segs)-1] {
		i := strings.Index(path[pos:], s)
		if i < 0 {
			return false
		}
		pos += i + len(s)
	}
	last := segs[len(segs)-1]
	if anchored {
		return len(path)-len(last) >= pos && strings.HasSuffix(path, last)
	}
	return strings.Contains(path[pos:], last)
}

// decide finds the rule that decides for path: the longest match, Allow on
// a tie with a Disallow of the same length; among equals the first one in
// the file. tie reports that an equally long rule of the other kind also
// matched.
func decide(rules []*rule, path string) (best *rule, tie bool) {
	for _, r := range rules {
		if !r.match(path) {
			continue
		}
		switch n := len(r.pattern); {
		case best == nil || n > len(best.pattern):
			best, tie = r, false
		case n == len(best.pattern) && r.allow != best.allow:
			tie = true
			if r.allow {
				best = r
			}
		}
	}
	return best, tie
}

const upperHex = "0123456789ABCDEF"

// normalise percent-normalises a path or, when pattern is true, a rule
// value, so that the two compare octet by octet (RFC 9309 2.2.2):
//
//   - "%xx" of an unreserved character (ALPHA, DIGIT, "-", ".", "_", "~")
//     becomes the character; any other "%xx" is upper-cased;
//   - a "%" not followed by two hex digits becomes "%25";
//   - a raw octet outside printable ASCII, a space, or one of `"<>\^{|}`
//     and the backquote, none of which may appear raw in a URI, is encoded;
//   - a raw "*" becomes "%2A" in a path and stays a wildcard in a pattern;
//   - a raw "$" becomes "%24", except as the last character of a pattern,
//     where it anchors the end.
func normalise(s string, pattern bool) string {
	var b strings.Builder
	b.Grow(len(s))
	enc := func(c byte) {
		b.WriteByte('%')
		b.WriteByte(upperHex[c>>4])
		b.WriteByte(upperHex[c&0xF])
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			v := unhex(s[i+1])<<4 | unhex(s[i+2])
			if isUnreserved(v) {
				b.WriteByte(v)
			} else {
				enc(v)
			}
			i += 2
		case c == '*' && pattern:
			b.WriteByte(c)
		case c == '$' && pattern && i == len(s)-1:
			b.WriteByte(c)
		case c == '%', c == '*', c == '$', c <= ' ', c >= 0x7F, strings.IndexByte("\"<>\\^`{|}", c) >= 0:
			enc(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// normaliseTarget turns what Test is given into a normalised path: the path and
// query of an absolute URL, without a fragment, starting with "/".
func normaliseTarget(t string) string {
	if strings.HasPrefix(t, "http://") || strings.HasPrefix(t, "https://") {
		if u, err := url.Parse(t); err == nil {
			t = u.RequestURI()
		}
	}
	if i := strings.IndexByte(t, '#'); i >= 0 {
		t = t[:i]
	}
	if !strings.HasPrefix(t, "/") {
		t = "/" + t
	}
	return normalise(t, false)
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}
