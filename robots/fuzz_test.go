package robots

import (
	"strings"
	"testing"
)

func FuzzParse(f *testing.F) {
	for _, tc := range rfcCases {
		agent := tc.agent
		if agent == "" {
			agent = "polite"
		}
		if len(tc.txt) < 1000 {
			f.Add([]byte(tc.txt), agent, tc.path)
		}
	}
	f.Add([]byte("User-agent: *\nDisallow: /*%\nAllow: /%zz$\n"), "polite", "/%")
	f.Add([]byte("\xef\xbb\xbf\xffUser-agent: *\r\n\rDisallow: ***$$\n"), "", "***")
	f.Fuzz(func(t *testing.T, body []byte, agent, path string) {
		r := Parse(body)
		d := r.Test(agent, path)
		if !d.Allowed && (d.Rule == "" || d.RuleLine <= 0) {
			t.Errorf("Test(%q, %q) disallowed without a rule: %+v", agent, path, d)
		}
		if d.Rule != "" && d.Group == "" {
			t.Errorf("Test(%q, %q) names a rule but no group: %+v", agent, path, d)
		}
		if g := r.Group(agent); g.Name != d.Group && d.Reason != "robots.txt is always allowed" {
			t.Errorf("Group(%q).Name = %q, Test's Group = %q", agent, g.Name, d.Group)
		}
		if rt := r.Test(agent, "/robots.txt"); !rt.Allowed {
			t.Errorf("/robots.txt disallowed: %+v", rt)
		}
		// Where temoto matches a plain rule it must agree with a plain
		// prefix comparison: that is the part of temoto polite relies on.
		p := normaliseTarget(path)
		for _, g := range r.groups {
			for _, ru := range g.rules {
				if ru.segs == nil && ru.pattern != "" {
					if ru.plain == nil {
						t.Errorf("plain rule %q has no temoto matcher", ru.pattern)
					} else if got, want := ru.match(p), strings.HasPrefix(p, ru.pattern); got != want {
						t.Errorf("temoto match(%q, %q) = %v, want %v", ru.pattern, p, got, want)
					}
				}
			}
		}
	})
}
