package report

import (
	"net/url"
	"sort"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/urls"
)

// Trouble is what report.html leads a host's row with, in the order the
// page lists hosts: the throttled first, then the dead, the unreachable,
// the skipped, and then the rest.
type Trouble int

const (
	TroubleThrottled   Trouble = iota // answered 429 or 503, or asked for a Retry-After wait
	TroubleDead                       // URLs that failed for good
	TroubleUnreachable                // never answered at all: refused, timed out, no DNS
	TroubleSkipped                    // stopped before its work was done: held, deferred, refused or cut by the run's end
	TroubleNone
)

func (t Trouble) String() string {
	switch t {
	case TroubleThrottled:
		return "throttled"
	case TroubleDead:
		return "dead"
	case TroubleUnreachable:
		return "unreachable"
	case TroubleSkipped:
		return "skipped"
	}
	return ""
}

// hostView is a host as report.html shows it.
type hostView struct {
	*HostStats
	Trouble  Trouble
	Dead     int  // its dead URLs
	Answered bool // it answered at least once (a status, not a network error)
}

// answers is how many answers the host gave (any status).
func (h *HostStats) answers() int {
	return h.S2xx + h.S304 + h.S3xx + h.S4xx + h.S429 + h.S5xx
}

// hostsByTrouble returns the hosts in the order report.html lists them:
// throttled (most throttled first), dead (most dead URLs first),
// unreachable, skipped,
// then the rest, by name within each.
func (r *Report) hostsByTrouble() []*hostView {
	dead := map[string]int{}
	for _, d := range r.Dead {
		if u, err := url.Parse(d.URL); err == nil {
			dead[urls.Host(u)]++
		}
	}
	vs := make([]*hostView, 0, len(r.Hosts))
	for _, h := range r.Hosts {
		v := &hostView{HostStats: h, Dead: dead[h.Host], Answered: h.answers() > 0, Trouble: TroubleNone}
		switch {
		case h.Throttled() > 0 || h.RetryAfters > 0:
			v.Trouble = TroubleThrottled
		case v.Dead > 0:
			v.Trouble = TroubleDead
		case h.Requests > 0 && !v.Answered:
			v.Trouble = TroubleUnreachable
		case h.Stopped != "" && h.Stopped != frontier.StopDone:
			v.Trouble = TroubleSkipped
		}
		vs = append(vs, v)
	}
	weight := func(v *hostView) int {
		switch v.Trouble {
		case TroubleThrottled:
			return v.Throttled() + v.RetryAfters
		case TroubleDead:
			return v.Dead
		}
		return 0
	}
	sort.SliceStable(vs, func(i, j int) bool {
		a, b := vs[i], vs[j]
		if a.Trouble != b.Trouble {
			return a.Trouble < b.Trouble
		}
		if wa, wb := weight(a), weight(b); wa != wb {
			return wa > wb
		}
		return a.Host < b.Host
	})
	return vs
}
