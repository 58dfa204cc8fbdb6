// Package exclude decides what the operator's exclusion list (polite
// exclude) keeps polite from requesting: its rules read and put in normal
// form, a host or a URL matched against them, and the list a running
// crawl honours, read again from the database whenever it changes.
//
// A rule is one of three kinds:
//
//   - a host, "example.org": every URL of that exact name, on every port
//     and under both schemes;
//   - a domain, ".example.org" (or "*.example.org"): example.org and every
//     name under it;
//   - a URL prefix, "https://example.org/private/": the URLs whose normal
//     form starts with it, compared under both schemes on the same port
//     (http://example.org/private/ is the same rule, and is written with
//     https). The prefix is a string prefix: /priv covers /private too;
//     end it with / to mean a folder.
//
// A host or domain rule covers the host itself: no request of any kind
// goes to it, robots.txt included. A prefix rule covers a host only when
// it covers the host's /robots.txt (a prefix ending at the host, such as
// https://example.org/): polite asks nothing of a host before its
// robots.txt.
package exclude

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"sort"
	"strings"

	"github.com/polite-crawler/polite/crawl/urls"
)

// Kind is what a rule names.
type Kind string

// The kinds of rule.
const (
	Host   Kind = "host"   // a host name, every port and scheme
	Domain Kind = "domain" // a name and every name under it
	Prefix Kind = "prefix" // a URL prefix, under both schemes
)

// Rule is one rule in normal form. Get one from Parse.
type Rule struct {
	Text string // the rule in normal form, as stored and reported
	Kind Kind

	name    string   // Host, Domain: the host name (punycode, lower case; an IPv6 address in brackets)
	origins []string // Prefix: the origins it covers, "scheme://host[:port]", one per scheme
	path    string   // Prefix: the path (and query) prefix
}

// Parse reads a rule as an operator types it and puts it in normal form:
// the host name lower-cased and in punycode, the prefix normalised as
// the frontier normalises URLs. A rule that is none of the three kinds
// is an error saying what is wrong.
func Parse(s string) (Rule, error) {
	raw := strings.TrimSpace(s)
	switch {
	case raw == "":
		return Rule{}, errors.New("empty rule: give a host, .domain or URL prefix")
	case strings.Contains(raw, "://"):
		return parsePrefix(raw)
	case strings.HasPrefix(raw, "*."), strings.HasPrefix(raw, "."):
		name, err := hostName(strings.TrimPrefix(strings.TrimPrefix(raw, "*"), "."), raw)
		if err != nil {
			return Rule{}, err
		}
		if isIP(name) {
			return Rule{}, fmt.Errorf("rule %q: an address has no subdomains; give it without the leading dot", raw)
		}
		return Rule{Text: "." + name, Kind: Domain, name: name}, nil
	}
	name, err := hostName(raw, raw)
	if err != nil {
		return Rule{}, err
	}
	return Rule{Text: name, Kind: Host, name: name}, nil
}

// hostName is the normal form of a rule's host name, refusing a port, a
// path or anything else that is no bare name; raw is the rule as typed.
func hostName(s, raw string) (string, error) {
	if strings.ContainsAny(s, "/?#@") {
		return "", fmt.Errorf("rule %q is neither a host nor a URL prefix: a prefix needs its scheme (https://%s)", raw, s)
	}
	if ip := net.ParseIP(s); ip != nil && strings.Contains(s, ":") {
		s = "[" + s + "]" // a bare IPv6 address
	}
	u, err := url.Parse("http://" + s + "/")
	if err != nil || u.Hostname() == "" {
		return "", fmt.Errorf("rule %q: not a host name", raw)
	}
	if u.Port() != "" || strings.HasSuffix(u.Host, ":") {
		return "", fmt.Errorf("rule %q: a host rule covers every port; to exclude one port give a URL prefix (https://%s/)", raw, s)
	}
	key, err := urls.HostKey(s)
	if err != nil {
		return "", fmt.Errorf("rule %q: not a host name", raw)
	}
	return key, nil
}

// parsePrefix reads a URL prefix rule. Its normal form is written with
// https, the scheme it is read under either way, so that one prefix
// typed with either scheme is one rule; but for a port that is the other
// scheme's default (http://example.org:443/), which the https form
// could not say.
func parsePrefix(raw string) (Rule, error) {
	u, text, err := urls.Normalized(raw)
	if err != nil {
		return Rule{}, fmt.Errorf("URL prefix rule: %v", err) // err names the URL, its credentials hidden
	}
	o, err := swapScheme(u)
	if err != nil {
		return Rule{}, fmt.Errorf("URL prefix rule under %s: %v", o.Scheme, err)
	}
	if u.Scheme == "http" {
		if back, err := swapScheme(o); err == nil && back.Host == u.Host {
			text = o.String()
		}
	}
	_, _, path := split(text)
	return Rule{Text: text, Kind: Prefix, origins: []string{u.Scheme + "://" + u.Host, o.Scheme + "://" + o.Host}, path: path}, nil
}

// swapScheme is the normalised u under the other scheme, its port kept.
func swapScheme(u *url.URL) (*url.URL, error) {
	other := *u
	other.Scheme = map[string]string{"http": "https", "https": "http"}[u.Scheme]
	o, err := urls.Parse(other.String())
	if err != nil {
		return &other, err
	}
	return o, nil
}

// split cuts a normalised URL into its origin ("scheme://host[:port]"),
// its host key and its path and query.
func split(u string) (origin, key, path string) {
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok {
		return "", "", ""
	}
	key, path = rest, "/"
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		key, path = rest[:i], rest[i:]
		if path[0] == '?' {
			path = "/" + path
		}
	}
	return scheme + "://" + key, key, path
}

// nameOf is the host name of a host key: the key without its port.
func nameOf(key string) string {
	if strings.HasPrefix(key, "[") {
		if i := strings.IndexByte(key, ']'); i > 0 {
			return key[:i+1]
		}
		return key
	}
	if i := strings.LastIndexByte(key, ':'); i >= 0 {
		return key[:i]
	}
	return key
}

// isIP reports whether a host name is an address.
func isIP(name string) bool {
	return strings.HasPrefix(name, "[") || net.ParseIP(name) != nil
}

// List is a set of rules, ready to match. The zero List matches nothing;
// a List is safe for concurrent reads.
type List struct {
	rules    []Rule
	hosts    map[string]string // name -> rule
	domains  map[string]string // name -> rule
	prefixes map[string][]Rule // origin -> its prefix rules
}

// NewList returns the list of rules, each given in any form Parse reads;
// a rule it cannot read is an error naming it.
func NewList(rules ...string) (*List, error) {
	l := &List{hosts: map[string]string{}, domains: map[string]string{}, prefixes: map[string][]Rule{}}
	for _, s := range rules {
		r, err := Parse(s)
		if err != nil {
			return nil, err
		}
		l.rules = append(l.rules, r)
		switch r.Kind {
		case Host:
			l.hosts[r.name] = r.Text
		case Domain:
			l.domains[r.name] = r.Text
		case Prefix:
			for _, o := range r.origins {
				l.prefixes[o] = append(l.prefixes[o], r)
			}
		}
	}
	for _, rs := range l.prefixes {
		sort.Slice(rs, func(i, j int) bool { return rs[i].Text < rs[j].Text })
	}
	return l, nil
}

// Len is how many rules the list has.
func (l *List) Len() int {
	if l == nil {
		return 0
	}
	return len(l.rules)
}

// Host returns the rule that covers the host with key (host[:port], as
// polite paces it, under either scheme) as a whole, "" for none: a host
// or domain rule for its name, or a prefix that covers its /robots.txt.
func (l *List) Host(key string) string {
	if l.Len() == 0 {
		return ""
	}
	if r := l.name(nameOf(key)); r != "" {
		return r
	}
	if r := l.prefix("https://"+key, "/robots.txt"); r != "" {
		return r
	}
	return l.prefix("http://"+key, "/robots.txt")
}

// URL returns the rule that covers the normalised URL u, "" for none.
func (l *List) URL(u string) string {
	if l.Len() == 0 {
		return ""
	}
	origin, key, path := split(u)
	if r := l.name(nameOf(key)); r != "" {
		return r
	}
	return l.prefix(origin, path)
}

// name returns the host or domain rule that covers a host name.
func (l *List) name(name string) string {
	if r, ok := l.hosts[name]; ok {
		return r
	}
	if len(l.domains) == 0 || isIP(name) {
		return ""
	}
	for s := name; ; {
		if r, ok := l.domains[s]; ok {
			return r
		}
		i := strings.IndexByte(s, '.')
		if i < 0 {
			return ""
		}
		s = s[i+1:]
	}
}

// prefix returns the first prefix rule (in order of their text) of the
// origin that covers path.
func (l *List) prefix(origin, path string) string {
	for _, r := range l.prefixes[origin] {
		if strings.HasPrefix(path, r.path) {
			return r.Text
		}
	}
	return ""
}
