package crawl

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"strings"
)

// WriteHTML writes report.html: one self-contained page (no scripts, fonts,
// styles or images from anywhere) with the run, its totals, a table of
// hosts and, per host, a timeline drawn as inline SVG: the delay between
// requests, each response's time to first byte, the 429/503 answers and
// the Retry-After waits.
func (r *Report) WriteHTML(w io.Writer) error {
	return reportTmpl.Execute(w, r)
}

var reportTmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"timeline": timelineSVG,
	"secs":     HumanSeconds,
	"dur":      HumanDuration,
	"bytes":    HumanBytes,
	"ms":       func(f float64) string { return fmt.Sprintf("%.0f", f) },
	"exitText": ExitMeaning,
	"join":     strings.Join,
	"plural":   plural,
}).Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>polite report: job {{.Job}}, run {{.RunID}}</title>
<style>
:root{--ink:#1f2328;--muted:#59636e;--line:#d1d9e0;--bg:#f6f8fa;--delay:#0969da;--lat:#6e7781;--bad:#cf222e;--warn:#bf8700;--wait:#fff1c2}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;color:var(--ink);margin:24px auto;max-width:1200px;padding:0 16px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}h3{font-size:15px;margin:0 0 2px}
.meta{color:var(--muted);margin:0 0 16px}
.cards{display:flex;flex-wrap:wrap;gap:8px;margin:0;padding:0;list-style:none}
.cards li{background:var(--bg);border:1px solid var(--line);border-radius:6px;padding:6px 12px;min-width:88px}
.cards b{display:block;font-size:20px;font-variant-numeric:tabular-nums}.cards span{color:var(--muted);font-size:12px}
.cards li.bad b{color:var(--bad)}
.scroll{overflow-x:auto}
table{border-collapse:collapse;font-size:13px}
th,td{padding:3px 8px;border-bottom:1px solid var(--line);vertical-align:top}
th{background:var(--bg);text-align:right;font-weight:600;vertical-align:bottom}
td{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
th.l,td.l{text-align:left}td.wrap{white-space:normal;min-width:12em}
td.bad{color:var(--bad);font-weight:600}
.host{margin:18px 0 26px}.facts{color:var(--muted);margin:0 0 6px}
svg.timeline{display:block;max-width:100%;height:auto;border:1px solid var(--line);border-radius:6px;background:#fff}
svg text{font:11px system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;fill:var(--muted)}
svg .title{font-weight:600;fill:var(--ink)}
footer{color:var(--muted);font-size:12px;margin-top:32px}
</style>
</head>
<body>
<header>
<h1>polite report: job {{.Job}}, run {{.RunID}}</h1>
<p class="meta">{{.Start.Format "2006-01-02 15:04:05 MST"}} to {{.End.Format "15:04:05"}} ({{dur .DurationS}}); stopped: {{.StopReason}}{{if .BudgetsBound}} (budgets reached: {{join .BudgetsBound ", "}}){{end}}; exit code {{.ExitCode}}, {{exitText .ExitCode}}.</p>
</header>
<ul class="cards">
<li><b>{{.Totals.Done}}</b><span>done</span></li>
<li><b>{{.Totals.NotModified}}</b><span>not modified</span></li>
<li><b>{{.Totals.Excluded}}</b><span>excluded</span></li>
<li{{if .Totals.Dead}} class="bad"{{end}}><b>{{.Totals.Dead}}</b><span>dead</span></li>
<li><b>{{.Totals.Waiting}}</b><span>waiting for next run</span></li>
<li><b>{{.Totals.Requests}}</b><span>requests</span></li>
<li><b>{{.Totals.Retries}}</b><span>retries</span></li>
<li{{if .Totals.Throttled}} class="bad"{{end}}><b>{{.Totals.Throttled}}</b><span>throttled (429/503)</span></li>
<li><b>{{bytes .Totals.Bytes}}</b><span>downloaded</span></li>
</ul>

<h2>Hosts: what they answered</h2>
<div class="scroll"><table>
<thead><tr><th class="l">host</th><th>requests</th><th>2xx</th><th>304</th><th>3xx</th><th>4xx</th><th>429</th><th>5xx</th><th title="network errors and timeouts">errors</th><th title="URLs robots.txt disallowed, not requested">excluded by robots.txt</th><th>retries</th><th>bytes</th><th class="l">robots.txt</th></tr></thead>
<tbody>
{{range $i, $h := .Hosts}}<tr><td class="l"><a href="#host-{{$i}}">{{.Host}}</a></td><td>{{.Requests}}</td><td>{{.S2xx}}</td><td>{{.S304}}</td><td>{{.S3xx}}</td><td>{{.S4xx}}</td><td{{if .S429}} class="bad"{{end}}>{{.S429}}</td><td{{if .S5xx}} class="bad"{{end}}>{{.S5xx}}</td><td>{{.Errors}}</td><td>{{.Excluded}}</td><td>{{.Retries}}</td><td>{{bytes .Bytes}}</td><td class="l wrap">{{or .Robots "-"}}</td></tr>
{{else}}<tr><td class="l" colspan="13">no host was contacted</td></tr>
{{end}}</tbody>
</table></div>

{{if .Hosts}}<h2>Hosts: how polite paced them</h2>
<div class="scroll"><table>
<thead><tr><th class="l">host</th><th title="time to first byte, median">TTFB p50</th><th>p95</th><th>max</th><th title="the aged delay the run started from; in brackets the stored delay before ageing">delay at start</th><th>highest</th><th>at end</th><th class="l">floor (source)</th><th title="time the host's URLs waited on pacing">waited</th><th>Retry-After waits</th><th class="l">stopped</th></tr></thead>
<tbody>
{{range $i, $h := .Hosts}}<tr><td class="l"><a href="#host-{{$i}}">{{.Host}}</a></td><td>{{ms .P50MS}} ms</td><td>{{ms .P95MS}} ms</td><td>{{ms .MaxMS}} ms</td><td>{{secs .DelayStartS}}{{if .StoredStartS}} ({{secs .StoredStartS}}){{end}}</td><td>{{secs .DelayMaxS}}</td><td>{{secs .DelayEndS}}</td><td class="l">{{secs .FloorS}} ({{.FloorSource}})</td><td>{{dur .WaitS}}</td><td>{{.RetryAfters}}</td><td class="l wrap">{{.Stopped}}</td></tr>
{{end}}</tbody>
</table></div>{{end}}

{{if .Hosts}}<h2>Timelines</h2>
<p class="meta">One chart per host, on the same time axis (seconds since the run started). Top: the delay polite kept between two requests to the host, its floor, the 429/503 answers and the Retry-After waits they asked for. Bottom: each response's time to first byte.</p>
{{range $i, $h := .Hosts}}<section class="host" id="host-{{$i}}">
<h3>{{.Host}}</h3>
<p class="facts">{{.Requests}} {{plural .Requests "request" "requests"}}, {{.Throttled}} throttled (429/503); delay {{secs .DelayStartS}} at start, {{secs .DelayMaxS}} at most, {{secs .DelayEndS}} at end; floor {{secs .FloorS}} ({{.FloorSource}}); stopped: {{.Stopped}}.</p>
{{timeline . $.DurationS}}
</section>
{{end}}{{end}}
{{if .Dead}}<h2>Dead URLs</h2>
<div class="scroll"><table><thead><tr><th class="l">URL</th><th class="l">reason</th><th>attempts</th></tr></thead><tbody>
{{range .Dead}}<tr><td class="l wrap">{{.URL}}</td><td class="l">{{.Reason}}</td><td>{{.Attempts}}</td></tr>
{{end}}</tbody></table></div>{{end}}
{{if .Rejected}}<h2>Rejected seed lines</h2>
<div class="scroll"><table><thead><tr><th class="l">line</th><th class="l">text</th><th class="l">reason</th></tr></thead><tbody>
{{range .Rejected}}<tr><td class="l">{{.File}}:{{.Line}}</td><td class="l wrap">{{.Text}}</td><td class="l">{{.Reason}}</td></tr>
{{end}}</tbody></table></div>{{end}}
{{if .Frontier}}<h2>The job's URLs at the end of the run</h2>
<table><thead><tr><th class="l">state</th><th>URLs</th></tr></thead><tbody>
{{range $state, $n := .Frontier}}<tr><td class="l">{{$state}}</td><td>{{$n}}</td></tr>
{{end}}</tbody></table>{{end}}
<footer>Written by polite{{if .OutDir}}; bodies, manifest.jsonl and report.json are in {{.OutDir}}{{end}}.</footer>
</body>
</html>
`))

// Geometry of a timeline, in SVG user units.
const (
	svgW      = 1000.0
	svgH      = 330.0
	plotL     = 64.0  // left edge of the plots
	plotR     = 976.0 // right edge
	delayTop  = 44.0
	delayBot  = 184.0
	latTop    = 212.0
	latBot    = 282.0
	maxPoints = 4000 // latency dots drawn at most; the rest share pixels
)

// timelineSVG draws a host's timeline: the delay as a step line over the
// floor with Retry-After waits shaded and 429/503 marked, and below it
// each response's time to first byte, coloured by status. dur is the run's
// length, so that every host shares one time axis.
func timelineSVG(h *HostStats, dur float64) template.HTML {
	var b strings.Builder
	esc := template.HTMLEscapeString
	fmt.Fprintf(&b, `<svg class="timeline" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" role="img" aria-label="timeline of %s">`,
		svgW, svgH, svgW, svgH, esc(h.Host))
	fmt.Fprintf(&b, `<title>%s: delay and time to first byte over the run</title>`, esc(h.Host))
	legend(&b)
	sc := newScale(h, dur)
	sc.axes(&b)
	if len(h.Timeline) == 0 {
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" text-anchor="middle">no responses in this run</text></svg>`, (plotL+plotR)/2, (delayTop+delayBot)/2)
		return template.HTML(b.String())
	}
	sc.delays(&b, h, dur)
	sc.answers(&b, h)
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// scale maps a host's timeline onto the plots: time across, the delay on
// the upper plot and the time to first byte on the lower one.
type scale struct {
	tTicks, dTicks, lTicks []float64
	tTop, dTop, lTop       float64
	tLabel                 func(float64) string
}

func newScale(h *HostStats, dur float64) *scale {
	tMax, dMax, lMax := dur, max(h.DelayStartS, h.FloorS), 0.0
	for _, p := range h.Timeline {
		tMax = max(tMax, p.AtS)
		dMax, lMax = max(dMax, p.DelayS), max(lMax, p.LatencyMS)
	}
	sc := &scale{}
	sc.tTicks, sc.tTop, sc.tLabel = timeAxis(tMax)
	sc.dTicks, sc.dTop = niceTicks(max(dMax*1.05, 0.001), 4)
	sc.lTicks, sc.lTop = niceTicks(max(lMax*1.05, 1), 3)
	return sc
}

func (sc *scale) x(t float64) float64  { return plotL + t/sc.tTop*(plotR-plotL) }
func (sc *scale) yd(d float64) float64 { return delayBot - d/sc.dTop*(delayBot-delayTop) }
func (sc *scale) yl(l float64) float64 { return latBot - l/sc.lTop*(latBot-latTop) }

// axes draws the frames, grid lines and axes.
func (sc *scale) axes(b *strings.Builder) {
	x, yd, yl := sc.x, sc.yd, sc.yl
	dTicks, dTop, lTicks, lTop, tTicks, tLabel := sc.dTicks, sc.dTop, sc.lTicks, sc.lTop, sc.tTicks, sc.tLabel
	for _, p := range [][2]float64{{delayTop, delayBot}, {latTop, latBot}} {
		fmt.Fprintf(b, `<rect x="%.0f" y="%.0f" width="%.0f" height="%.0f" fill="#fbfcfd" stroke="#d1d9e0"/>`, plotL, p[0], plotR-plotL, p[1]-p[0])
	}
	for _, v := range dTicks {
		fmt.Fprintf(b, `<line x1="%.0f" x2="%.0f" y1="%.1f" y2="%.1f" stroke="#eaeef2"/><text x="%.0f" y="%.1f" text-anchor="end">%s</text>`,
			plotL, plotR, yd(v), yd(v), plotL-6, yd(v)+4, tickLabel(v, dTop))
	}
	for _, v := range lTicks {
		fmt.Fprintf(b, `<line x1="%.0f" x2="%.0f" y1="%.1f" y2="%.1f" stroke="#eaeef2"/><text x="%.0f" y="%.1f" text-anchor="end">%s</text>`,
			plotL, plotR, yl(v), yl(v), plotL-6, yl(v)+4, tickLabel(v, lTop))
	}
	for _, v := range tTicks {
		fmt.Fprintf(b, `<line x1="%.1f" x2="%.1f" y1="%.0f" y2="%.0f" stroke="#eaeef2"/><line x1="%.1f" x2="%.1f" y1="%.0f" y2="%.0f" stroke="#eaeef2"/><text x="%.1f" y="%.0f" text-anchor="middle">%s</text>`,
			x(v), x(v), delayTop, delayBot, x(v), x(v), latTop, latBot, x(v), latBot+15, tLabel(v))
	}
	fmt.Fprintf(b, `<text class="title" x="14" y="%.0f" transform="rotate(-90 14 %.0f)" text-anchor="middle">delay (s)</text>`, (delayTop+delayBot)/2, (delayTop+delayBot)/2)
	fmt.Fprintf(b, `<text class="title" x="14" y="%.0f" transform="rotate(-90 14 %.0f)" text-anchor="middle">TTFB (ms)</text>`, (latTop+latBot)/2, (latTop+latBot)/2)
	fmt.Fprintf(b, `<text class="title" x="%.0f" y="%.0f" text-anchor="middle">time since the run started</text>`, (plotL+plotR)/2, svgH-10)

}

// delays draws the Retry-After waits, the floor and the delay line.
func (sc *scale) delays(b *strings.Builder, h *HostStats, dur float64) {
	x, yd, tTop := sc.x, sc.yd, sc.tTop
	esc := template.HTMLEscapeString
	// Retry-After waits, shaded behind the delay line.
	for _, p := range h.Timeline {
		if p.RetryAfterS <= 0 {
			continue
		}
		x0, x1 := x(p.AtS), math.Min(x(p.AtS+p.RetryAfterS), plotR)
		fmt.Fprintf(b, `<rect x="%.1f" y="%.0f" width="%.1f" height="%.0f" fill="#fff1c2" stroke="#d4a72c" stroke-width="0.5"><title>Retry-After %s at %s</title></rect>`,
			x0, delayTop, math.Max(x1-x0, 1), delayBot-delayTop, HumanSeconds(p.RetryAfterS), HumanSeconds(p.AtS))
	}
	// The floor.
	if h.FloorS > 0 {
		fmt.Fprintf(b, `<line x1="%.0f" x2="%.0f" y1="%.1f" y2="%.1f" stroke="#8c959f" stroke-dasharray="5 4"/><text x="%.0f" y="%.1f" text-anchor="end">floor %s (%s)</text>`,
			plotL, plotR, yd(h.FloorS), yd(h.FloorS), plotR-4, yd(h.FloorS)-4, HumanSeconds(h.FloorS), esc(h.FloorSource))
	}
	// The delay, a step line from the start of the run.
	var path strings.Builder
	fmt.Fprintf(&path, "M%.1f %.1f", x(0), yd(h.DelayStartS))
	lastY := yd(h.DelayStartS)
	for _, p := range h.Timeline {
		if y := yd(p.DelayS); math.Abs(y-lastY) >= 0.1 {
			fmt.Fprintf(&path, "H%.1fV%.1f", x(p.AtS), y)
			lastY = y
		}
	}
	fmt.Fprintf(&path, "H%.1f", x(math.Min(math.Max(dur, h.Timeline[len(h.Timeline)-1].AtS), tTop)))
	fmt.Fprintf(b, `<path d="%s" fill="none" stroke="#0969da" stroke-width="2"/>`, path.String())

}

// answers draws each answer's time to first byte, and marks 429 and 503.
func (sc *scale) answers(b *strings.Builder, h *HostStats) {
	x, yl := sc.x, sc.yl
	// Time to first byte, one dot per response (sharing pixels when many).
	seen := map[[3]int]bool{}
	for _, p := range h.Timeline {
		cx, cy := x(p.AtS), yl(p.LatencyMS)
		class := statusClass(p.Status)
		if len(h.Timeline) > maxPoints {
			k := [3]int{int(cx), int(cy), len(class)}
			if seen[k] {
				continue
			}
			seen[k] = true
		}
		if p.Status == 0 {
			fmt.Fprintf(b, `<path d="M%.1f %.1fl6 6m0 -6l-6 6" stroke="#1f2328" stroke-width="1.5"><title>error at %s</title></path>`, cx-3, cy-3, HumanSeconds(p.AtS))
			continue
		}
		fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="2.5" fill="%s"><title>%d, %.0f ms at %s</title></circle>`, cx, cy, class, p.Status, p.LatencyMS, HumanSeconds(p.AtS))
	}
	// 429 and 503: a red mark on top of the delay plot and a thin line down.
	for _, p := range h.Timeline {
		if p.Status != 429 && p.Status != 503 {
			continue
		}
		cx := x(p.AtS)
		fmt.Fprintf(b, `<line x1="%.1f" x2="%.1f" y1="%.0f" y2="%.0f" stroke="#cf222e" stroke-opacity="0.35"/><path d="M%.1f %.0fl-5 -9h10z" fill="#cf222e"><title>%d at %s</title></path>`,
			cx, cx, delayTop, latBot, cx, delayTop-1, p.Status, HumanSeconds(p.AtS))
	}
}

// legend draws the key along the top of a timeline.
func legend(b *strings.Builder) {
	x := plotL
	item := func(mark, label string, w float64) {
		fmt.Fprintf(b, `<g transform="translate(%.0f 18)">%s<text x="22" y="4">%s</text></g>`, x, mark, label)
		x += w
	}
	item(`<line x1="0" x2="16" y1="0" y2="0" stroke="#0969da" stroke-width="2"/>`, "delay between requests", 180)
	item(`<line x1="0" x2="16" y1="0" y2="0" stroke="#8c959f" stroke-dasharray="5 4"/>`, "floor", 80)
	item(`<rect x="0" y="-6" width="16" height="12" fill="#fff1c2" stroke="#d4a72c" stroke-width="0.5"/>`, "Retry-After wait", 140)
	item(`<path d="M8 5l-5 -9h10z" fill="#cf222e"/>`, "429 / 503", 100)
	item(`<circle cx="8" cy="0" r="3" fill="#6e7781"/>`, "response 2xx/3xx", 140)
	item(`<circle cx="8" cy="0" r="3" fill="#bf8700"/>`, "4xx", 60)
	item(`<circle cx="8" cy="0" r="3" fill="#cf222e"/>`, "429 / 5xx", 90)
	item(`<path d="M5 -3l6 6m0 -6l-6 6" stroke="#1f2328" stroke-width="1.5"/>`, "network error", 120)
}

// statusClass is the colour of a response's dot.
func statusClass(status int) string {
	switch {
	case status == 429 || status >= 500:
		return "#cf222e"
	case status >= 400:
		return "#bf8700"
	}
	return "#6e7781"
}

// niceTicks returns tick values from 0 to a round top at or above hi, about
// n of them, spaced 1, 2 or 5 times a power of ten.
func niceTicks(hi float64, n int) ([]float64, float64) {
	raw := hi / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	top := math.Ceil(hi/step-1e-9) * step
	var ts []float64
	for i := 0; float64(i)*step <= top+step/2; i++ {
		ts = append(ts, float64(i)*step)
	}
	return ts, top
}

// tickLabel prints a tick value with as few decimals as its scale needs.
func tickLabel(v, top float64) string {
	switch {
	case top >= 10:
		return fmt.Sprintf("%.0f", v)
	case top >= 1:
		return fmt.Sprintf("%.1f", v)
	case top >= 0.1:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.3f", v)
}

// timeAxis returns the ticks and top of a time axis reaching at least
// tMax seconds, in seconds, with a label for each tick in the unit that
// suits the run: seconds, minutes or hours.
func timeAxis(tMax float64) ([]float64, float64, func(float64) string) {
	unit, suffix := 1.0, "s"
	switch {
	case tMax > 3*3600:
		unit, suffix = 3600, "h"
	case tMax > 300:
		unit, suffix = 60, "min"
	}
	ticks, top := niceTicks(max(tMax/unit, 0.001), 10)
	for i := range ticks {
		ticks[i] *= unit
	}
	return ticks, top * unit, func(v float64) string { return tickLabel(v/unit, top) + " " + suffix }
}
