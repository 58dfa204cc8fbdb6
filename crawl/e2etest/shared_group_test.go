package e2etest

import (
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/hostgroup"
	"github.com/polite-crawler/polite/crawl/seeds"
)

// Two workers of a shared crawl, with pages on two names of one server
// paced by ip: the group is what a worker owns. One worker at a time
// sends to the server, under either name; no two requests overlap; every
// page is fetched once; what was learned is stored under the group's key,
// not under either name, with the names as its members.
func TestSharedGroupOneOwnerAtATime(t *testing.T) {
	t.Parallel()
	o := &ownedOrigin{}
	const pages = 30
	names := []string{"a.test", "b.test"}
	res := hostgroup.Static{}
	for _, n := range names {
		res[n] = []netip.Addr{netip.MustParseAddr("127.0.0.1")}
	}
	dbs := pgWorkers(t, 2)
	crawlTogether(t, dbs, o, pages, func(cfg *crawl.Config) {
		lines := slices.Clone(cfg.Seeds.Lines)
		for i, l := range lines {
			lines[i] = strings.Replace(l, "127.0.0.1", names[i%2], 1)
		}
		cfg.Seeds = seeds.Lines("seeds", lines...)
		cfg.PaceBy, cfg.Resolver = hostgroup.ByIP, res
	})
	o.mu.Lock()
	hits := slices.Clone(o.hits)
	o.mu.Unlock()
	if len(hits) != pages {
		t.Errorf("%d page requests, want %d (every page once)", len(hits), pages)
	}
	switches, byName := 0, map[string]int{}
	for i, h := range hits {
		byName[strings.Split(h.host, ":")[0]]++
		if i == 0 {
			continue
		}
		a := hits[i-1]
		if a.agent != h.agent {
			switches++
		}
		if h.start.Before(a.end) {
			t.Errorf("requests %d (%s to %s) and %d (%s to %s) overlap: two senders to one server at once", i-1, a.agent, a.host, i, h.agent, h.host)
		}
	}
	if byName["a.test"] != pages/2 || byName["b.test"] != pages/2 {
		t.Errorf("requests by name %v, want %d to each", byName, pages/2)
	}
	if switches > 1 {
		t.Errorf("the sender changed %d times in %d requests, want at most once (one owner of the group at a time)", switches, len(hits))
	}
	sts, err := dbs[0].States()
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, st := range sts {
		keys = append(keys, st.Host)
	}
	if !slices.Equal(keys, []string{"ip:127.0.0.1"}) {
		t.Errorf("stored pace states %v, want the group's alone (ip:127.0.0.1)", keys)
	}
	ms, err := dbs[1].PaceGroups()
	if err != nil || len(ms) != 2 || ms[0].Group != "ip:127.0.0.1" || !strings.HasPrefix(ms[0].Host, "a.test:") || !strings.HasPrefix(ms[1].Host, "b.test:") {
		t.Errorf("stored members %+v, %v; want a.test and b.test in ip:127.0.0.1", ms, err)
	}
}
