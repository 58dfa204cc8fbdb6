package exclude

import (
	"fmt"
	"log/slog"
	"net/url"
	"sort"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// Source is what a running crawl reads of the database's exclusion list:
// the rules, and a version that every change to them moves, cheap to
// read, so that the crawl reads the rules again only when they changed.
type Source interface {
	// Exclusions lists the rules, in the order of their text.
	Exclusions() ([]frontier.Exclusion, error)
	// ExclusionsVersion moves (never back) at each change to the list.
	ExclusionsVersion() (int64, error)
}

// Store is the exclusion list of a database (crawl's Exclusions role):
// what a crawl reads, and what polite exclude writes. Every job on the
// database honours it.
type Store interface {
	Source
	// AddExclusion adds a rule in normal form; false when the list has it
	// already (its reason is then replaced, when a new one is given).
	AddExclusion(frontier.Exclusion) (bool, error)
	// RemoveExclusion removes a rule; false when the list has no such rule.
	RemoveExclusion(rule string) (bool, error)
}

// Watch is the exclusion list as a running crawl honours it: Refresh
// reads the list's version, and the rules again when it moved. A crawl
// calls Refresh once per dispatch pass that may start a request, before
// it starts any, so a rule added while it runs stops its requests from
// the next pass on; between changes a pass costs one read of the version
// (a small query: tens of microseconds on SQLite, one round trip on
// PostgreSQL). It also counts what each rule excluded, for the run's
// report.
//
// A Watch is used by one goroutine. Its zero value is not usable: get
// one from NewWatch.
type Watch struct {
	src     Source
	log     *slog.Logger
	read    bool // the rules were read at least once
	version int64
	list    *List
	hits    map[string]*Hits
	seen    map[[2]string]bool // rule, host key: a host counted in its rule's Hits
}

// Hits is what one rule excluded in a run, as report.json's
// excluded_by_operator lists it: the hosts it kept polite from as a whole
// (not even robots.txt asked), and the URLs it covered on hosts polite
// crawled.
type Hits struct {
	Rule  string   `json:"rule"`
	Hosts []string `json:"hosts,omitempty"`
	URLs  int      `json:"urls"`
}

// NewWatch returns the list of src as a crawl honours it; log (nil: none)
// is told when the rules change and when reading them fails.
func NewWatch(src Source, log *slog.Logger) *Watch {
	return &Watch{src: src, log: log, hits: map[string]*Hits{}, seen: map[[2]string]bool{}}
}

// Refresh reads the rules again if their version moved since the last
// read. An error the first time is the crawl's (it must not run without
// the list); later, the rules last read stand and the error is logged.
func (w *Watch) Refresh() error {
	v, err := w.src.ExclusionsVersion()
	if err == nil && w.read && v == w.version {
		return nil
	}
	var list *List
	if err == nil {
		list, err = w.load()
	}
	if err != nil {
		if !w.read {
			return fmt.Errorf("read the exclusion list: %w", err)
		}
		if w.log != nil {
			w.log.Warn("cannot read the exclusion list again: the rules last read stand", "err", err)
		}
		return nil
	}
	if w.read && w.log != nil {
		w.log.Info("exclusion list changed", "rules", list.Len())
	}
	w.read, w.version, w.list = true, v, list
	return nil
}

// load reads the rules.
func (w *Watch) load() (*List, error) {
	xs, err := w.src.Exclusions()
	if err != nil {
		return nil, err
	}
	rules := make([]string, len(xs))
	for i, x := range xs {
		rules[i] = x.Rule
	}
	return NewList(rules...)
}

// Host is the reason the host with key gets no request of any kind (a
// rule covers it as a whole: see List.Host); "" when none does.
func (w *Watch) Host(key string) frontier.Reason {
	rule := w.list.Host(key)
	if rule == "" {
		return ""
	}
	h := w.hit(rule)
	if !w.seen[[2]string{rule, key}] {
		w.seen[[2]string{rule, key}] = true
		h.Hosts = append(h.Hosts, key)
	}
	return frontier.ExcludedBy(rule)
}

// URL is the reason the normalised URL u is not requested; "" when no
// rule covers it.
func (w *Watch) URL(u string) frontier.Reason {
	rule := w.list.URL(u)
	if rule == "" {
		return ""
	}
	w.hit(rule).URLs++
	return frontier.ExcludedBy(rule)
}

// Refuses reports whether a rule covers u: a robots.txt redirect polite
// does not follow (see robotscache.Chain).
func (w *Watch) Refuses(u *url.URL) bool { return w.list.URL(u.String()) != "" }

func (w *Watch) hit(rule string) *Hits {
	h := w.hits[rule]
	if h == nil {
		h = &Hits{Rule: rule}
		w.hits[rule] = h
	}
	return h
}

// Hits returns what each rule excluded so far, in the order of the rules'
// text; nil when nothing was.
func (w *Watch) Hits() []Hits {
	var out []Hits
	for _, h := range w.hits {
		c := *h
		c.Hosts = append([]string(nil), h.Hosts...)
		sort.Strings(c.Hosts)
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Rule < out[j].Rule })
	return out
}
