package robots

import (
	"slices"
	"testing"
)

// The example of draft-ietf-aipref-attach-05 section 3.4, with its table.
const attachExample = `User-Agent: *
Allow: /
Disallow: /never/
Content-Usage: / train-ai=n
Content-Usage: /ai-ok/ train-ai=y

User-Agent: ExampleBot
Allow: /
Content-Usage: / train-ai=y
`

func TestContentUsage(t *testing.T) {
	r := Parse([]byte(attachExample))
	for _, c := range []struct {
		name, agent, target string
		want                []string
	}{
		{"draft table: /test", "polite", "/test", []string{"train-ai=n"}},
		{"draft table: disallowed path has none", "polite", "/never/test", nil},
		{"draft table: longer path wins", "polite", "/ai-ok/test", []string{"train-ai=y"}},
		{"named group applies", "ExampleBot/2.1", "/ai-ok/test", []string{"train-ai=y"}},
		{"named group, product token case-insensitive", "examplebot", "/x", []string{"train-ai=y"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, u := range r.ContentUsage(c.agent, c.target) {
				got = append(got, u.Pref)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("ContentUsage(%q, %q) = %q, want %q", c.agent, c.target, got, c.want)
			}
		})
	}
}

func TestContentUsageOddLines(t *testing.T) {
	body := "user-agent: *\n" +
		"content-usage: /a train-ai=n # a comment\n" +
		"CONTENT-USAGE :\t/a\tsearch=n\n" + // same path: both apply
		"Content-Usage: noslash train-ai=n\n" + // no leading /: not a rule
		"Content-Usage: /lonely\n" + // no preference: not a rule
		"Content-Usage: /b*c$ ai-use=n\n" +
		"Content-Usage: /%7Ex train-ai=n\n"
	r := Parse([]byte(body))
	for _, c := range []struct {
		target string
		want   []string
	}{
		{"/a/b", []string{"train-ai=n", "search=n"}},
		{"/lonely", nil},
		{"/b-xyz-c", []string{"ai-use=n"}},
		{"/b-xyz-c/d", nil},
		{"/~x", []string{"train-ai=n"}},
	} {
		var got []string
		lines := []int{}
		for _, u := range r.ContentUsage("polite", c.target) {
			got = append(got, u.Pref)
			lines = append(lines, u.Line)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: prefs %q (lines %v), want %q", c.target, got, lines, c.want)
		}
	}
	// A Content-Usage line is a rule: the User-agent after it opens a new group.
	r = Parse([]byte("user-agent: a\ncontent-usage: / train-ai=n\nuser-agent: b\ndisallow: /x\n"))
	if got := r.ContentUsage("b", "/y"); got != nil {
		t.Errorf("group b got %v, want none: the line belongs to group a", got)
	}
	if got := r.Test("a", "/x"); !got.Allowed {
		t.Errorf("group a: /x disallowed, want allowed (the Disallow is group b's)")
	}
}

func TestUsageRules(t *testing.T) {
	r := Parse([]byte(attachExample))
	var got []int
	for _, u := range r.UsageRules("polite") {
		got = append(got, u.Line)
	}
	if !slices.Equal(got, []int{4, 5}) {
		t.Errorf("UsageRules lines %v, want [4 5]: the * group's", got)
	}
	if n := len(r.UsageRules("ExampleBot")); n != 1 {
		t.Errorf("ExampleBot: %d rules, want 1", n)
	}
	if FromResponse(404, nil).UsageRules("polite") != nil {
		t.Error("rules from no robots.txt")
	}
}

func TestContentUsageUnparsed(t *testing.T) {
	for _, r := range []*Robots{nil, FromResponse(404, nil), FromResponse(503, nil)} {
		if got := r.ContentUsage("polite", "/"); got != nil {
			t.Errorf("%v: %v, want none", r, got)
		}
	}
}

func FuzzContentUsage(f *testing.F) {
	f.Add([]byte(attachExample), "/ai-ok/x")
	f.Add([]byte("user-agent:*\ncontent-usage: /* train-ai=n, search=y\n"), "/")
	f.Fuzz(func(t *testing.T, body []byte, target string) {
		for _, u := range Parse(body).ContentUsage("polite", target) {
			if u.Pref == "" || len(u.Path) == 0 || u.Path[0] != '/' || u.Line < 1 {
				t.Fatalf("bad rule %+v", u)
			}
		}
	})
}
