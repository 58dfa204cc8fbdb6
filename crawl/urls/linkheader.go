package urls

import (
	"net/url"
	"strings"
)

// MaxLinkHeader bounds the links read from an answer's Link headers.
const MaxLinkHeader = 100

// DefaultRels are the Link relations polite follows unless told others:
// a paginated answer's next page.
var DefaultRels = []string{"next"}

// LinkRels returns the http(s) targets of the links in an answer's Link
// header fields (RFC 8288) whose relation type is one of rels, resolved
// against base and normalised, in their order, each once. A link that
// does not parse, or whose anchor makes another resource its context, is
// skipped; at most MaxLinkHeader links are read.
func LinkRels(values []string, base *url.URL, rels []string) []*url.URL {
	var out []*url.URL
	seen := map[string]bool{}
	n := 0
	for _, v := range values {
		p := linkParser{s: v}
		for n < MaxLinkHeader {
			ref, params, ok := p.next()
			if !ok {
				break
			}
			n++
			if params["anchor"] != "" || !relMatches(params["rel"], rels) {
				continue
			}
			u, err := Resolve(base, ref)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || seen[u.String()] {
				continue
			}
			seen[u.String()] = true
			out = append(out, u)
		}
	}
	return out
}

// relMatches reports whether the rel parameter (space-separated relation
// types, compared without case) names one of rels.
func relMatches(rel string, rels []string) bool {
	for _, r := range strings.Fields(rel) {
		for _, want := range rels {
			if strings.EqualFold(r, strings.TrimSpace(want)) {
				return true
			}
		}
	}
	return false
}

// linkParser reads the links of one Link field value:
// `<uri>; rel="next"; title="a, b", <uri2>; rel=prev`.
type linkParser struct {
	s string
	i int
}

// next returns the next link's target and parameters (names lower-case,
// the first of each kept); ok is false at the end of the value or at
// text that is not a link.
func (p *linkParser) next() (ref string, params map[string]string, ok bool) {
	p.skip(" \t,")
	if p.i >= len(p.s) || p.s[p.i] != '<' {
		return "", nil, false
	}
	end := strings.IndexByte(p.s[p.i:], '>')
	if end < 0 {
		return "", nil, false
	}
	ref = p.s[p.i+1 : p.i+end]
	p.i += end + 1
	params = map[string]string{}
	for {
		p.skip(" \t")
		if p.i >= len(p.s) || p.s[p.i] != ';' {
			break
		}
		p.i++
		p.skip(" \t")
		name := strings.ToLower(p.token())
		p.skip(" \t")
		val := ""
		if p.i < len(p.s) && p.s[p.i] == '=' {
			p.i++
			p.skip(" \t")
			val = p.value()
		}
		if _, dup := params[name]; !dup && name != "" {
			params[name] = val
		}
		if name == "" {
			p.skipTo(";,")
		}
	}
	return ref, params, true
}

// skip passes the bytes in set.
func (p *linkParser) skip(set string) {
	for p.i < len(p.s) && strings.IndexByte(set, p.s[p.i]) >= 0 {
		p.i++
	}
}

// skipTo passes the bytes up to one in set.
func (p *linkParser) skipTo(set string) {
	for p.i < len(p.s) && strings.IndexByte(set, p.s[p.i]) < 0 {
		p.i++
	}
}

// token reads a parameter name or unquoted value.
func (p *linkParser) token() string {
	start := p.i
	p.skipTo(" \t;,=\"")
	return p.s[start:p.i]
}

// value reads a parameter's value: a token or a quoted string, whose
// backslash escapes are undone.
func (p *linkParser) value() string {
	if p.i >= len(p.s) || p.s[p.i] != '"' {
		return p.token()
	}
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		p.i++
		switch {
		case c == '\\' && p.i < len(p.s):
			b.WriteByte(p.s[p.i])
			p.i++
		case c == '"':
			return b.String()
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
