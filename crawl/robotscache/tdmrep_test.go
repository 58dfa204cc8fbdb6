package robotscache

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/fetch"
	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/usage"
	"github.com/polite-crawler/polite/pace"
	"github.com/polite-crawler/polite/robots"
)

// memCache keeps robots.txt copies in memory.
type memCache map[string]frontier.RobotsCopy

func (m memCache) Load(string) (pace.State, bool, error) { return pace.State{}, false, nil }
func (m memCache) Robots(host string) (frontier.RobotsCopy, bool, error) {
	c, ok := m[host]
	return c, ok, nil
}
func (m memCache) PutRobots(cs ...frontier.RobotsCopy) error {
	for _, c := range cs {
		m[c.Host] = c
	}
	return nil
}

const tdmAll = `[{"location": "/*", "tdm-reservation": 1}]`

// refused reports whether p refuses https://a.test/page before fetching
// it: whether the tdmrep.json rule reached it.
func refused(p *usage.Policy) bool {
	u, _ := url.Parse("https://a.test/page")
	return p.Before("a.test", u, "") != ""
}

// A crawl declaring a purpose fetches robots.txt and tdmrep.json
// together, keeps both in one copy, and within the copy's time asks for
// neither again: the kept tdmrep.json's rules apply as a fetched one's.
func TestTDMRepKeptWithRobots(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	ttl := 24 * time.Hour
	db := memCache{}
	purpose := []usage.Purpose{usage.TrainAI}
	start, _ := url.Parse("https://a.test/robots.txt")

	// Run 1: nothing cached; the chain asks for both, and Settle keeps both.
	p := usage.NewPolicy(purpose, "polite")
	rb, cp, err := CachedFor(db, "a.test", t0, p)
	if rb != nil || cp != nil || err != nil {
		t.Fatalf("empty cache: %v, %v, %v", rb, cp, err)
	}
	ch := NewChain(start).WithUsage(p)
	if next := ch.Add(fetch.Response{Status: 200, Body: []byte("User-agent: *\nAllow: /\n")}); next == nil {
		t.Fatal("robots.txt: no tdmrep.json asked for")
	}
	ch.Add(fetch.Response{Status: 200, Header: http.Header{"Cache-Control": {"max-age=3600"}}, Body: []byte(tdmAll)})
	if _, _, fresh, err := ch.Settle(db, "a.test", nil, ttl, t0); err != nil || fresh == nil {
		t.Fatalf("Settle: fresh %v, %v", fresh, err)
	}
	kept := db["a.test"].TDMRep
	if kept.Status != 200 || string(kept.Body) != tdmAll || !kept.FetchedAt.Equal(t0) || !kept.Expires.Equal(t0.Add(time.Hour)) {
		t.Errorf("kept tdmrep.json %+v; want the 200, fetched at t0, for its max-age (1h)", kept)
	}

	// Run 2, within both: no request; the rule applies.
	p = usage.NewPolicy(purpose, "polite")
	if rb, _, _ := CachedFor(db, "a.test", t0.Add(30*time.Minute), p); rb == nil {
		t.Error("within the copy's time: robots.txt asked for again")
	}
	if p.NeedsTDMRep("a.test") || !refused(p) {
		t.Errorf("within the copy's time: needs tdmrep.json %v, rule applied %v; want false, true", p.NeedsTDMRep("a.test"), refused(p))
	}

	// Run 3, robots.txt fresh, tdmrep.json expired: both asked for again.
	p = usage.NewPolicy(purpose, "polite")
	rb, cp, _ = CachedFor(db, "a.test", t0.Add(2*time.Hour), p)
	if rb != nil || cp == nil || !p.NeedsTDMRep("a.test") {
		t.Errorf("tdmrep.json expired: rules %v, copy %v, needs %v; want both fetched again", rb != nil, cp != nil, p.NeedsTDMRep("a.test"))
	}

	// Without a purpose a fresh robots.txt is used as it is, and a
	// robots.txt fetched again keeps the copy's tdmrep.json.
	if rb, _, _ := CachedFor(db, "a.test", t0.Add(2*time.Hour), usage.NewPolicy(nil, "polite")); rb == nil {
		t.Error("without a purpose: the fresh robots.txt not used")
	}
	old := db["a.test"]
	ch = NewChain(start)
	ch.Add(fetch.Response{Status: 404})
	if _, _, fresh, _ := ch.Settle(db, "a.test", &old, ttl, t0.Add(3*time.Hour)); fresh == nil || !fresh.TDMRep.FetchedAt.Equal(t0) {
		t.Errorf("robots.txt alone: the copy's tdmrep.json not kept (%+v)", fresh)
	}
}

// A tdmrep.json still kept while robots.txt has expired is used, and the
// chain fetches robots.txt alone.
func TestTDMRepKeptRobotsExpired(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	db := memCache{"a.test": {Host: "a.test", Status: 200, FetchedAt: t0, Expires: t0.Add(time.Minute),
		TDMRep: frontier.TDMRepCopy{Status: 200, Body: []byte(tdmAll), FetchedAt: t0, Expires: t0.Add(time.Hour)}}}
	p := usage.NewPolicy([]usage.Purpose{usage.TrainAI}, "polite")
	rb, cp, _ := CachedFor(db, "a.test", t0.Add(10*time.Minute), p)
	if rb != nil || cp == nil || !refused(p) {
		t.Fatalf("robots.txt expired: rules %v, copy %v, rule applied %v; want robots.txt fetched, the rule applied", rb != nil, cp != nil, refused(p))
	}
	start, _ := url.Parse("https://a.test/robots.txt")
	if next := NewChain(start).WithUsage(p).Add(fetch.Response{Status: 404}); next != nil {
		t.Errorf("chain asked for %v; want robots.txt alone", next)
	}
}

// An origin that did not answer tdmrep.json (503, 429, a network error)
// has nothing kept: it is asked again next time. A 404 is kept: no rules.
func TestTDMRepAnswersKept(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		name string
		resp fetch.Response
		kept bool
	}{
		{"200", fetch.Response{Status: 200, Body: []byte(tdmAll)}, true},
		{"404", fetch.Response{Status: 404, Body: []byte("not here")}, true},
		{"503", fetch.Response{Status: 503}, false},
		{"429", fetch.Response{Status: 429}, false},
		{"timeout", failed("timeout"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := keptTDMRep(&tc.resp, nil, time.Hour, t0)
			if got.FetchedAt.IsZero() == tc.kept {
				t.Fatalf("kept %+v; want kept %v", got, tc.kept)
			}
			if tc.resp.Status == 404 && len(got.Body) != 0 {
				t.Errorf("a 404's body kept: %q", got.Body)
			}
		})
	}
}

// When robots.txt is unreachable and an older copy stands in, so does
// the tdmrep.json it kept.
func TestTDMRepStandsInWithStaleCopy(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	now := t0.Add(48 * time.Hour)
	old := &frontier.RobotsCopy{Host: "a.test", Status: 200, Body: []byte("User-agent: *\nAllow: /\n"), FetchedAt: t0, Expires: t0.Add(24 * time.Hour),
		TDMRep: frontier.TDMRepCopy{Status: 200, Body: []byte(tdmAll), FetchedAt: t0, Expires: t0.Add(24 * time.Hour)}}
	p := usage.NewPolicy([]usage.Purpose{usage.TrainAI}, "polite")
	start, _ := url.Parse("https://a.test/robots.txt")
	ch := NewChain(start).WithUsage(p)
	if next := ch.Add(fetch.Response{Status: 503}); next != nil {
		t.Fatalf("after a 503: next %v", next)
	}
	rb, how, fresh, _ := ch.Settle(memCache{}, "a.test", old, 24*time.Hour, now)
	if rb == nil || fresh != nil || !refused(p) {
		t.Errorf("stale copy (%s): rules %v, fresh %v, tdmrep.json rule applied %v; want the copy's, none, true", how, rb != nil, fresh != nil, refused(p))
	}
	if now.Sub(t0) >= robots.MaxStale {
		t.Fatal("test's copy is too old to stand in")
	}
}
