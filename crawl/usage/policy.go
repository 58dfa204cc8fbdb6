package usage

import (
	"net/http"
	"net/url"
	"slices"
	"sort"
	"sync"

	"github.com/polite-crawler/polite/crawl/fetch"
	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/robots"
)

// Policy is a crawl's usage policy: the purposes it declares, the agent
// robots.txt groups are chosen for, and what each host has said. Its
// methods are safe for concurrent use (workers call Keep); a nil Policy
// keeps everything and records nothing. A Policy serves one run: what it
// records is that run's.
type Policy struct {
	Purposes []Purpose
	Agent    string // product token for robots.txt groups

	mu    sync.Mutex
	hosts map[string]*hostUsage
}

// hostUsage is what one host said, and what it cost the crawl.
type hostUsage struct {
	robots   *robots.Robots
	tdm      *TDMFile
	tdmAsked bool            // tdmrep.json requested this run
	seen     map[string]bool // each signal shown once
	signals  []string
	excluded map[string]int // rule -> URLs excluded by it
}

// NewPolicy returns the policy of a crawl declaring purposes (none: the
// preferences are recorded, nothing is excluded).
func NewPolicy(purposes []Purpose, agent string) *Policy {
	return &Policy{Purposes: purposes, Agent: agent, hosts: map[string]*hostUsage{}}
}

func (p *Policy) host(key string) *hostUsage {
	h := p.hosts[key]
	if h == nil {
		h = &hostUsage{seen: map[string]bool{}, excluded: map[string]int{}}
		p.hosts[key] = h
	}
	return h
}

// Declared is the declared purposes, comma-separated; "" for none.
func (p *Policy) Declared() string {
	if p == nil {
		return ""
	}
	return Join(p.Purposes)
}

// SetRobots gives the policy host's robots.txt, whose Content-Usage lines
// then apply to its URLs.
func (p *Policy) SetRobots(host string, rb *robots.Robots) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.host(host).robots = rb
}

// SetTDMRep gives the policy host's tdmrep.json rules (nil: none).
func (p *Policy) SetTDMRep(host string, f *TDMFile) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.host(host).tdm = f
}

// NeedsTDMRep reports whether host's tdmrep.json is still to be read this
// run: a purpose is declared and it has not been requested. Without a
// purpose it is never requested.
func (p *Policy) NeedsTDMRep(host string) bool {
	if p == nil || len(p.Purposes) == 0 {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return !p.host(host).tdmAsked
}

// AskTDMRep is NeedsTDMRep, and notes the request as made: true once per
// host and run.
func (p *Policy) AskTDMRep(host string) bool {
	if !p.NeedsTDMRep(host) {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.host(host).tdmAsked = true
	return true
}

// TakeTDMRep takes the answer to host's tdmrep.json request: a 2xx body
// is parsed and its rules apply to the host's URLs; one that does not
// parse is shown among the host's signals with what is wrong, and no rule
// applies; any other answer means the host has none.
func (p *Policy) TakeTDMRep(host string, resp fetch.Response) {
	if p == nil || resp.Err != nil {
		return
	}
	p.takeTDMRep(host, resp.Status, resp.Body)
}

// UseTDMRep takes host's tdmrep.json as an earlier fetch kept it (its
// status and body, read as TakeTDMRep reads an answer) and notes it as
// read this run: it is not requested again.
func (p *Policy) UseTDMRep(host string, status int, body []byte) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.host(host).tdmAsked = true
	p.mu.Unlock()
	p.takeTDMRep(host, status, body)
}

func (p *Policy) takeTDMRep(host string, status int, body []byte) {
	if status/100 != 2 {
		return
	}
	f, err := ParseTDMRep(body)
	p.mu.Lock()
	defer p.mu.Unlock()
	h := p.host(host)
	if err != nil {
		h.signals = append(h.signals, "unread: "+err.Error())
		return
	}
	h.tdm = f
}

// known returns the signals known for u before it is fetched: its
// robots.txt Content-Usage rules and its tdmrep.json rule. p.mu is held.
func (p *Policy) known(h *hostUsage, u *url.URL) []Signal {
	sig := Robots(h.robots.ContentUsage(p.Agent, u.RequestURI()))
	if s, ok := h.tdm.For(u.EscapedPath()); ok {
		sig = append(sig, s)
	}
	return sig
}

// Known returns the signals known for u before it is fetched: host's
// robots.txt Content-Usage lines that apply (SetRobots), and its
// tdmrep.json rule. It records nothing.
func (p *Policy) Known(host string, u *url.URL) []Signal {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.known(p.host(host), u)
}

// Before is the reason u is not requested at all: first, when it is set
// (the operator's exclusion, which the crawl checks ahead of any site's
// word), else a rule known before fetching (robots.txt Content-Usage,
// tdmrep.json) that refuses a declared purpose. "" when it may be
// requested.
func (p *Policy) Before(host string, u *url.URL, first frontier.Reason) frontier.Reason {
	if p == nil || first != "" {
		return first
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	h := p.host(host)
	return p.note(h, p.known(h, u))
}

// Keep decides whether a response's content is kept: false when resp is
// a 2xx whose signals (those known before it was fetched, its headers,
// its meta elements) refuse a declared purpose, or a 304 whose headers
// do (the body an earlier fetch kept is then refused too); resp.Reason
// then names the rule (frontier.UsageRefused). Any other answer is kept
// as it is. resp.Usage gets a 2xx's or 304's signals, as shown, whether
// kept or not (at most maxShown).
func (p *Policy) Keep(host string, u *url.URL, resp *fetch.Response) bool {
	if p == nil || resp.Err != nil || (resp.Status/100 != 2 && resp.Status != http.StatusNotModified) {
		return true
	}
	own := Response(resp.Header, resp.Body) // parsed before the lock: workers share the policy
	p.mu.Lock()
	defer p.mu.Unlock()
	h := p.host(host)
	signals := append(p.known(h, u), own...)
	for _, s := range signals[:min(len(signals), maxShown)] {
		resp.Usage = append(resp.Usage, s.String())
	}
	if why := p.note(h, signals); why != "" {
		resp.Reason = why
		return false
	}
	return true
}

// note records signals as host's and returns the reason they refuse a
// declared purpose, "" if none does. p.mu is held.
func (p *Policy) note(h *hostUsage, signals []Signal) frontier.Reason {
	for _, s := range signals {
		if txt := s.String(); !h.seen[txt] && len(h.signals) < maxShown {
			h.seen[txt] = true
			h.signals = append(h.signals, txt)
		}
	}
	pur, s, ok := RefusesAny(signals, p.Purposes)
	if !ok {
		return ""
	}
	rule := string(pur) + " refused by " + s.String()
	if _, ok := h.excluded[rule]; ok || len(h.excluded) < maxShown {
		h.excluded[rule]++
	} else {
		h.excluded[otherRules]++
	}
	return frontier.UsageRefused(rule)
}

// maxShown bounds the distinct signals, and the distinct excluding rules,
// kept per host for the report; otherRules counts the exclusions past it.
const (
	maxShown   = 50
	otherRules = "(other rules)"
)

// HostUsage is what one host said about use, for a report.
type HostUsage struct {
	Host     string        `json:"host"`
	Signals  []string      `json:"signals"`            // each distinct signal read, as written
	Excluded []RuleExclude `json:"excluded,omitempty"` // URLs excluded, by rule
}

// RuleExclude counts the URLs one rule excluded.
type RuleExclude struct {
	Rule string `json:"rule"`
	URLs int    `json:"urls"`
}

// Hosts returns what each host said, hosts in order; hosts that said
// nothing are left out.
func (p *Policy) Hosts() []HostUsage {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []HostUsage
	for key, h := range p.hosts {
		if len(h.signals) == 0 {
			continue
		}
		hu := HostUsage{Host: key, Signals: slices.Clone(h.signals)}
		for rule, n := range h.excluded {
			hu.Excluded = append(hu.Excluded, RuleExclude{Rule: rule, URLs: n})
		}
		sort.Slice(hu.Excluded, func(i, j int) bool { return hu.Excluded[i].Rule < hu.Excluded[j].Rule })
		out = append(out, hu)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Host < out[j].Host })
	return out
}
