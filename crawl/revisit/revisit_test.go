package revisit

import (
	"math"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/clock"
	"github.com/polite-crawler/polite/crawl/frontier"
)

const day = 24 * time.Hour

var t0 = time.Date(2026, 3, 1, 2, 0, 0, 0, time.UTC)

// night is one fetch of a script: after, since the last step; what the
// server answered; and what the URL's history must then say.
type night struct {
	after     time.Duration
	status    int
	sha       string
	change    frontier.Change
	every     time.Duration
	dueIn     time.Duration // DueAt - now
	fetches   int
	changes   int
	dueNextDy bool // due by the next night (after a day)
}

// play runs a script of fetches on the fake clock, the entry updated as
// the crawl updates it, and checks each step by name.
func play(t *testing.T, p Policy, steps []night) {
	t.Helper()
	c := clock.NewFake(t0)
	var e frontier.Entry
	for i, s := range steps {
		c.Advance(s.after)
		now := c.Now()
		r := p.Observe(e, s.status, s.sha, now)
		if r.Change != s.change || r.Every != s.every || r.DueAt.Sub(now) != s.dueIn ||
			r.Fetches != s.fetches || r.Changes != s.changes {
			t.Fatalf("step %d: change %q every %s due in %s fetches %d changes %d; want %q %s %s %d %d",
				i, r.Change, r.Every, r.DueAt.Sub(now), r.Fetches, r.Changes,
				s.change, s.every, s.dueIn, s.fetches, s.changes)
		}
		_, dueBy := p.DueBy(now.Add(day))
		if got := !r.DueAt.After(dueBy); got != s.dueNextDy {
			t.Errorf("step %d: due the next night %v, want %v", i, got, s.dueNextDy)
		}
		e.Revisit, e.FetchedAt, e.LastStatus = r, now, s.status
		if s.sha != "" {
			e.SHA256 = s.sha
		}
	}
}

// TestIntervalGrowsWhileUnchanged: the first interval is the gap between
// the first two fetches; each unchanged fetch multiplies it by 1.5, up to
// --revisit-max; a URL is due a tenth of its interval early.
func TestIntervalGrowsWhileUnchanged(t *testing.T) {
	t.Parallel()
	p := Policy{Mode: Adaptive, Max: 4 * day}
	play(t, p, []night{
		{0, 200, "a", frontier.ChangeNew, 0, 0, 1, 0, true},
		{day, 304, "", frontier.ChangeUnchanged, 36 * time.Hour, 36*time.Hour - 216*time.Minute, 2, 0, false},
		{2 * day, 200, "a", frontier.ChangeUnchanged, 72 * time.Hour, 72*time.Hour - 432*time.Minute, 3, 0, false},
		{3 * day, 304, "", frontier.ChangeUnchanged, 4 * day, 4*day - 4*day/10, 4, 0, false},
		{4 * day, 304, "", frontier.ChangeUnchanged, 4 * day, 4*day - 4*day/10, 5, 0, false},
	})
}

// TestIntervalShrinksWhenChanged: a change halves the interval (from the
// shorter of the interval and the gap), down to --revisit-min.
func TestIntervalShrinksWhenChanged(t *testing.T) {
	t.Parallel()
	p := Policy{Mode: Adaptive, Min: 6 * time.Hour, Max: 7 * day}
	play(t, p, []night{
		{0, 200, "a", frontier.ChangeNew, 6 * time.Hour, 6 * time.Hour, 1, 0, true},
		{day, 304, "", frontier.ChangeUnchanged, 36 * time.Hour, 36*time.Hour - 216*time.Minute, 2, 0, false},
		{2 * day, 200, "b", frontier.ChangeChanged, 18 * time.Hour, 18*time.Hour - 108*time.Minute, 3, 1, true},
		{day, 200, "c", frontier.ChangeChanged, 9 * time.Hour, 9*time.Hour - 54*time.Minute, 4, 2, true},
		{day, 200, "d", frontier.ChangeChanged, 6 * time.Hour, 6 * time.Hour, 5, 3, true},
		// Unchanged after a day at a 6 h interval: it stayed the same for
		// the whole day, and grows from that.
		{day, 200, "d", frontier.ChangeUnchanged, 36 * time.Hour, 36*time.Hour - 216*time.Minute, 6, 3, false},
	})
}

// TestGone: a 404 where a page was is gone, revisited at --revisit-max;
// still 404 after that is unchanged; back again is changed.
func TestGone(t *testing.T) {
	t.Parallel()
	p := Policy{Mode: Adaptive, Max: 7 * day}
	play(t, p, []night{
		{0, 200, "a", frontier.ChangeNew, 0, 0, 1, 0, true},
		{day, 404, "", frontier.ChangeGone, 7 * day, 7*day - 7*day/10, 2, 1, false},
		{7 * day, 410, "", frontier.ChangeUnchanged, 7 * day, 7*day - 7*day/10, 3, 1, false},
		{7 * day, 200, "b", frontier.ChangeChanged, 84 * time.Hour, 84*time.Hour - 504*time.Minute, 4, 2, false},
	})
}

// TestNothingLearned: a redirect or a failure says nothing of the page.
func TestNothingLearned(t *testing.T) {
	t.Parallel()
	prev := frontier.Entry{SHA256: "a", FetchedAt: t0,
		Revisit: frontier.Revisit{Every: day, DueAt: t0.Add(day), Fetches: 3, Change: frontier.ChangeUnchanged}}
	want := prev.Revisit
	want.Change = ""
	for _, st := range []int{0, 301, 429, 500, 503, 403} {
		if got := (Policy{}).Observe(prev, st, "", t0.Add(day)); got != want {
			t.Errorf("status %d: %+v, want %+v", st, got, want)
		}
	}
	if got := Classify(frontier.Entry{}, 404, ""); got != "" {
		t.Errorf("a first 404: %q, want none", got)
	}
	sm := frontier.Entry{Kind: frontier.Sitemap, SHA256: "a", FetchedAt: t0}
	if got := (Policy{}).Observe(sm, 304, "", t0.Add(day)); got != (frontier.Revisit{}) {
		t.Errorf("a sitemap's 304 taught %+v, want nothing: a sitemap is always due", got)
	}
}

// TestDueBy: always makes every entry due (a zero dueBy); Min is never
// asked for again sooner, in either mode.
func TestDueBy(t *testing.T) {
	t.Parallel()
	now := t0
	for _, tt := range []struct {
		name           string
		p              Policy
		refresh, dueBy time.Time
	}{
		{"adaptive", Policy{Mode: Adaptive}, now.Add(time.Nanosecond), now},
		{"always", Policy{Mode: Always}, now.Add(time.Nanosecond), time.Time{}},
		{"always, min", Policy{Mode: Always, Min: time.Hour}, now.Add(-time.Hour), time.Time{}},
		{"adaptive, min", Policy{Mode: Adaptive, Min: time.Hour}, now.Add(-time.Hour), now},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, d := tt.p.DueBy(now)
			if !r.Equal(tt.refresh) || !d.Equal(tt.dueBy) {
				t.Errorf("DueBy = %s, %s; want %s, %s", r, d, tt.refresh, tt.dueBy)
			}
		})
	}
}

// TestValidate names the setting that is wrong.
func TestValidate(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		p    Policy
		want string
	}{
		{Policy{Mode: "sometimes"}, `--revisit "sometimes": want adaptive or always`},
		{Policy{Min: -time.Second}, "--revisit-min and --revisit-max must not be negative"},
		{Policy{Min: 2 * day, Max: day}, "--revisit-min 48h0m0s is over --revisit-max 24h0m0s"},
	} {
		if err := tt.p.Validate(); err == nil || err.Error() != tt.want {
			t.Errorf("%+v: %v, want %q", tt.p, err, tt.want)
		}
	}
	if err := (Policy{Mode: Adaptive, Max: DefaultMax}).Validate(); err != nil {
		t.Errorf("defaults: %v", err)
	}
	if _, err := ParseMode("often"); err == nil {
		t.Error("ParseMode(often): no error")
	}
}

// TestHugeIntervalsBounded: an absurd --revisit-max or gap does not
// overflow into a negative interval.
func TestHugeIntervalsBounded(t *testing.T) {
	t.Parallel()
	prev := frontier.Entry{SHA256: "a", FetchedAt: t0, Revisit: frontier.Revisit{Every: 1 << 62}}
	r := (Policy{}).Observe(prev, 304, "", t0.Add(time.Hour))
	if r.Every <= 0 || r.DueAt.Before(t0) {
		t.Errorf("every %s due %s: overflowed", r.Every, r.DueAt)
	}
}

// TestRulesMeasuredBeside: Nutch's rates grow an unchanged URL's
// interval by 1.4 and shrink a changed one's by 0.8; the rate rule asks
// for a URL seen changing twice per change its history shows (Cho and
// Garcia-Molina's estimate over the last gap), so its interval grows as
// unchanged fetches pile up.
func TestRulesMeasuredBeside(t *testing.T) {
	type ruleStep struct {
		sha   string
		every float64 // hours
	}
	t.Parallel()
	const h = float64(time.Hour)
	for _, tt := range []struct {
		rule  Rule
		steps []ruleStep
	}{
		{Nutch, []ruleStep{{"a", 0}, {"a", 24 * 1.4}, {"b", 24 * 0.8}, {"b", 24 * 1.4}}}, // changed: from the day it was stale
		{Rate, []ruleStep{
			{"a", 0},
			{"a", 24 * 1.5},                      // never seen changing: as the crawl's rule
			{"b", 24 / (2 * -math.Log(1.5/2.5))}, // 2 checks, 1 change
			{"b", 24 / (2 * -math.Log(2.5/3.5))}, // 3 checks, 1 change
			{"b", 24 / (2 * -math.Log(3.5/4.5))}, // 4 checks, 1 change
		}},
	} {
		p := Policy{Mode: Adaptive, Max: 7 * day, Rule: tt.rule}
		var e frontier.Entry
		for i, s := range tt.steps {
			now := t0.Add(time.Duration(i) * day)
			r := p.Observe(e, 200, s.sha, now)
			if got := float64(r.Every) / h; math.Abs(got-s.every) > 1e-6 {
				t.Errorf("%s step %d: every %.4fh, want %.4fh", tt.rule, i, got, s.every)
			}
			e.Revisit, e.FetchedAt, e.SHA256, e.LastStatus = r, now, s.sha, 200
		}
	}
	if err := (Policy{Rule: "fastest"}).Validate(); err == nil {
		t.Error("an unknown rule validated")
	}
}
