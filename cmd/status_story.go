package cmd

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/polite-crawler/polite/crawl/report"
	"github.com/polite-crawler/polite/pace"
)

// storyLines is how many signals of the last run the text form lists; the
// JSON form lists them all.
const storyLines = 15

// signalsOf lists a host's signals in a run, in time order: refusals,
// network errors, delays raised on answers that were not refusals, and the
// pauses the report kept (breaker, robots.txt retry waits).
func signalsOf(h *report.HostStats, start time.Time) []storySignal {
	at := func(s float64) time.Time {
		return start.Add(time.Duration(s * float64(time.Second))).UTC()
	}
	sigs := []storySignal{}
	prev := h.DelayStartS
	for _, p := range h.Timeline {
		s := storySignal{At: at(p.AtS), AtS: p.AtS, Status: p.Status, DelayS: p.DelayS, RetryAfterS: p.RetryAfterS}
		switch {
		case p.Status == 429 || p.Status == 503:
			s.Kind = SignalThrottled
		case p.Status == 0:
			s.Kind = SignalNetError
		case p.DelayS > prev*1.05+0.001 && p.DelayS > h.FloorS*1.001:
			s.Kind = SignalRaised
		}
		prev = p.DelayS
		if s.Kind != "" {
			sigs = append(sigs, s)
		}
	}
	for _, m := range h.Holds {
		kind := SignalRobotsRetry
		if m.Kind == report.HoldMarkBreaker {
			kind = SignalBreaker
		}
		sigs = append(sigs, storySignal{At: at(m.AtS), AtS: m.AtS, Kind: kind, SpanS: m.SpanS})
	}
	sort.SliceStable(sigs, func(i, j int) bool { return sigs[i].AtS < sigs[j].AtS })
	return sigs
}

// writeStory writes a host's story on one screen: where its next run
// starts and why, what it learned, its hold, floor, robots.txt, and the
// last run's signals for it in time order.
func writeStory(w io.Writer, s hostStory, now time.Time, loc *time.Location) error {
	if loc == nil {
		loc = time.Local
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "%s\n", s.Host)
	fmt.Fprintf(tw, "  next delay\t%s\n", report.HumanSeconds(s.NextDelayS)+", "+delayWhy(s.hostStatus, now))
	fmt.Fprintf(tw, "  learned\t%s\n", learnedStory(s.Learned))
	fmt.Fprintf(tw, "  hold\t%s\n", holdStory(s.Hold, now))
	fmt.Fprintf(tw, "  floor\t%s\n", floorStory(s))
	fmt.Fprintf(tw, "  robots.txt\t%s\n", robotsStoryText(s.Robots, now))
	writeUsageStory(tw, s)
	fmt.Fprintf(tw, "  TTFB baseline\t%s\n", baselineCell(s.BaselineMS))
	fmt.Fprintf(tw, "  last signal\t%s\n", signalCell(s.hostStatus, now))
	fmt.Fprintf(tw, "  revisits\t%s\n", revisitText(s.Revisits))
	if err := tw.Flush(); err != nil {
		return err
	}
	r := s.LastRun
	if r == nil {
		_, err := fmt.Fprintf(w, "\nno run of the last %d saved a report that names %s\n", storyRuns, s.Host)
		return err
	}
	ended := "ended " + ago(now.Sub(r.End))
	if r.From == "fetches" {
		ended = "saved no report (running, or died); from its fetch records"
	}
	fmt.Fprintf(w, "\nlast run to touch it: run %d (job %s), %s, %s\n", r.ID, r.Job,
		r.Start.In(loc).Format("2006-01-02 15:04 MST"), ended)
	fmt.Fprintf(w, "  %d %s: %d x 429, %d x 503, %d network %s; delay %s -> %s -> %s; robots.txt %s; stopped: %s\n",
		r.Requests, plural(r.Requests, "request", "requests"), r.S429, r.S503, r.Errors, plural(r.Errors, "error", "errors"),
		report.HumanSeconds(r.DelayStartS), report.HumanSeconds(r.DelayMaxS), report.HumanSeconds(r.DelayEndS), or(r.Robots, "-"), or(r.Stopped.String(), "-"))
	if len(r.Signals) == 0 {
		_, err := fmt.Fprintln(w, "  no signals: no refusal, no network error, no pause, no delay raised")
		return err
	}
	fmt.Fprintln(w, "  signals, in time order:")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for i, g := range r.Signals {
		if i == storyLines {
			fmt.Fprintf(tw, "    ... and %d more (--json lists them all)\n", len(r.Signals)-storyLines)
			break
		}
		fmt.Fprintf(tw, "    %s\t+%s\t%s\t%s\n", g.At.In(loc).Format("15:04:05"), report.HumanDuration(g.AtS), signalWhat(g), signalDetail(g))
	}
	return tw.Flush()
}

// delayWhy says what sets the next delay.
func delayWhy(r hostStatus, now time.Time) string {
	hl := shortDuration(time.Duration(r.HalfLifeS * float64(time.Second)))
	set := ""
	if !r.SetAt.IsZero() {
		set = fmt.Sprintf("%s set %s", report.HumanSeconds(r.StoredS), ago(now.Sub(r.SetAt)))
		switch {
		case r.LastSignal == "":
		case r.LastSignal[0] >= '0' && r.LastSignal[0] <= '9':
			set += " after a " + r.LastSignal
		default:
			set += " after a " + r.LastSignal + " signal"
		}
	}
	switch r.NextFrom {
	case pace.BasisBackoff:
		return fmt.Sprintf("the backoff: %s, halving every %s", set, hl)
	case pace.BasisLearned:
		return fmt.Sprintf("the learned limit: the backoff (%s) has decayed with half-life %s", set, hl)
	case pace.BasisFloor:
		return "the floor: no backoff or learned limit above it still holds"
	}
	if set == "" {
		return "the cold start: nothing stored yet"
	}
	return fmt.Sprintf("the cold start: nothing learned still holds, the backoff (%s) has decayed", set)
}

func learnedStory(l *learnedStatus) string {
	if l == nil {
		return "nothing yet (no refusal, no confirmed safe gap)"
	}
	hl := shortDuration(time.Duration(l.HalfLifeS * float64(time.Second)))
	if d := time.Duration(l.HalfLifeS * float64(time.Second)); d >= 48*time.Hour && d%(24*time.Hour) == 0 {
		hl = fmt.Sprintf("%dd", d/(24*time.Hour))
	}
	s := learnedCell(l) + ", ages with half-life " + hl
	if !l.AgedAway {
		s += "; a run with the backoff decayed starts at " + report.HumanSeconds(l.StartS)
	}
	return s
}

func holdStory(h *holdStatus, now time.Time) string {
	if h == nil {
		return "none"
	}
	return holdCell(h, now) + ", at most --max-hold from now"
}

func floorStory(s hostStory) string {
	src := s.FloorSource
	switch pace.FloorSource(src) {
	case pace.FloorDefault:
		src = "default, --floor"
	case pace.FloorHost:
		src = "--floor-host"
	case pace.FloorCrawlDelay:
		src = "robots.txt Crawl-delay"
	case pace.FloorRequestRate:
		src = "robots.txt Request-rate"
	case pace.FloorRateLimit:
		src = "the host's RateLimit headers"
	}
	out := fmt.Sprintf("%s (%s)", report.HumanSeconds(s.FloorS), src)
	if pace.FloorSource(s.FloorSource) != pace.FloorDefault && s.DefaultFloorS > 0 {
		out += fmt.Sprintf("; --floor %s", report.HumanSeconds(s.DefaultFloorS))
	}
	return out
}

func robotsStoryText(r *robotsStory, now time.Time) string {
	if r == nil {
		return "no copy cached"
	}
	s := fmt.Sprintf("%d, %s (%s), fetched %s", r.Status, r.Access, report.HumanBytes(int64(r.Bytes)), ago(now.Sub(r.FetchedAt)))
	if !r.Expires.IsZero() {
		if d := r.Expires.Sub(now); d > 0 {
			s += ", fresh for " + in(d)
		} else {
			s += ", expired " + ago(-d)
		}
	}
	if r.Access != "parsed" {
		return s
	}
	if r.Group == "" {
		return s + "; no group for " + storyAgent
	}
	s += fmt.Sprintf("; group %q for %s", r.Group, storyAgent)
	var pace []string
	if r.CrawlDelayS > 0 {
		pace = append(pace, "Crawl-delay "+report.HumanSeconds(r.CrawlDelayS))
	}
	if r.RequestGapS > 0 {
		pace = append(pace, "Request-rate one per "+report.HumanSeconds(r.RequestGapS))
	}
	if len(pace) == 0 {
		return s + ", no Crawl-delay or Request-rate"
	}
	return s + ", " + strings.Join(pace, ", ")
}

func signalWhat(g storySignal) string {
	switch g.Kind {
	case SignalThrottled:
		return fmt.Sprintf("%d", g.Status)
	case SignalRaised:
		return fmt.Sprintf("%d, delay raised", g.Status)
	case SignalBreaker:
		return "breaker pause"
	case SignalRobotsRetry:
		return "robots.txt retry wait"
	}
	return "network error"
}

func signalDetail(g storySignal) string {
	if g.SpanS > 0 {
		return "for " + report.HumanDuration(g.SpanS)
	}
	s := "delay " + report.HumanSeconds(g.DelayS)
	if g.RetryAfterS > 0 {
		s += ", Retry-After " + report.HumanDuration(g.RetryAfterS)
	}
	return s
}

func or(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// writeUsageStory writes the host's declared usage preferences: its
// cached robots.txt's Content-Usage lines and the rules of the
// tdmrep.json kept with it, then what the last run read from its answers
// (headers, meta, tdmrep.json); nothing when it said nothing.
func writeUsageStory(w io.Writer, s hostStory) {
	if s.Robots != nil {
		for _, u := range s.Robots.Usage {
			fmt.Fprintf(w, "  usage\trobots.txt %s\n", u)
		}
		for _, u := range s.Robots.TDMRep {
			fmt.Fprintf(w, "  usage\ttdmrep.json %s\n", u)
		}
	}
	if s.LastRun != nil {
		for _, u := range s.LastRun.Usage {
			fmt.Fprintf(w, "  usage\t%s (last run)\n", u)
		}
	}
}

// revisitText says how many of a host's URLs are due, and the spread of
// their learned intervals.
func revisitText(r revisitStory) string {
	if r.URLs == 0 {
		return "no URL with this host in any job"
	}
	s := fmt.Sprintf("%d of %d %s due now", r.DueNow, r.URLs, plural(r.URLs, "URL", "URLs"))
	if r.Waiting > 0 {
		s += fmt.Sprintf(" (and %d waiting)", r.Waiting)
	}
	s += fmt.Sprintf(", %d more within 24h; ", r.DueSoon)
	if r.Learned == 0 {
		return s + "no interval learned yet (a URL learns one at its second fetch)"
	}
	return s + fmt.Sprintf("intervals %s / %s / %s (least / median / greatest of %d learned)",
		intervalText(r.MinEveryS), intervalText(r.MedianEveryS), intervalText(r.MaxEveryS), r.Learned)
}

// intervalText writes a learned interval: days past two days (7d,
// 2.5d), else hours and minutes (36h, 1h30m), seconds under a minute.
func intervalText(sec float64) string {
	d := time.Duration(sec * float64(time.Second))
	switch {
	case d >= 48*time.Hour:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", d.Hours()/24), ".0") + "d"
	case d >= time.Minute:
		return shortDuration(d.Round(time.Minute))
	}
	return report.HumanSeconds(sec)
}
