package fetch

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/dunglas/httpsfv"

	"github.com/polite-crawler/polite/pace"
)

// Bounds past which an announced quota is garbage rather than a policy.
const (
	maxQuotaCount  = 1 << 40              // requests in a window
	maxQuotaReset  = 366 * 24 * time.Hour // time to the window's reset
	epochThreshold = 1e9                  // an X-RateLimit-Reset above this is Unix time
)

// ParseRateLimit reads the quota a server announced in the response
// headers h, taking the first of these forms that yields one:
//
//   - RateLimit with RateLimit-Policy (the current IETF draft):
//     RateLimit: "default";r=5;t=30 and RateLimit-Policy: "default";q=10;w=60,
//     r remaining, t seconds to reset (w when t is missing), q the limit;
//   - RateLimit as a dictionary (drafts 06 and 07):
//     RateLimit: limit=10, remaining=5, reset=30;
//   - RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset (earlier
//     drafts; Reset in delta seconds);
//   - X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset, where a
//     Reset above 1e9 is a Unix time (Reset = epoch - now) and a smaller one
//     delta seconds.
//
// A form needs a remaining count and a reset in the future; the limit is
// optional. Malformed, negative or absurd values make a form yield nothing
// and the next one is tried; nothing panics. When a list carries several
// policies, the most restrictive one (the longest wait per remaining
// request) is returned.
func ParseRateLimit(h http.Header, now time.Time) (*pace.Quota, bool) {
	forms := []func(http.Header, time.Time) (pace.Quota, bool){
		rateLimitList, rateLimitDictionary, rateLimitFields, xRateLimitFields,
	}
	for _, parse := range forms {
		if q, ok := parse(h, now); ok {
			return &q, true
		}
	}
	return nil, false
}

// rateLimitList reads RateLimit and RateLimit-Policy as structured lists.
func rateLimitList(h http.Header, _ time.Time) (pace.Quota, bool) {
	values := h.Values("RateLimit")
	if len(values) == 0 {
		return pace.Quota{}, false
	}
	list, err := httpsfv.UnmarshalList(values)
	if err != nil {
		return pace.Quota{}, false
	}
	type policy struct{ limit, window int64 }
	policies := map[string]policy{}
	if pv := h.Values("RateLimit-Policy"); len(pv) > 0 {
		if pl, err := httpsfv.UnmarshalList(pv); err == nil {
			for _, m := range pl {
				it, ok := m.(httpsfv.Item)
				if !ok {
					continue
				}
				q, _ := paramInt(it, "q")
				w, _ := paramInt(it, "w")
				policies[itemName(it)] = policy{limit: q, window: w}
			}
		}
	}
	var best pace.Quota
	found := false
	for _, m := range list {
		it, ok := m.(httpsfv.Item)
		if !ok {
			continue
		}
		pol := policies[itemName(it)]
		r, okR := paramInt(it, "r")
		t, okT := paramInt(it, "t")
		if !okT {
			t, okT = pol.window, pol.window > 0
		}
		q, ok := quota(pol.limit, r, float64(t), okR && okT)
		if ok && (!found || tighter(q, best)) {
			best, found = q, true
		}
	}
	return best, found
}

// rateLimitDictionary reads RateLimit as a dictionary of limit, remaining
// and reset.
func rateLimitDictionary(h http.Header, _ time.Time) (pace.Quota, bool) {
	values := h.Values("RateLimit")
	if len(values) == 0 {
		return pace.Quota{}, false
	}
	d, err := httpsfv.UnmarshalDictionary(values)
	if err != nil {
		return pace.Quota{}, false
	}
	get := func(k string) (int64, bool) {
		m, ok := d.Get(k)
		if !ok {
			return 0, false
		}
		it, ok := m.(httpsfv.Item)
		if !ok {
			return 0, false
		}
		v, ok := it.Value.(int64)
		return v, ok
	}
	limit, _ := get("limit")
	remaining, okR := get("remaining")
	reset, okT := get("reset")
	return quota(limit, remaining, float64(reset), okR && okT)
}

// rateLimitFields reads RateLimit-Limit, RateLimit-Remaining and
// RateLimit-Reset.
func rateLimitFields(h http.Header, _ time.Time) (pace.Quota, bool) {
	limit, _ := count(h.Get("RateLimit-Limit"))
	remaining, okR := count(h.Get("RateLimit-Remaining"))
	reset, okT := seconds(h.Get("RateLimit-Reset"))
	return quota(limit, remaining, reset, okR && okT)
}

// xRateLimitFields reads X-RateLimit-Limit, X-RateLimit-Remaining and
// X-RateLimit-Reset, whose reset may be a Unix time.
func xRateLimitFields(h http.Header, now time.Time) (pace.Quota, bool) {
	limit, _ := count(h.Get("X-RateLimit-Limit"))
	remaining, okR := count(h.Get("X-RateLimit-Remaining"))
	reset, okT := seconds(h.Get("X-RateLimit-Reset"))
	if okT && reset > epochThreshold {
		reset -= float64(now.UnixNano()) / 1e9
	}
	return quota(limit, remaining, reset, okR && okT)
}

// quota checks and assembles the parts of a quota. A limit out of range is
// dropped (it is optional); a remaining count or reset out of range, or a
// reset not in the future, makes no quota.
func quota(limit, remaining int64, resetSeconds float64, ok bool) (pace.Quota, bool) {
	if !ok || remaining < 0 || remaining > maxQuotaCount ||
		!(resetSeconds > 0) || resetSeconds > maxQuotaReset.Seconds() {
		return pace.Quota{}, false
	}
	if limit < 0 || limit > maxQuotaCount || (limit > 0 && limit < remaining) {
		limit = 0
	}
	reset := time.Duration(math.Round(resetSeconds * float64(time.Second)))
	return pace.Quota{Limit: int(limit), Remaining: int(remaining), Reset: reset}, true
}

// tighter reports whether a asks for longer waits than b.
func tighter(a, b pace.Quota) bool {
	if a.Remaining == 0 || b.Remaining == 0 {
		return a.Remaining == 0 && (b.Remaining != 0 || a.Reset > b.Reset)
	}
	return a.Reset.Seconds()/float64(a.Remaining) > b.Reset.Seconds()/float64(b.Remaining)
}

// itemName returns a list item's value as a policy name.
func itemName(it httpsfv.Item) string {
	switch v := it.Value.(type) {
	case string:
		return v
	case httpsfv.Token:
		return string(v)
	}
	return ""
}

// paramInt returns an integer parameter of a structured item.
func paramInt(it httpsfv.Item, k string) (int64, bool) {
	if it.Params == nil {
		return 0, false
	}
	v, ok := it.Params.Get(k)
	if !ok {
		return 0, false
	}
	n, ok := v.(int64)
	return n, ok
}

// first returns the first element of a field that may be a list with
// parameters ("100, 100;w=60" is 100).
func first(v string) string {
	if i := strings.IndexAny(v, ",;"); i >= 0 {
		v = v[:i]
	}
	return strings.TrimSpace(v)
}

// count parses a non-negative integer field.
func count(v string) (int64, bool) {
	n, err := strconv.ParseInt(first(v), 10, 64)
	if err != nil || n < 0 || n > maxQuotaCount {
		return 0, false
	}
	return n, true
}

// seconds parses a non-negative number of seconds (a fraction allowed).
func seconds(v string) (float64, bool) {
	f, err := strconv.ParseFloat(first(v), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return 0, false
	}
	return f, true
}

// Outcome is what the pacer learns from the answer: its status (0 for no
// answer), time to first byte, a soft block (slow: the body matched
// --slow-down-pattern), and the Retry-After (of a 429 or 503) and
// rate-limit quota it carries, read at now.
func (r Response) Outcome(slow bool, now time.Time) pace.Outcome {
	o := pace.Outcome{Status: r.Answered(), TTFB: r.TTFB, SlowDown: slow}
	if r.Header == nil {
		return o
	}
	if ra := r.Header.Get("Retry-After"); ra != "" && (r.Status == 429 || r.Status == 503) {
		if d, ok := pace.ParseRetryAfter(ra, now); ok {
			o.RetryAfter = d
		} else {
			o.BadRetryAfter = ra
		}
	}
	if q, ok := ParseRateLimit(r.Header, now); ok {
		o.Quota = q
	}
	return o
}

// Answered is the answer's status, 0 when there was none.
func (r Response) Answered() int {
	if r.Err != nil {
		return 0
	}
	return r.Status
}
