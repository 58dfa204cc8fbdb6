// Package revisit decides when polite asks for a URL again: an interval
// per URL, learned from what its fetches showed (longer while it stays the
// same, shorter when it changes), between a minimum and a maximum, so that
// a nightly crawl asks less of a site whose pages do not change.
//
// It is pure arithmetic over a URL's history (frontier.Revisit): time is
// an argument, nothing is read or written. The zero Policy is adaptive
// with no minimum and no maximum; most callers want Policy.Observe after
// each fetch and Policy.DueBy when a pass starts.
package revisit

import (
	"fmt"
	"math"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// Mode is how a crawl chooses what to ask for again (--revisit).
type Mode string

// The modes.
const (
	Adaptive Mode = "adaptive" // each URL when its learned interval has passed
	Always   Mode = "always"   // every URL every pass (polite before revisits)
)

// ParseMode reads --revisit's value.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case Adaptive, Always:
		return m, nil
	}
	return "", fmt.Errorf("--revisit %q: want adaptive or always", s)
}

// The answers that say something of a page beside 2xx (net/http's
// numbers; this package does no HTTP).
const (
	statusNotModified = 304
	statusNotFound    = 404
	statusGone        = 410
)

// How an interval moves: longer by Grow while a URL stays the same,
// shorter by Shrink when it changes. Slack is the share of an interval a
// URL may be asked for early, so that a cron job starting a minute sooner
// than the night before does not skip a URL that is due in a minute.
const (
	Grow   = 1.5
	Shrink = 0.5
	Slack  = 0.1
)

// DefaultMax is --revisit-max's default: a URL is asked for at least
// once a week.
const DefaultMax = 7 * 24 * time.Hour

// Rule is how a fetch moves a URL's interval. The crawl's is Halve; the
// others are measured beside it (polite-bench's revisit scenario and
// BenchmarkTenNights), not offered as a setting.
type Rule string

// The rules.
const (
	// Halve: unchanged multiplies the interval by Grow, changed by Shrink.
	Halve Rule = ""
	// Nutch: as Nutch's AdaptiveFetchSchedule with its defaults
	// (inc_rate 0.4, dec_rate 0.2): unchanged x1.4, changed x0.8.
	Nutch Rule = "nutch"
	// Rate: a URL never seen changing grows as with Halve; one seen
	// changing is asked for RatePerChange times per change its history
	// shows: its change rate estimated from its fetches and changes as
	// Cho and Garcia-Molina's estimator does (Estimating frequency of
	// change, 2003), over the gap since its last fetch.
	Rate Rule = "rate"
)

// RatePerChange is how many fetches the Rate rule spends per expected
// change: 2 asks for a page twice as often as it is estimated to change.
const RatePerChange = 2

// Policy is a crawl's revisit settings. Min is also --refresh's old
// meaning: no URL is asked for again within Min of its last fetch, in
// either mode. A zero Max means no maximum. The zero Rule is the crawl's.
type Policy struct {
	Mode     Mode
	Min, Max time.Duration
	Rule     Rule
}

// Validate refuses settings no schedule can keep.
func (p Policy) Validate() error {
	switch {
	case p.Mode != "" && p.Mode != Adaptive && p.Mode != Always:
		return fmt.Errorf("--revisit %q: want adaptive or always", p.Mode)
	case p.Min < 0 || p.Max < 0:
		return fmt.Errorf("--revisit-min and --revisit-max must not be negative")
	case p.Max > 0 && p.Min > p.Max:
		return fmt.Errorf("--revisit-min %s is over --revisit-max %s", p.Min, p.Max)
	case p.Rule != Halve && p.Rule != Nutch && p.Rule != Rate:
		return fmt.Errorf("revisit rule %q: want nutch, rate or none", p.Rule)
	}
	return nil
}

// DueBy is what a pass starting at now asks of the store: entries fetched
// before refreshBefore (not within Min) whose revisit is due by dueBy are
// asked for again. A zero dueBy (--revisit always) makes every one due.
func (p Policy) DueBy(now time.Time) (refreshBefore, dueBy time.Time) {
	refreshBefore = now.Add(-p.Min)
	if p.Min == 0 {
		refreshBefore = now.Add(time.Nanosecond)
	}
	if p.Mode == Always {
		return refreshBefore, time.Time{}
	}
	return refreshBefore, now
}

// Classify says what a fetch answered status (with payload digest sha on
// a 2xx) showed of prev, the entry as it was before the fetch: "" when
// the answer tells nothing of the page (a redirect, a failure).
func Classify(prev frontier.Entry, status int, sha string) frontier.Change {
	fetched := !prev.FetchedAt.IsZero() && prev.SHA256 != ""
	switch {
	case prev.Kind != frontier.Page:
		return "" // a sitemap is read every pass: it is what says which pages changed
	case status == statusNotModified:
		return frontier.ChangeUnchanged
	case status >= 200 && status < 300 && sha == "":
		return "" // no body kept (a sitemap, a body refused): nothing to compare
	case status >= 200 && status < 300 && !fetched:
		return frontier.ChangeNew
	case status >= 200 && status < 300 && sha == prev.SHA256:
		return frontier.ChangeUnchanged
	case status >= 200 && status < 300:
		return frontier.ChangeChanged
	case status == statusNotFound || status == statusGone:
		if prev.Revisit.Change == frontier.ChangeGone || (prev.LastStatus == status && !fetched) {
			return frontier.ChangeUnchanged // gone before, still gone
		}
		if fetched {
			return frontier.ChangeGone
		}
	}
	return ""
}

// Observe is prev's history after a fetch at now answered status (sha
// the payload's digest on a 2xx): what the fetch showed, the interval it
// teaches and when the URL is due again. An answer that shows nothing of
// the page (Classify's "") leaves the history as it was, but for its
// Change, which says what the last fetch showed: nothing.
func (p Policy) Observe(prev frontier.Entry, status int, sha string, now time.Time) frontier.Revisit {
	r := prev.Revisit
	ch := Classify(prev, status, sha)
	if ch == "" {
		r.Change = ""
		return r
	}
	r.Fetches++
	r.Change = ch
	if ch != frontier.ChangeUnchanged {
		r.ChangedAt = now
	}
	if ch == frontier.ChangeChanged || ch == frontier.ChangeGone {
		r.Changes++
	}
	r.Every = p.next(r, gap(prev.FetchedAt, now), ch)
	r.DueAt = now.Add(p.wait(r.Every))
	return r
}

// gap is the time since the last fetch, 0 when there was none (or the
// clock went back).
func gap(last, now time.Time) time.Duration {
	if last.IsZero() || now.Before(last) {
		return 0
	}
	return now.Sub(last)
}

// next is the interval after a fetch that showed ch, gap after the last
// one, given the interval learned so far. The first interval is the gap
// between the first two fetches. A URL that stayed the same for longer
// than its interval (a run skipped, a long --revisit-min) learns from the
// gap it actually stayed the same for; one that changed learns from the
// shorter of the two, the longest it is known to have been stale.
func (p Policy) next(r frontier.Revisit, gap time.Duration, ch frontier.Change) time.Duration {
	every, grow, shrink := r.Every, Grow, Shrink
	if p.Rule == Nutch {
		grow, shrink = 1.4, 0.8
	}
	var d time.Duration
	switch ch {
	case frontier.ChangeNew:
		d = 0
	case frontier.ChangeGone:
		d = p.Max
		if d == 0 {
			d = scale(max(every, gap), Grow)
		}
	case frontier.ChangeNotDue:
		return every // not fetched: nothing learned
	case frontier.ChangeUnchanged:
		d = scale(max(every, gap), grow)
		if p.Rule == Rate && r.Changes > 0 {
			d = rateInterval(r, gap)
		}
	case frontier.ChangeChanged:
		base := every
		if base == 0 || (gap > 0 && gap < base) {
			base = gap
		}
		d = scale(base, shrink)
		if p.Rule == Rate {
			d = rateInterval(r, gap)
		}
	}
	return p.clamp(d)
}

// rateInterval is the Rate rule's interval for r, a history with at
// least one change, after a fetch gap after the last: Cho and
// Garcia-Molina's estimate of the change rate from n checks that saw X
// changes, -ln((n-X+0.5)/(n+0.5)) per gap, and RatePerChange fetches per
// change at that rate.
func rateInterval(r frontier.Revisit, gap time.Duration) time.Duration {
	n := float64(max(r.Fetches-1, 1)) // the first fetch saw the page new: no check
	x := min(float64(r.Changes), n)
	perGap := -math.Log((n - x + 0.5) / (n + 0.5))
	if gap <= 0 || perGap <= 0 {
		return gap
	}
	return scale(gap, 1/(perGap*RatePerChange))
}

// wait is how long after a fetch a URL with interval every is due: the
// interval less its slack, never less than Min.
func (p Policy) wait(every time.Duration) time.Duration {
	return max(p.Min, every-scale(every, Slack))
}

// clamp bounds d to [Min, Max].
func (p Policy) clamp(d time.Duration) time.Duration {
	if p.Max > 0 && d > p.Max {
		d = p.Max
	}
	return max(d, p.Min)
}

// scale multiplies d by f, bounded so that no product overflows.
func scale(d time.Duration, f float64) time.Duration {
	const limit = 100 * 365 * 24 * time.Hour
	v := float64(d) * f
	if v > float64(limit) {
		return limit
	}
	return time.Duration(v)
}
