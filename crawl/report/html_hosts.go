package report

import (
	"cmp"
	"fmt"
	"html/template"
	"strings"
)

// The per-host parts of report.html (a row in each hosts' table, a
// section with the host's timeline) are written here, not by the page's
// template: on a crawl of a thousand hosts the template's reflection over
// those rows was most of the report's time. They are byte for byte what
// the template wrote, escaped as it escapes text and quoted attributes.

// escaper escapes as html/template does text and quoted attribute values.
var escaper = strings.NewReplacer("\x00", "\uFFFD", `"`, "&#34;", "&", "&amp;", "'", "&#39;", "+", "&#43;", "<", "&lt;", ">", "&gt;")

// hostCell is the host's first cell: its name, linked to its timeline,
// its trouble and its pace group.
func hostCell(b *strings.Builder, i int, h *hostView) {
	fmt.Fprintf(b, `<a href="#host-%d">%s</a>`, i, escaper.Replace(h.Host))
	if t := h.Trouble.String(); t != "" {
		fmt.Fprintf(b, ` <span class="tag">%s</span>`, escaper.Replace(t))
	}
	if h.Group != "" {
		fmt.Fprintf(b, ` <a class="grp" href="#group-%d">paced as %s</a>`, h.GroupAt, escaper.Replace(h.Group))
	}
}

// bad is the class of a cell that counts trouble.
func bad(n int) string {
	if n != 0 {
		return ` class="bad"`
	}
	return ""
}

// answersRow is the host's row in the table of what hosts answered.
func answersRow(i int, h *hostView) template.HTML {
	var b strings.Builder
	fmt.Fprintf(&b, `<tr data-host="%s"><td class="l">`, escaper.Replace(h.Host))
	hostCell(&b, i, h)
	fmt.Fprintf(&b, `</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td%s>%d</td><td%s>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%s</td><td class="l wrap">%s</td></tr>`,
		h.Requests, h.S2xx, h.S304, h.S3xx, h.S4xx, bad(h.S429), h.S429, bad(h.S5xx), h.S5xx, h.Errors, h.Excluded, h.Retries,
		escaper.Replace(HumanBytes(h.Bytes)), escaper.Replace(cmp.Or(h.Robots, "-")))
	return template.HTML(b.String())
}

// pacingRow is the host's row in the table of how polite paced hosts.
func pacingRow(i int, h *hostView) template.HTML {
	var b strings.Builder
	secs := func(s float64) string { return escaper.Replace(HumanSeconds(s)) }
	fmt.Fprintf(&b, `<tr data-host="%s"><td class="l">`, escaper.Replace(h.Host))
	hostCell(&b, i, h)
	b.WriteString(`</td>`)
	if h.Answered {
		fmt.Fprintf(&b, `<td>%.0f ms</td><td>%.0f ms</td><td>%.0f ms</td>`, h.P50MS, h.P95MS, h.MaxMS)
	} else {
		b.WriteString(`<td class="l never" colspan="3">never answered</td>`)
	}
	fmt.Fprintf(&b, `<td>%s`, secs(h.DelayStartS))
	if h.StoredStartS != 0 {
		fmt.Fprintf(&b, ` (%s)`, secs(h.StoredStartS))
	}
	fmt.Fprintf(&b, `</td><td>%s</td><td>%s</td><td class="l">%s (%s)</td><td>%s</td><td>%d</td><td class="l wrap">%s</td></tr>`,
		secs(h.DelayMaxS), secs(h.DelayEndS), secs(h.FloorS), escaper.Replace(h.FloorSource), escaper.Replace(HumanDuration(h.WaitS)),
		h.RetryAfters, escaper.Replace(cmp.Or(h.StoppedReason, h.Stopped.String())))
	return template.HTML(b.String())
}

// hostSection is the host's section of the timelines: its facts and its
// chart, on the run's time axis (dur).
func hostSection(i int, h *hostView, dur float64) template.HTML {
	var b strings.Builder
	b.Grow(1<<10 + timelineSize(h.HostStats))
	secs := func(s float64) string { return escaper.Replace(HumanSeconds(s)) }
	fmt.Fprintf(&b, "<section class=\"host\" id=\"host-%d\">\n<h3>%s", i, escaper.Replace(h.Host))
	if t := h.Trouble.String(); t != "" {
		fmt.Fprintf(&b, ` <span class="tag">%s</span>`, escaper.Replace(t))
	}
	fmt.Fprintf(&b, "</h3>\n<p class=\"facts\">%d %s, ", h.Requests, Plural(h.Requests, "request", "requests"))
	if h.Answered {
		fmt.Fprintf(&b, "%d throttled (429/503)", h.Throttled())
	} else {
		b.WriteString("never answered")
	}
	fmt.Fprintf(&b, "; delay %s at start, %s at most, %s at end; floor %s (%s); stopped: %s.</p>\n",
		secs(h.DelayStartS), secs(h.DelayMaxS), secs(h.DelayEndS), secs(h.FloorS), escaper.Replace(h.FloorSource),
		escaper.Replace(h.Stopped.String()))
	drawTimeline(&b, h.HostStats, dur)
	b.WriteString("\n</section>")
	return template.HTML(b.String())
}
