package usage

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"

	"github.com/polite-crawler/polite/robots"
)

// Source is where a signal was read.
type Source string

// The sources.
const (
	FromHeader    Source = "Content-Usage header"
	FromRobotsTxt Source = "robots.txt"
	FromTDMHeader Source = "tdm-reservation header"
	FromTDMMeta   Source = "tdm-reservation meta"
	FromTDMRep    Source = "tdmrep.json"
)

// Signal is one statement a site makes about a resource's use: an aipref
// Statement, or a TDM reservation (TDM set).
type Signal struct {
	Source    Source
	Rule      string    // what said it, as written: "robots.txt line 4: Content-Usage: / train-ai=n"
	Statement Statement // aipref's; empty for TDM
	TDM       *int      // TDMRep's tdm-reservation: 0 or 1; nil for aipref
	Policy    string    // TDMRep's tdm-policy, when given
}

// String is the signal as a report shows it, at most maxText bytes.
func (s Signal) String() string { return clip(s.text()) }

// maxText bounds a signal's text: it becomes a URL's reason, stored and
// written for each URL it excludes.
const maxText = 512

// clip cuts s to maxText bytes, on a UTF-8 boundary, marking the cut.
func clip(s string) string {
	if len(s) <= maxText {
		return s
	}
	cut := maxText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

func (s Signal) text() string {
	if s.TDM != nil {
		out := fmt.Sprintf("%s: tdm-reservation=%d", s.Source, *s.TDM)
		if s.Policy != "" {
			out += " tdm-policy=" + s.Policy
		}
		if s.Rule != "" {
			out += " (" + s.Rule + ")"
		}
		return out
	}
	if s.Statement.plain() {
		return s.Rule
	}
	return s.Rule + "; read as " + s.Statement.String()
}

func tdm(v int) *int { return &v }

// Response returns the signals of a response: its Content-Usage header,
// its tdm-reservation and tdm-policy headers and, for an HTML body, its
// tdm-reservation and tdm-policy meta elements (those of the head, read
// within the first MaxMeta bytes).
func Response(h http.Header, body []byte) []Signal {
	var out []Signal
	if vs := h.Values("Content-Usage"); len(vs) > 0 {
		st := ParseStatement(vs...)
		out = append(out, Signal{Source: FromHeader, Rule: "Content-Usage: " + strings.Join(vs, ", "), Statement: st})
	}
	if r, ok := reservation(h.Get("Tdm-Reservation")); ok {
		out = append(out, Signal{Source: FromTDMHeader, TDM: tdm(r), Policy: h.Get("Tdm-Policy")})
	}
	if isHTML(h.Get("Content-Type")) {
		if s, ok := Meta(body); ok {
			out = append(out, s)
		}
	}
	return out
}

// reservation reads a tdm-reservation value: 0 or 1.
func reservation(v string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || (n != 0 && n != 1) {
		return 0, false
	}
	return n, true
}

func isHTML(ct string) bool {
	ct = strings.ToLower(ct)
	return strings.HasPrefix(ct, "text/html") || strings.HasPrefix(ct, "application/xhtml")
}

// MaxMeta bounds how much of a page is read for its meta elements.
const MaxMeta = 256 << 10

// Meta reads a page's tdm-reservation and tdm-policy meta elements, up to
// the end of its head, within its first MaxMeta bytes.
func Meta(body []byte) (Signal, bool) {
	if len(body) > MaxMeta {
		body = body[:MaxMeta]
	}
	z := html.NewTokenizer(bytes.NewReader(body))
	var (
		res    *int
		policy string
	)
	for {
		switch z.Next() {
		case html.ErrorToken:
			return metaSignal(res, policy)
		case html.EndTagToken:
			if name, _ := z.TagName(); string(name) == "head" {
				return metaSignal(res, policy)
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, attr := z.TagName()
			if string(name) == "body" {
				return metaSignal(res, policy)
			}
			if string(name) != "meta" || !attr {
				continue
			}
			var n, c string
			for more := true; more; {
				var k, v []byte
				k, v, more = z.TagAttr()
				switch strings.ToLower(string(k)) {
				case "name":
					n = strings.ToLower(strings.TrimSpace(string(v)))
				case "content":
					c = string(v)
				}
			}
			switch n {
			case "tdm-reservation":
				if r, ok := reservation(c); ok && res == nil {
					res = tdm(r)
				}
			case "tdm-policy":
				if policy == "" {
					policy = strings.TrimSpace(c)
				}
			}
		}
	}
}

func metaSignal(res *int, policy string) (Signal, bool) {
	if res == nil {
		return Signal{}, false
	}
	return Signal{Source: FromTDMMeta, TDM: res, Policy: policy}, true
}

// Robots returns the signals of robots.txt Content-Usage rules (those
// robots.Robots.ContentUsage returns for a URL), each parsed.
func Robots(rules []robots.UsageRule) []Signal {
	out := make([]Signal, 0, len(rules))
	for _, r := range rules {
		out = append(out, Signal{
			Source:    FromRobotsTxt,
			Rule:      fmt.Sprintf("robots.txt line %d: %s", r.Line, r.Text),
			Statement: ParseStatement(r.Pref),
		})
	}
	return out
}
