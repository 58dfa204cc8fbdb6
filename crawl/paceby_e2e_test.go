package crawl_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/crawltest"
	"github.com/polite-crawler/polite/crawl/hostgroup"
	"github.com/polite-crawler/polite/crawl/report"
)

// oneServer is a test resolver: every name of the group tests resolves
// to one address, which --pace-by ip makes one group.
var oneServer = hostgroup.Static{
	"a.example": {netip.MustParseAddr("203.0.113.5")},
	"b.example": {netip.MustParseAddr("203.0.113.5")},
	"c.example": {netip.MustParseAddr("203.0.113.5")},
	"d.example": {netip.MustParseAddr("203.0.113.5")},
}

const oneServerKey = "ip:203.0.113.5"

// groupSite is a site of a group test: robots.txt is robots (404 when
// empty); every other path answers 200, but the paths in throttle answer
// 429 the first time, with the Retry-After given ("" for none).
func groupSite(web *fakeWeb, name, robots string, throttle map[string]string) *fakeSite {
	seen := map[string]bool{}
	return web.add(name, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch ra, ok := throttle[r.URL.Path]; {
		case r.URL.Path == "/robots.txt" && robots == "":
			http.NotFound(w, r)
		case r.URL.Path == "/robots.txt":
			fmt.Fprint(w, robots)
		case ok && !seen[r.URL.Path]:
			seen[r.URL.Path] = true // one request at a time to a host (--per-host 1): each after the last one's answer
			if ra != "" {
				w.Header().Set("Retry-After", ra)
			}
			w.WriteHeader(http.StatusTooManyRequests)
		default:
			fmt.Fprintf(w, "<p>%s</p>", r.URL.Path)
		}
	}))
}

// pages returns n page URLs of a site.
func pages(s *fakeSite, n int) []string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf("%s/p%d", s.URL, i))
	}
	return out
}

// started returns the web's requests in the order they started, each as
// "host path" with its start.
type startedReq struct {
	host, path string
	at         time.Time
}

func started(t *testing.T, web *fakeWeb) []startedReq {
	t.Helper()
	var out []startedReq
	for _, r := range web.fetcher.Requests() {
		u, err := url.Parse(r.URL)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, startedReq{host: u.Host, path: u.Path, at: r.At})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].at.Before(out[j].at) })
	return out
}

// hostsOf indexes a report's hosts by name.
func hostsOf(rep *report.Report) map[string]*report.HostStats {
	m := map[string]*report.HostStats{}
	for _, h := range rep.Hosts {
		m[h.Host] = h
	}
	return m
}

// Three names of one server: paced by ip they are one pace, so no two
// requests to any of them start closer than the floor, and the report
// draws them as one group; paced by host (the default) each name has its
// own pace and they are fetched side by side.
func TestPaceByIPOnePaceForAGroupsNames(t *testing.T) {
	t.Parallel()
	for _, by := range []hostgroup.By{hostgroup.ByHost, hostgroup.ByIP} {
		t.Run(string(by), func(t *testing.T) {
			web := newFakeWeb(t)
			var seeds []string
			for _, name := range []string{"a.example", "b.example", "c.example"} {
				seeds = append(seeds, pages(groupSite(web, name, "", nil), 4)...)
			}
			cfg := fastConfig(t, seeds...)
			web.use(&cfg)
			cfg.PaceBy, cfg.Resolver = by, oneServer
			rep, err := crawl.Run(context.Background(), mustOpen(t), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Totals.Done != 12 || rep.PaceBy != string(by) {
				t.Fatalf("%d done, paced by %q; want 12, %q", rep.Totals.Done, rep.PaceBy, by)
			}
			reqs := started(t, web)
			closest := time.Hour
			for i := 1; i < len(reqs); i++ {
				closest = min(closest, reqs[i].at.Sub(reqs[i-1].at))
			}
			groups := rep.PaceGroups()
			if by == hostgroup.ByHost {
				if closest >= cfg.Pace.Floor {
					t.Errorf("paced by host, the closest two of %d requests are %v apart: want names fetched side by side", len(reqs), closest)
				}
				for _, h := range rep.Hosts {
					if h.Group != "" {
						t.Errorf("paced by host, %s has group %q", h.Host, h.Group)
					}
				}
				if len(groups) != 0 {
					t.Errorf("paced by host: groups %+v, want none", groups)
				}
				return
			}
			if closest < cfg.Pace.Floor {
				t.Errorf("paced by ip, two of %d requests are %v apart, under the floor %v: not one pace", len(reqs), closest, cfg.Pace.Floor)
			}
			for _, h := range rep.Hosts {
				if h.Group != oneServerKey {
					t.Errorf("%s: group %q, want %s", h.Host, h.Group, oneServerKey)
				}
			}
			if len(groups) != 1 || len(groups[0].Hosts) != 3 || groups[0].Stats.Requests != len(reqs) || len(groups[0].Stats.Timeline) != len(reqs) {
				t.Errorf("groups %+v: want %s of the 3 hosts with all %d requests on its timeline", groups, oneServerKey, len(reqs))
			}
			var text bytes.Buffer
			rep.WriteText(&text)
			if want := "paced by ip: 1 group\n    ip:203.0.113.5: 3 hosts (a.example, b.example, c.example), 0 throttled\n"; !strings.Contains(text.String(), want) {
				t.Errorf("summary:\n%s\nwant it to contain\n%s", text.String(), want)
			}
		})
	}
}

// A Retry-After one name of a group answers holds the group: paced by ip,
// no request to any of its names starts before it runs out; paced by
// host, the other names go on.
func TestPaceByIPHoldOnOneNameHoldsTheGroup(t *testing.T) {
	t.Parallel()
	for _, by := range []hostgroup.By{hostgroup.ByHost, hostgroup.ByIP} {
		t.Run(string(by), func(t *testing.T) {
			web := newFakeWeb(t)
			a := groupSite(web, "a.example", "", map[string]string{"/p1": "2"})
			seeds := pages(a, 3)
			for _, name := range []string{"b.example", "c.example"} {
				seeds = append(seeds, pages(groupSite(web, name, "", nil), 6)...)
			}
			cfg := fastConfig(t, seeds...)
			web.use(&cfg)
			cfg.PaceBy, cfg.Resolver = by, oneServer
			rep, err := crawl.Run(context.Background(), mustOpen(t), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Totals.Done != 15 {
				t.Fatalf("%d done, want 15", rep.Totals.Done)
			}
			reqs := started(t, web)
			var held time.Time
			within := 0 // requests started while a.example's Retry-After ran
			for _, r := range reqs {
				switch {
				case held.IsZero() && r.host == "a.example" && r.path == "/p1":
					held = r.at
				case !held.IsZero() && r.at.Sub(held) < 2*time.Second:
					within++
				}
			}
			if held.IsZero() {
				t.Fatal("a.example/p1 was never requested")
			}
			if by == hostgroup.ByIP && within != 0 {
				t.Errorf("paced by ip, %d requests started within a.example's 2 s Retry-After: the group was not held", within)
			}
			if by == hostgroup.ByHost && within == 0 {
				t.Errorf("paced by host, no request started within a.example's Retry-After: want b and c to go on")
			}
		})
	}
}

// The group's floor is the strictest of its names': a Crawl-delay of 1 s
// on one name binds the others too (above a --floor-host of 300 ms on a
// third), from the moment that robots.txt is read.
func TestPaceByIPStrictestFloorBindsTheGroup(t *testing.T) {
	t.Parallel()
	web := newFakeWeb(t)
	a := groupSite(web, "a.example", "User-agent: *\nCrawl-delay: 1\n", nil)
	b := groupSite(web, "b.example", "", nil)
	c := groupSite(web, "c.example", "", nil)
	seeds := append(append(pages(a, 2), pages(b, 3)...), pages(c, 2)...)
	cfg := fastConfig(t, seeds...)
	web.use(&cfg)
	cfg.PaceBy, cfg.Resolver = hostgroup.ByIP, oneServer
	cfg.FloorHosts = map[string]time.Duration{"c.example": 300 * time.Millisecond}
	rep, err := crawl.Run(context.Background(), mustOpen(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Totals.Done != 7 {
		t.Fatalf("%d done, want 7", rep.Totals.Done)
	}
	for name, h := range hostsOf(rep) {
		if h.FloorS != 1 || h.FloorSource != "crawl-delay" {
			t.Errorf("%s: floor %.3fs (%s), want 1s (crawl-delay): the group's strictest", name, h.FloorS, h.FloorSource)
		}
	}
	reqs := started(t, web)
	after := false
	for i, r := range reqs {
		if after && r.at.Sub(reqs[i-1].at) < time.Second {
			t.Errorf("%s%s started %v after the previous request, under the group's Crawl-delay of 1s", r.host, r.path, r.at.Sub(reqs[i-1].at))
		}
		if r.host == "a.example" && r.path == "/robots.txt" {
			after = true
		}
	}
}

// What a group learned is kept under its key, beside (not in) its names'
// rows: a later run paced by ip starts a name new to it, on the same
// server, from there; paced by host the name starts cold. The members and
// the runs' groupings are kept too.
func TestPaceByIPLearnedStateReloadedPerGroup(t *testing.T) {
	t.Parallel()
	web := newFakeWeb(t)
	a := groupSite(web, "a.example", "", map[string]string{"/p1": ""})
	b := groupSite(web, "b.example", "", nil)
	d := groupSite(web, "d.example", "", nil)
	db := mustOpen(t)
	cfg := fastConfig(t, append(pages(a, 3), pages(b, 3)...)...)
	web.use(&cfg)
	cfg.Job = "first"
	cfg.PaceBy, cfg.Resolver = hostgroup.ByIP, oneServer
	rep, err := crawl.Run(context.Background(), db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if g := hostsOf(rep)["a.example"]; g == nil || g.S429 != 1 {
		t.Fatalf("first run: a.example %+v, want its one 429", g)
	}
	st, ok, err := db.Load(oneServerKey)
	if err != nil || !ok || st.Delay <= cfg.Pace.Floor {
		t.Fatalf("stored state of %s = %+v, %v, %v; want the group's raised delay", oneServerKey, st, ok, err)
	}
	for _, name := range []string{"a.example", "b.example"} {
		if _, ok, _ := db.Load(name); ok {
			t.Errorf("%s has a state of its own: its pace was the group's", name)
		}
	}
	ms, err := db.PaceGroups()
	if err != nil || len(ms) != 2 || ms[0].Host != "a.example" || ms[1].Host != "b.example" || ms[0].Group != oneServerKey || ms[0].By != "ip" {
		t.Errorf("stored members %+v, %v; want a.example and b.example in %s", ms, err, oneServerKey)
	}
	if r, err := db.GetRun(rep.RunID); err != nil || r.PaceBy != "ip" {
		t.Errorf("first run's grouping %q, %v; want ip", r.PaceBy, err)
	}

	for _, by := range []hostgroup.By{hostgroup.ByIP, hostgroup.ByHost} {
		next := fastConfig(t, pages(d, 2)...)
		next.Clock, next.Fetcher = cfg.Clock, cfg.Fetcher
		next.Job = "then by " + string(by)
		next.PaceBy, next.Resolver = by, oneServer
		rep, err := crawl.Run(context.Background(), db, next)
		if err != nil {
			t.Fatal(err)
		}
		h := hostsOf(rep)["d.example"]
		switch {
		case h == nil:
			t.Fatalf("paced by %s: no d.example in the report", by)
		case by == hostgroup.ByIP && (h.StoredStartS == 0 || h.Group != oneServerKey):
			t.Errorf("paced by ip, d.example started from stored %.3fs in group %q: want the group's learned state", h.StoredStartS, h.Group)
		case by == hostgroup.ByHost && h.StoredStartS != 0:
			t.Errorf("paced by host, d.example started from stored %.3fs: want a cold start", h.StoredStartS)
		}
	}
}

// With the default --pace-by host, names that resolved to one address are
// named on stderr and in the summary; addresses written in URLs (the
// loopback origin on another port) are not grouped nor counted. Over
// loopback: the names are dialled through the test resolver, at the
// address it gives.
func TestPaceByHostSaysWhenNamesShareAnAddress(t *testing.T) {
	t.Parallel()
	clk := newFakeWeb(t).clk
	_, srv := serve(t, crawltest.Config{Clock: clk})
	_, other := serve(t, crawltest.Config{Clock: clk})
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	res := hostgroup.Static{}
	var seeds []string
	for _, name := range []string{"a.test", "b.test", "c.test"} {
		res[name] = []netip.Addr{netip.MustParseAddr("127.0.0.1")}
		seeds = append(seeds, "http://"+name+":"+port+"/doc/1", "http://"+name+":"+port+"/doc/2")
	}
	seeds = append(seeds, srv.URL+"/doc/3", other.URL+"/doc/1")
	cfg := fastConfig(t, seeds...)
	onClock(t, &cfg, clk)
	cfg.Resolver = res
	var logs bytes.Buffer
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	rep, err := crawl.Run(context.Background(), mustOpen(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Totals.Done != 8 || len(rep.Hosts) != 5 {
		t.Fatalf("%d done over %d hosts, want 8 over 5", rep.Totals.Done, len(rep.Hosts))
	}
	const advice = "3 hosts share 127.0.0.1; consider --pace-by ip"
	if !strings.Contains(logs.String(), "level=WARN msg=\""+advice+"\"") {
		t.Errorf("log:\n%s\nwant the warning %q", logs.String(), advice)
	}
	var text bytes.Buffer
	rep.WriteText(&text)
	if !strings.Contains(text.String(), "\n  "+advice+"\n") {
		t.Errorf("summary:\n%s\nwant %q", text.String(), advice)
	}
	if want := []string{"a.test", "b.test", "c.test"}; fmt.Sprint(rep.SharedAddrs["127.0.0.1"]) != fmt.Sprint(want) || len(rep.SharedAddrs) != 1 {
		t.Errorf("shared addresses %v, want 127.0.0.1: %v", rep.SharedAddrs, want)
	}
	for _, h := range rep.Hosts {
		if h.Group != "" {
			t.Errorf("paced by host, %s has group %q", h.Host, h.Group)
		}
	}
}
