package robots

import (
	"slices"
	"strings"
)

// UsageRule is a Content-Usage line of robots.txt (draft-ietf-aipref-attach
// section 3): a path and the usage preference, as written, that applies to
// the paths it matches. robots does not read the preference: it is a
// structured-field dictionary of the aipref vocabulary, which the caller
// parses.
type UsageRule struct {
	Path string // the path pattern, as written
	Pref string // the preference expression, as written
	Text string // the whole line, comment and outer space removed
	Line int    // 1-based line number
}

// usageRule is a compiled Content-Usage line.
type usageRule struct {
	UsageRule
	match *rule // the path, matched as an Allow or Disallow path is
}

// newUsageRule reads a Content-Usage value: a path starting with "/", then
// white space, then the preference. A line without both is not a rule.
func newUsageRule(l line) (usageRule, bool) {
	i := strings.IndexAny(l.value, " \t")
	if i < 0 || !strings.HasPrefix(l.value, "/") {
		return usageRule{}, false
	}
	path, pref := l.value[:i], strings.TrimFunc(l.value[i:], isSpace)
	if pref == "" {
		return usageRule{}, false
	}
	return usageRule{
		UsageRule: UsageRule{Path: path, Pref: pref, Text: l.text, Line: l.num},
		match:     newRule(true, path, l.text, l.num),
	}, true
}

// ContentUsage returns the Content-Usage rules of the group that applies to
// agent (RFC 9309 2.2.1, merged as for Allow and Disallow) whose path is
// the longest to match target's path, matched as RFC 9309 2.2.2 matches
// Allow and Disallow. Several rules come back when lines of that length
// repeat a path: the draft combines them (the most restrictive wins),
// unlike Allow and Disallow. A target robots.txt disallows has no usage
// preferences, and neither has one when no rule matches: nil then.
func (r *Robots) ContentUsage(agent, target string) []UsageRule {
	if r == nil || r.Access != Parsed {
		return nil
	}
	groups := r.matching(agent)
	if !slices.ContainsFunc(groups, func(g *group) bool { return len(g.usage) > 0 }) || !r.Test(agent, target).Allowed {
		return nil // most files have no Content-Usage line: no test then
	}
	path := normaliseTarget(target)
	var (
		out  []UsageRule
		best = -1
	)
	for _, g := range groups {
		for _, u := range g.usage {
			if !u.match.match(path) {
				continue
			}
			switch n := len(u.match.pattern); {
			case n > best:
				out, best = []UsageRule{u.UsageRule}, n
			case n == best:
				out = append(out, u.UsageRule)
			}
		}
	}
	return out
}

// UsageRules returns every Content-Usage rule of the group that applies
// to agent, in file order: what the site declares, whatever the path.
func (r *Robots) UsageRules(agent string) []UsageRule {
	if r == nil || r.Access != Parsed {
		return nil
	}
	var out []UsageRule
	for _, g := range r.matching(agent) {
		for _, u := range g.usage {
			out = append(out, u.UsageRule)
		}
	}
	return out
}
