package cmd

import (
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// groupStatus is a pace group as polite status lists it: several hosts a
// crawl paced as one (--pace-by domain or ip), whose learned state is a
// row of the host table under the group's key.
type groupStatus struct {
	Group   string    `json:"group"`   // its key: "ip:203.0.113.5", "domain:example.org"
	PaceBy  string    `json:"pace_by"` // the grouping: domain or ip
	Hosts   []string  `json:"hosts"`
	SeenAt  time.Time `json:"last_seen"` // when a run last paced one of them in it
	Learned bool      `json:"learned"`   // the group has a learned state (a row under its key)
}

// groupRows turns stored members into groups, by grouping and key.
func groupRows(ms []frontier.PaceMember, states map[string]bool) []groupStatus {
	var gs []groupStatus
	for _, m := range ms { // sorted by grouping, group and host
		if n := len(gs); n == 0 || gs[n-1].Group != m.Group || gs[n-1].PaceBy != m.By {
			gs = append(gs, groupStatus{Group: m.Group, PaceBy: m.By, Learned: states[m.Group]})
		}
		g := &gs[len(gs)-1]
		g.Hosts = append(g.Hosts, m.Host)
		if m.SeenAt.After(g.SeenAt) {
			g.SeenAt = m.SeenAt
		}
	}
	return gs
}

// membersOf returns the hosts of the groups keyed key.
func membersOf(gs []groupStatus, key string) []string {
	var hs []string
	for _, g := range gs {
		if g.Group == key {
			hs = append(hs, g.Hosts...)
		}
	}
	slices.Sort(hs)
	return slices.Compact(hs)
}

// matchesMember reports whether text is part of the name of a host of the
// group keyed key (status --host a.example lists a.example's group).
func matchesMember(gs []groupStatus, key, text string) bool {
	return slices.ContainsFunc(membersOf(gs, key), func(h string) bool { return strings.Contains(h, text) })
}

// writeGroups writes the pace groups of polite status, and the grouping
// of the last run.
func writeGroups(tw *tabwriter.Writer, gs []groupStatus, rs []runRow, now time.Time) {
	last := ""
	if len(rs) > 0 {
		last = fmt.Sprintf("; the last run (%d) paced by %s", rs[0].ID, paceByOf(rs[0]))
	}
	fmt.Fprintf(tw, "%d pace %s: hosts a crawl paced as one (--pace-by domain or ip)%s\n\n", len(gs), plural(len(gs), "group", "groups"), last)
	fmt.Fprintln(tw, "GROUP\tBY\tHOSTS\tLAST SEEN\tLEARNED")
	for _, g := range gs {
		hosts := strings.Join(g.Hosts[:min(len(g.Hosts), 4)], ", ")
		if len(g.Hosts) > 4 {
			hosts += fmt.Sprintf(" and %d more", len(g.Hosts)-4)
		}
		learned := "-"
		if g.Learned {
			learned = "in the table above"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", g.Group, g.PaceBy, hosts, ago(now.Sub(g.SeenAt)), learned)
	}
}

// paceByOf is the grouping a run paced by: host for a run of a polite
// that kept none.
func paceByOf(r runRow) string {
	if r.PaceBy == "" {
		return "host"
	}
	return r.PaceBy
}
