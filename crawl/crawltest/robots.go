package crawltest

import "strings"

// robotsRules is the origin's own reading of its robots.txt, kept simple:
// groups of user-agent lines with their Allow and Disallow patterns. It is
// used only to count requests a crawler should not have made.
type robotsRules []robotsGroup

type robotsGroup struct {
	agents   []string
	allow    []string
	disallow []string
}

// parseRobots reads groups: consecutive User-agent lines open a group, and
// Allow/Disallow lines belong to the group above them. Lines before any
// User-agent, empty patterns and unknown fields are ignored.
func parseRobots(text string) robotsRules {
	var rules robotsRules
	inRules := true // the previous field line was a rule, so a User-agent opens a group
	for line := range strings.SplitSeq(text, "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		key = strings.ToLower(strings.TrimSpace(key))
		val = strings.TrimSpace(val)
		switch key {
		case "user-agent":
			if inRules || len(rules) == 0 {
				rules = append(rules, robotsGroup{})
			}
			g := &rules[len(rules)-1]
			g.agents = append(g.agents, strings.ToLower(val))
			inRules = false
		case "allow", "disallow":
			inRules = true
			if len(rules) == 0 || val == "" {
				continue
			}
			g := &rules[len(rules)-1]
			if key == "allow" {
				g.allow = append(g.allow, val)
			} else {
				g.disallow = append(g.disallow, val)
			}
		}
	}
	return rules
}

// disallows reports whether any group forbids uri (path with query): in
// a group the longest matching pattern decides, and Allow wins a tie.
func (rr robotsRules) disallows(uri string) bool {
	for _, g := range rr {
		d := longestMatch(g.disallow, uri)
		if d >= 0 && d > longestMatch(g.allow, uri) {
			return true
		}
	}
	return false
}

// longestMatch returns the length of the longest pattern matching uri, or
// -1 when none does.
func longestMatch(patterns []string, uri string) int {
	best := -1
	for _, p := range patterns {
		if len(p) > best && robotsMatch(p, uri) {
			best = len(p)
		}
	}
	return best
}

// robotsMatch matches a robots.txt pattern against uri from its start:
// '*' matches any run of characters and a final '$' anchors the end.
func robotsMatch(pattern, uri string) bool {
	anchored := strings.HasSuffix(pattern, "$")
	pattern = strings.TrimSuffix(pattern, "$")
	parts := strings.Split(pattern, "*")
	if !strings.HasPrefix(uri, parts[0]) {
		return false
	}
	rest := uri[len(parts[0]):]
	if len(parts) == 1 {
		return !anchored || rest == ""
	}
	for i, part := range parts[1:] {
		last := i == len(parts)-2
		if last && anchored {
			return strings.HasSuffix(rest, part)
		}
		j := strings.Index(rest, part)
		if j < 0 {
			return false
		}
		rest = rest[j+len(part):]
	}
	return true
}
