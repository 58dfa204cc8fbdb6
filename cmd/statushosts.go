package cmd

import (
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/polite-crawler/polite/crawl/report"
)

// writeHosts writes the host table of polite status.
func writeHosts(tw *tabwriter.Writer, rows []hostStatus, filter string, now time.Time) {
	if len(rows) == 0 {
		fmt.Fprintln(tw, "no hosts known yet")
		return
	}
	known := "known"
	if filter != "" {
		known = fmt.Sprintf("matching %q", filter)
	}
	fmt.Fprintf(tw, "%d %s %s, slowest first; NEXT DELAY is where the next run starts (%s)\n\n",
		len(rows), plural(len(rows), "host", "hosts"), known, halfLives(rows))
	fmt.Fprintln(tw, "HOST\tNEXT DELAY\tLEARNED\tFLOOR\tLAST SIGNAL\tHOLD\tTTFB BASELINE\tROBOTS.TXT")
	for _, r := range rows {
		host := r.Host
		if len(r.Members) > 0 {
			host = fmt.Sprintf("%s (%d %s)", r.Host, len(r.Members), plural(len(r.Members), "host", "hosts"))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s (%s)\t%s\t%s\t%s\t%s\n",
			host, nextDelay(r, now), learnedCell(r.Learned), report.HumanSeconds(r.FloorS), r.FloorSource,
			signalCell(r, now), holdCell(r.Hold, now), baselineCell(r.BaselineMS), robotsCell(r))
	}
}

// halfLives names the half-lives the rows age with: "half-life 10m" when
// they share one, else each.
func halfLives(rows []hostStatus) string {
	var hl []string
	for _, r := range rows {
		s := shortDuration(time.Duration(r.HalfLifeS * float64(time.Second)))
		if !slices.Contains(hl, s) {
			hl = append(hl, s)
		}
	}
	slices.Sort(hl)
	if len(hl) == 1 {
		return "half-life " + hl[0]
	}
	return "half-lives " + strings.Join(hl, ", ")
}

// nextDelay is "1.50s (from 12.0s, set 30m ago)" for an aging backoff, and
// names the basis otherwise: "1.02s learned (from 12.0s, set 3h ago,
// decayed)", "3.00s cold start (...)", "0.50s floor (...)".
func nextDelay(r hostStatus, now time.Time) string {
	basis := ""
	switch r.NextFrom {
	case "learned":
		basis = " learned"
	case "start":
		basis = " cold start"
	case "floor":
		basis = " floor"
	}
	if r.SetAt.IsZero() {
		return report.HumanSeconds(r.NextDelayS) + basis
	}
	decayed := ""
	if r.Decayed {
		decayed = ", decayed"
	}
	return fmt.Sprintf("%s%s (from %s, set %s%s)", report.HumanSeconds(r.NextDelayS), basis,
		report.HumanSeconds(r.StoredS), ago(now.Sub(r.SetAt)), decayed)
}

// learnedCell is "1.02s, 3h ago", "1.02s > 0.98s refused, 3h ago", or
// "aged away (1.02s, 30d ago)".
func learnedCell(l *learnedStatus) string {
	if l == nil {
		return "-"
	}
	age := ago(time.Duration(l.AgeS * float64(time.Second)))
	var what string
	switch {
	case l.SafeGapS > 0 && l.RefusedGapS > 0:
		what = fmt.Sprintf("%s > %s refused", report.HumanSeconds(l.SafeGapS), report.HumanSeconds(l.RefusedGapS))
	case l.SafeGapS > 0:
		what = report.HumanSeconds(l.SafeGapS)
	default:
		what = report.HumanSeconds(l.RefusedGapS) + " refused"
	}
	if l.AgedAway {
		return fmt.Sprintf("aged away (%s, %s)", what, age)
	}
	return what + ", " + age
}

func signalCell(r hostStatus, now time.Time) string {
	if r.LastSignal == "" {
		return "-"
	}
	if r.SignalAt.IsZero() {
		return r.LastSignal
	}
	return r.LastSignal + ", " + ago(now.Sub(r.SignalAt))
}

// holdCell is "retry-after until 2026-03-14 13:00 UTC (in 1h)".
func holdCell(h *holdStatus, now time.Time) string {
	if h == nil {
		return "-"
	}
	return fmt.Sprintf("%s until %s (in %s)", h.Reason, h.Until.UTC().Format("2006-01-02 15:04 MST"), in(h.Until.Sub(now)))
}

func baselineCell(ms float64) string {
	switch {
	case ms >= 10:
		return fmt.Sprintf("%.0fms", ms)
	case ms > 0:
		return fmt.Sprintf("%.1fms", ms)
	}
	return "-"
}

func robotsCell(r hostStatus) string {
	if r.RobotsAt.IsZero() {
		return "-"
	}
	return "fetched " + ago(time.Duration(r.RobotsAgeS*float64(time.Second)))
}

// in renders a time to come the way ago renders a past one: "42s", "5m",
// "2h", "3d".
func in(d time.Duration) string {
	return strings.TrimSuffix(ago(d), " ago")
}
