package usage

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/polite-crawler/polite/crawl/fetch"
	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/robots"
)

// The examples of draft-ietf-aipref-vocab-08 sections 6 and 6.6, and odd
// fields: each row the value, then what train-ai, ai-use and search get.
func TestStatementConformance(t *testing.T) {
	for _, c := range []struct {
		name, field        string
		trainAI, use, srch Value
		shown              string
	}{
		{"section 6 example", "train-ai=y, search=n", Allow, Unknown, Disallow, "train-ai=y, search=n"},
		{"6.6: repeated keys, last wins, non-tokens unknown", `train-ai=y, train-ai, search=n, search="n"`, Unknown, Unknown, Unknown, `train-ai=?1, search="n"`},
		{"6.7: parameters ignored, last value", "train-ai;allow=n, train-ai=y", Allow, Unknown, Unknown, "train-ai=y"},
		{"6.7: parameters on an unknown preference", `train-ai;has;parameters="?"`, Unknown, Unknown, Unknown, "train-ai=?1"},
		{"uppercase key: the dictionary fails", "Train-AI=n", Unknown, Unknown, Unknown, "unparsed (not a structured-field dictionary)"},
		{"unknown category kept and shown", "bots=n, ai-use=n", Unknown, Disallow, Unknown, "bots=n (unknown category), ai-use=n"},
		{"token other than y or n", "train-ai=maybe", Unknown, Unknown, Unknown, "train-ai=maybe"},
		{"inner list", "search=(y n)", Unknown, Unknown, Unknown, "search=(y n)"},
		{"empty", "", Unknown, Unknown, Unknown, ""},
		{"garbage", "=;;,,\x00", Unknown, Unknown, Unknown, "unparsed (not a structured-field dictionary)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := ParseStatement(c.field)
			for _, g := range []struct {
				label string
				want  Value
			}{{"train-ai", c.trainAI}, {"ai-use", c.use}, {"search", c.srch}} {
				if got := st.Get(g.label); got != g.want {
					t.Errorf("%s: got %d, want %d", g.label, got, g.want)
				}
			}
			if got := st.String(); got != c.shown {
				t.Errorf("shown %q, want %q", got, c.shown)
			}
		})
	}
}

func TestSeveralHeaderLinesAreOneDictionary(t *testing.T) {
	h := http.Header{}
	h.Add("Content-Usage", "train-ai=y")
	h.Add("Content-Usage", "search=n, train-ai=n")
	sig := Response(h, nil)
	if len(sig) != 1 || sig[0].Statement.Get("train-ai") != Disallow || sig[0].Statement.Get("search") != Disallow {
		t.Fatalf("got %+v, want one statement with train-ai=n (the last) and search=n", sig)
	}
}

// The vocabulary's categories and what refuses each purpose: the table
// docs/usage-preferences.md gives.
func TestRefuses(t *testing.T) {
	cu := func(v string) Signal {
		return Signal{Source: FromHeader, Rule: "Content-Usage: " + v, Statement: ParseStatement(v)}
	}
	res := Signal{Source: FromTDMHeader, TDM: tdm(1)}
	free := Signal{Source: FromTDMHeader, TDM: tdm(0)}
	for _, c := range []struct {
		name    string
		signals []Signal
		refused map[Purpose]bool
	}{
		{"nothing said", nil, nil},
		{"train-ai=n", []Signal{cu("train-ai=n")}, map[Purpose]bool{TrainAI: true}},
		{"ai-use=n", []Signal{cu("ai-use=n")}, map[Purpose]bool{AIUse: true}},
		{"search=n", []Signal{cu("search=n")}, map[Purpose]bool{Search: true}},
		{"no nesting in the pinned draft: train-ai=n leaves search", []Signal{cu("train-ai=n, search=y")}, map[Purpose]bool{TrainAI: true}},
		{"an unknown category refuses nothing", []Signal{cu("bots=n, automated-processing=n")}, nil},
		{"one n among statements refuses (5.1)", []Signal{cu("train-ai=y"), cu("train-ai=n")}, map[Purpose]bool{TrainAI: true}},
		{"TDM reservation", []Signal{res}, map[Purpose]bool{TrainAI: true, Research: true}},
		{"TDM reservation 0", []Signal{free}, nil},
		{"a y does not lift a TDM reservation", []Signal{cu("train-ai=y"), res}, map[Purpose]bool{TrainAI: true, Research: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, p := range Purposes {
				if _, got := Refuses(c.signals, p); got != c.refused[p] {
					t.Errorf("%s refused = %v, want %v", p, got, c.refused[p])
				}
			}
		})
	}
	if len(broader) != 0 {
		t.Errorf("broader = %v: the pinned draft nests no category; update the docs' table with it", broader)
	}
}

func TestParsePurposes(t *testing.T) {
	got, err := ParsePurposes(" research, train-ai,research,")
	if err != nil || Join(got) != "research,train-ai" {
		t.Errorf("got %v, %v; want research,train-ai", got, err)
	}
	if _, err := ParsePurposes("train-ai,scraping"); err == nil || !strings.Contains(err.Error(), `"scraping"`) {
		t.Errorf("err = %v, want one naming scraping", err)
	}
}

func TestMeta(t *testing.T) {
	for _, c := range []struct {
		name, page string
		want       int // -1 none
		policy     string
	}{
		{"TDMRep example", `<html><head><meta name="tdm-reservation" content="1"><meta name="tdm-policy" content="https://example.com/policies/policy.json"></head></html>`, 1, "https://example.com/policies/policy.json"},
		{"case and space", `<HEAD><META NAME=" TDM-Reservation " CONTENT=" 0 "/></HEAD>`, 0, ""},
		{"in the body: not read", `<html><head></head><body><meta name="tdm-reservation" content="1"></body>`, -1, ""},
		{"bad value", `<meta name="tdm-reservation" content="yes">`, -1, ""},
		{"none", `<p>hello`, -1, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, ok := Meta([]byte(c.page))
			switch {
			case c.want < 0 && ok:
				t.Errorf("got %v, want none", s)
			case c.want >= 0 && (!ok || *s.TDM != c.want || s.Policy != c.policy):
				t.Errorf("got %v (%v), want tdm-reservation=%d policy %q", s, ok, c.want, c.policy)
			}
		})
	}
}

func TestTDMRep(t *testing.T) {
	// The shape of the TDMRep report's example, with an anchored rule.
	f, err := ParseTDMRep([]byte(`[
	  {"location": "/images/*", "tdm-reservation": 1, "tdm-policy": "https://provider.com/policies/policy.json"},
	  {"location": "/open/*.html$", "tdm-reservation": 0},
	  {"location": "/*", "tdm-reservation": 1}
	]`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		rule int
		res  int
	}{
		{"/images/a.png", 0, 1},
		{"/open/a.html", 1, 0},
		{"/open/a.html.txt", 2, 1},
		{"/", 2, 1},
	} {
		s, ok := f.For(c.path)
		if !ok || *s.TDM != c.res || !strings.HasPrefix(s.Rule, "rule "+string(rune('0'+c.rule))) {
			t.Errorf("%s: got %v (%v), want rule %d, reservation %d", c.path, s, ok, c.rule, c.res)
		}
	}
	for _, bad := range []string{`{}`, `[{"location": "images", "tdm-reservation": 1}]`, `[{"location": "/", "tdm-reservation": 2}]`, `[1]`, strings.Repeat(" ", MaxTDMRep+1)} {
		if _, err := ParseTDMRep([]byte(bad)); err == nil || !strings.HasPrefix(err.Error(), "tdmrep.json") {
			t.Errorf("%.40q: err = %v, want one naming tdmrep.json", bad, err)
		}
	}
}

func TestPolicy(t *testing.T) {
	rb := robots.Parse([]byte("User-agent: *\nContent-Usage: / train-ai=y\nContent-Usage: /private/ train-ai=n\n"))
	p := NewPolicy([]Purpose{TrainAI}, "polite")
	p.SetRobots("a.test", rb)
	u := func(s string) *url.URL { v, _ := url.Parse(s); return v }
	if why := p.Before("a.test", u("http://a.test/private/x"), ""); !why.Usage() || !strings.Contains(string(why), "robots.txt line 3") {
		t.Errorf("Before /private/x = %q, want the robots.txt line 3 rule", why)
	}
	if why := p.Before("a.test", u("http://a.test/public"), ""); why != "" {
		t.Errorf("Before /public = %q, want none", why)
	}
	resp := fetch.Response{Status: 200, Header: http.Header{"Tdm-Reservation": {"1"}}}
	if p.Keep("a.test", u("http://a.test/public"), &resp) || !resp.Reason.Usage() {
		t.Errorf("Keep with tdm-reservation: 1 = true (%q), want refused", resp.Reason)
	}
	notFound := fetch.Response{Status: 404, Header: http.Header{"Tdm-Reservation": {"1"}}}
	if !p.Keep("a.test", u("http://a.test/x"), &notFound) || notFound.Reason != "" {
		t.Errorf("a 404 was refused: %q", notFound.Reason)
	}
	hs := p.Hosts()
	if len(hs) != 1 || len(hs[0].Excluded) != 2 || len(hs[0].Signals) != 3 {
		t.Errorf("Hosts = %+v, want a.test with 3 signals and 2 excluding rules", hs)
	}
	// Without a purpose: recorded, nothing refused.
	q := NewPolicy(nil, "polite")
	q.SetRobots("a.test", rb)
	resp = fetch.Response{Status: 200, Header: http.Header{"Content-Usage": {"train-ai=n"}}}
	if !q.Keep("a.test", u("http://a.test/private/x"), &resp) || q.Before("a.test", u("http://a.test/private/x"), "") != "" {
		t.Error("a policy without purposes refused a URL")
	}
	if hs := q.Hosts(); len(hs) != 1 || len(hs[0].Signals) != 2 || hs[0].Excluded != nil {
		t.Errorf("Hosts = %+v, want the signals recorded and nothing excluded", hs)
	}
	var nilPolicy *Policy
	if !nilPolicy.Keep("a.test", u("http://a.test/"), &resp) || nilPolicy.Before("a.test", u("http://a.test/"), "") != "" || nilPolicy.Hosts() != nil {
		t.Error("a nil policy refused or recorded something")
	}
	if !frontier.Reason(frontier.UsageRefused("x")).Classified() {
		t.Error("a usage reason is not classified")
	}
}

func TestBeforeOperatorFirst(t *testing.T) {
	p := NewPolicy([]Purpose{TrainAI}, "polite")
	p.SetRobots("a.test", robots.Parse([]byte("User-agent: *\nContent-Usage: / train-ai=n\n")))
	u, _ := url.Parse("http://a.test/x")
	op := frontier.ExcludedBy(".a.test")
	if got := p.Before("a.test", u, op); got != op {
		t.Errorf("Before = %q, want the operator's %q", got, op)
	}
	var nilPolicy *Policy
	if got := nilPolicy.Before("a.test", u, op); got != op {
		t.Errorf("nil policy: Before = %q, want the operator's %q", got, op)
	}
}

func TestTakeTDMRep(t *testing.T) {
	p := NewPolicy([]Purpose{Research}, "polite")
	if !p.AskTDMRep("a.test") || p.AskTDMRep("a.test") || p.NeedsTDMRep("a.test") {
		t.Error("tdmrep.json asked for more than once a run")
	}
	p.TakeTDMRep("a.test", fetch.Response{Status: 200, Body: []byte(`{"location": "/"}`)})
	hs := p.Hosts()
	if len(hs) != 1 || !strings.HasPrefix(hs[0].Signals[0], "unread: tdmrep.json: not a JSON array") {
		t.Errorf("a bad tdmrep.json shows as %+v, want its error", hs)
	}
	p.TakeTDMRep("a.test", fetch.Response{Status: 200, Body: []byte(`[{"location": "/r/*", "tdm-reservation": 1}]`)})
	u, _ := url.Parse("http://a.test/r/1")
	if why := p.Before("a.test", u, ""); !strings.Contains(string(why), "research refused by tdmrep.json") {
		t.Errorf("Before = %q, want research refused by tdmrep.json", why)
	}
	if NewPolicy(nil, "polite").AskTDMRep("a.test") {
		t.Error("tdmrep.json asked for without a purpose")
	}
}

// A hostile server's long or ever-changing preferences are bounded: a
// signal's text (each excluded URL's reason) and the rules kept per host.
func TestBounded(t *testing.T) {
	p := NewPolicy([]Purpose{TrainAI}, "polite")
	for i := range 200 {
		u, _ := url.Parse("http://a.test/" + strings.Repeat("x", i))
		resp := fetch.Response{Status: 200, Header: http.Header{"Content-Usage": {"train-ai=n, x" + strings.Repeat("y", i) + "=?1, " + strings.Repeat("k", 2000+i) + "=y"}}}
		if p.Keep("a.test", u, &resp) {
			t.Fatal("kept")
		}
		if len(resp.Reason) > 600 {
			t.Fatalf("reason of %d bytes", len(resp.Reason))
		}
	}
	hs := p.Hosts()
	if len(hs[0].Signals) > maxShown || len(hs[0].Excluded) > maxShown+1 {
		t.Errorf("%d signals, %d rules kept; want at most %d", len(hs[0].Signals), len(hs[0].Excluded), maxShown)
	}
	total := 0
	for _, x := range hs[0].Excluded {
		total += x.URLs
	}
	if total != 200 {
		t.Errorf("%d exclusions counted, want 200", total)
	}
}
