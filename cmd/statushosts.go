package cmd

import (
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/polite-crawler/polite/crawl/report"
)

// hostColumns are the host table's columns; dropOrder says which a
// narrow terminal loses first (HOST and NEXT DELAY always stay).
var (
	hostColumns = []string{"HOST", "NEXT DELAY", "LEARNED", "FLOOR", "LAST SIGNAL", "HOLD", "TTFB BASELINE", "ROBOTS.TXT"}
	dropOrder   = []int{6, 7, 2, 3, 4, 5}
)

// writeHosts writes the host table of polite status, in at most width
// columns when width is not 0.
func writeHosts(tw *tabwriter.Writer, rows []hostStatus, filter string, width int, now time.Time) {
	if len(rows) == 0 {
		fmt.Fprintln(tw, "no hosts known yet")
		return
	}
	known := "known"
	if filter != "" {
		known = fmt.Sprintf("matching %q", filter)
	}
	fmt.Fprint(tw, wrap(fmt.Sprintf("%d %s %s, slowest first; NEXT DELAY is where the next run starts (%s)",
		len(rows), plural(len(rows), "host", "hosts"), known, halfLives(rows)), width))
	cells := [][]string{hostColumns}
	for _, r := range rows {
		cells = append(cells, []string{r.Host, nextDelay(r, now), learnedCell(r.Learned),
			fmt.Sprintf("%s (%s)", report.HumanSeconds(r.FloorS), r.FloorSource),
			signalCell(r, now), holdCell(r.Hold, now), baselineCell(r.BaselineMS), robotsCell(r)})
	}
	keep := fitColumns(cells, width)
	var hidden []string
	for c, name := range hostColumns {
		if !keep[c] {
			hidden = append(hidden, name)
		}
	}
	if len(hidden) > 0 {
		fmt.Fprint(tw, wrap(fmt.Sprintf("not shown in %d columns: %s (--wide shows them)", width, strings.Join(hidden, ", ")), width))
	}
	fmt.Fprintln(tw)
	for _, row := range cells {
		var shown []string
		for c, cell := range row {
			if keep[c] {
				shown = append(shown, cell)
			}
		}
		fmt.Fprintln(tw, strings.Join(shown, "\t"))
	}
}

// wrap breaks text into lines of at most width columns at spaces (one
// line when width is 0), each ending in a newline.
func wrap(text string, width int) string {
	var b strings.Builder
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && width > 0 && len(line)+1+len(w) > width {
			b.WriteString(line + "\n")
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return b.String() + line + "\n"
}

// fitColumns says which of the table's columns to show so that it fits
// in width terminal columns, as tabwriter pads them (2 spaces between),
// leaving them out in dropOrder; all of them when width is 0.
func fitColumns(cells [][]string, width int) []bool {
	keep := make([]bool, len(cells[0]))
	widths := make([]int, len(keep))
	total := -2
	for c := range keep {
		keep[c] = true
		for _, row := range cells {
			widths[c] = max(widths[c], utf8.RuneCountInString(row[c]))
		}
		total += widths[c] + 2
	}
	for _, c := range dropOrder {
		if width <= 0 || total <= width {
			break
		}
		keep[c] = false
		total -= widths[c] + 2
	}
	return keep
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
