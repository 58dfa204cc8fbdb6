package report

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Plural is one when n is 1 and many otherwise, for the report's sentences.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// HumanSeconds renders a delay in seconds the way status and the reports
// show it: "0.84s", "12.0s", "2m05s", "1h10m".
func HumanSeconds(s float64) string { return string(appendSeconds(nil, s)) }

// appendSeconds appends HumanSeconds(s) to buf, for a report's many marks.
func appendSeconds(buf []byte, s float64) []byte {
	switch {
	case s < 10:
		buf = strconv.AppendFloat(buf, s, 'f', 2, 64)
	case s < 60:
		buf = strconv.AppendFloat(buf, s, 'f', 1, 64)
	default:
		return append(buf, HumanDuration(s)...)
	}
	return append(buf, 's')
}

// HumanDuration renders a span of seconds for a person: "850ms", "4.2s",
// "4m12s", "1h02m", "3d04h".
func HumanDuration(s float64) string {
	d := time.Duration(s * float64(time.Second))
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute-50*time.Millisecond:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		d = d.Round(time.Second)
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	case d < 48*time.Hour:
		d = d.Round(time.Minute)
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	d = d.Round(time.Hour)
	return fmt.Sprintf("%dd%02dh", int(d.Hours())/24, int(d.Hours())%24)
}

// HumanBytes renders a byte count: "512 B", "3.4 KiB", "48.1 MiB".
func HumanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// backoffWhy says what made a host back off, for the text summary.
func backoffWhy(h *HostStats) string {
	var parts []string
	if h.S429 > 0 {
		parts = append(parts, fmt.Sprintf("%d x 429", h.S429))
	}
	if h.S503 > 0 {
		parts = append(parts, fmt.Sprintf("%d x 503", h.S503))
	}
	if h.RetryAfters > 0 {
		parts = append(parts, fmt.Sprintf("%d Retry-After %s", h.RetryAfters, Plural(h.RetryAfters, "wait", "waits")))
	}
	if len(parts) == 0 {
		parts = append(parts, "latency")
	}
	return "  (" + strings.Join(parts, ", ") + ")"
}
