package report

import (
	"fmt"
	"sort"
	"strings"
)

// PaceGroup is a pace several hosts of the run shared (--pace-by domain
// or ip): its key, its hosts, and the group as one host (Stats: the key
// as its name, the hosts' requests and answers added up, their timelines
// merged into one, which is the group's: each point's delay is the
// group's delay).
type PaceGroup struct {
	Key   string
	Hosts []string
	Stats *HostStats
}

// PaceGroups returns the groups the run's hosts were paced in (their
// HostStats.Group), by key.
func (r *Report) PaceGroups() []PaceGroup {
	byKey := map[string]*PaceGroup{}
	var keys []string
	for _, h := range r.Hosts {
		if h.Group == "" {
			continue
		}
		g := byKey[h.Group]
		if g == nil {
			g = &PaceGroup{Key: h.Group, Stats: &HostStats{Host: h.Group, FloorS: h.FloorS, FloorSource: h.FloorSource,
				DelayEndS: h.DelayEndS, Stopped: h.Stopped}}
			byKey[h.Group] = g
			keys = append(keys, h.Group)
		}
		g.Hosts = append(g.Hosts, h.Host)
		g.Stats.add(h)
	}
	sort.Strings(keys)
	out := make([]PaceGroup, len(keys))
	for i, k := range keys {
		g := byKey[k]
		sort.Slice(g.Stats.Timeline, func(i, j int) bool { return g.Stats.Timeline[i].AtS < g.Stats.Timeline[j].AtS })
		g.Stats.DelayMaxS = HighestAfterStart(g.Stats)
		out[i] = *g
	}
	return out
}

// add adds a member host's figures to a group's.
func (g *HostStats) add(h *HostStats) {
	g.Requests += h.Requests
	g.S2xx, g.S304, g.S3xx, g.S4xx, g.S429 = g.S2xx+h.S2xx, g.S304+h.S304, g.S3xx+h.S3xx, g.S4xx+h.S4xx, g.S429+h.S429
	g.S5xx, g.S503, g.Errors, g.Retries = g.S5xx+h.S5xx, g.S503+h.S503, g.Errors+h.Errors, g.Retries+h.Retries
	g.RetryAfters, g.Bytes, g.WaitS = g.RetryAfters+h.RetryAfters, g.Bytes+h.Bytes, g.WaitS+h.WaitS
	g.DelayStartS, g.StoredStartS = max(g.DelayStartS, h.DelayStartS), max(g.StoredStartS, h.StoredStartS)
	g.Timeline = append(g.Timeline, h.Timeline...)
	g.Holds = append(g.Holds, h.Holds...)
}

// PaceAdvice says, for each address several host names resolved to in a
// run paced by host (SharedAddrs), that they share a server: "7 hosts
// share 203.0.113.5; consider --pace-by ip". Most shared first.
func (r *Report) PaceAdvice() []string {
	addrs := make([]string, 0, len(r.SharedAddrs))
	for a := range r.SharedAddrs {
		addrs = append(addrs, a)
	}
	sort.Slice(addrs, func(i, j int) bool {
		if ni, nj := len(r.SharedAddrs[addrs[i]]), len(r.SharedAddrs[addrs[j]]); ni != nj {
			return ni > nj
		}
		return addrs[i] < addrs[j]
	})
	out := make([]string, len(addrs))
	for i, a := range addrs {
		out[i] = fmt.Sprintf("%d hosts share %s; consider --pace-by ip", len(r.SharedAddrs[a]), a)
	}
	return out
}

// writeGroups says how the hosts were paced when not each alone: the
// groups, the largest first; and, paced by host, which hosts share an
// address.
func (r *Report) writeGroups(b *strings.Builder) {
	gs := r.PaceGroups()
	sort.SliceStable(gs, func(i, j int) bool { return len(gs[i].Hosts) > len(gs[j].Hosts) })
	if len(gs) > 0 {
		fmt.Fprintf(b, "  paced by %s: %d %s\n", r.PaceBy, len(gs), Plural(len(gs), "group", "groups"))
	}
	for i, g := range gs {
		if i == textLimit {
			fmt.Fprintf(b, "    ... and %d more\n", len(gs)-textLimit)
			break
		}
		names := strings.Join(g.Hosts[:min(len(g.Hosts), 3)], ", ")
		if len(g.Hosts) > 3 {
			names += fmt.Sprintf(" and %d more", len(g.Hosts)-3)
		}
		fmt.Fprintf(b, "    %s: %d %s (%s), %d throttled\n", g.Key, len(g.Hosts), Plural(len(g.Hosts), "host", "hosts"), names, g.Stats.Throttled())
	}
	for _, a := range r.PaceAdvice() {
		fmt.Fprintf(b, "  %s\n", a)
	}
}
