package crawl

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"strings"
)

// WriteHTML writes report.html: one self-contained page (no scripts, fonts
// or images from anywhere) with the totals, a table of hosts and, per
// host, a timeline of its delay and latency with 429/503 marks as inline SVG.
func (r *Report) WriteHTML(w io.Writer) error {
	return reportTmpl.Execute(w, r)
}

var reportTmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"timeline": timelineSVG,
	"f2":       func(f float64) string { return fmt.Sprintf("%.2f", f) },
	"f0":       func(f float64) string { return fmt.Sprintf("%.0f", f) },
	"bytes":    humanBytes,
}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>polite report: {{.Job}} run {{.RunID}}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse}td,th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:right}
td:first-child,th:first-child{text-align:left}
.host{margin:1.5em 0}.legend span{margin-right:1em}
</style></head><body>
<h1>polite: job {{.Job}}, run {{.RunID}}</h1>
<p>{{.Start.Format "2006-01-02 15:04:05 MST"}}, {{f2 .DurationS}} s, {{.StopReason}}{{if .BudgetsBound}} (budgets: {{range .BudgetsBound}}{{.}} {{end}}){{end}}, exit code {{.ExitCode}}.</p>
<p>{{.Totals.Done}} done, {{.Totals.NotModified}} not modified, {{.Totals.Excluded}} excluded, {{.Totals.Dead}} dead, {{.Totals.Waiting}} waiting;
{{.Totals.Requests}} requests, {{.Totals.Retries}} retries, {{.Totals.Throttled}} throttled (429/503), {{bytes .Totals.Bytes}}.</p>
<table><tr><th>host</th><th>requests</th><th>2xx</th><th>304</th><th>3xx</th><th>4xx</th><th>429</th><th>5xx</th><th>errors</th><th>robots excl.</th><th>retries</th><th>p50 ms</th><th>p95 ms</th><th>delay start</th><th>delay end</th><th>floor</th><th>waited s</th><th>stopped</th></tr>
{{range .Hosts}}<tr><td>{{.Host}}</td><td>{{.Requests}}</td><td>{{.S2xx}}</td><td>{{.S304}}</td><td>{{.S3xx}}</td><td>{{.S4xx}}</td><td>{{.S429}}</td><td>{{.S5xx}}</td><td>{{.Errors}}</td><td>{{.Excluded}}</td><td>{{.Retries}}</td><td>{{f0 .P50MS}}</td><td>{{f0 .P95MS}}</td><td>{{f2 .DelayStartS}} s</td><td>{{f2 .DelayEndS}} s</td><td>{{f2 .FloorS}} s ({{.FloorSource}})</td><td>{{f2 .WaitS}}</td><td>{{.Stopped}}</td></tr>
{{end}}</table>
<p class="legend"><span style="color:#1f6feb">&#9644; delay (s, left axis)</span><span style="color:#999">&#9679; latency (ms, right axis)</span><span style="color:#d1242f">&#9650; 429/503</span></p>
{{range .Hosts}}<div class="host"><h2>{{.Host}}</h2><p>robots.txt: {{.Robots}}</p>{{timeline .}}</div>
{{end}}
{{if .Dead}}<h2>Dead URLs</h2><table><tr><th>url</th><th>reason</th><th>attempts</th></tr>{{range .Dead}}<tr><td>{{.URL}}</td><td>{{.Reason}}</td><td>{{.Attempts}}</td></tr>{{end}}</table>{{end}}
{{if .Rejected}}<h2>Rejected seed lines</h2><ul>{{range .Rejected}}<li>{{.File}}:{{.Line}}: {{.Reason}}</li>{{end}}</ul>{{end}}
</body></html>
`))

// timelineSVG draws a host's delay (a step line) and latency (dots) over
// the run, with a red mark for every 429 or 503.
func timelineSVG(h *HostStats) template.HTML {
	const w, ht, pad = 720.0, 160.0, 36.0
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="timeline" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" role="img" aria-label="timeline of %s">`, w, ht, w, ht, template.HTMLEscapeString(h.Host))
	fmt.Fprintf(&b, `<rect x="%.0f" y="6" width="%.0f" height="%.0f" fill="#fafafa" stroke="#ccc"/>`, pad, w-2*pad, ht-pad-6)
	if len(h.Timeline) == 0 {
		b.WriteString(`<text x="50%" y="50%" text-anchor="middle" fill="#888">no requests</text></svg>`)
		return template.HTML(b.String())
	}
	tMax, dMax, lMax := 0.0, 0.0, 0.0
	for _, p := range h.Timeline {
		tMax, dMax, lMax = math.Max(tMax, p.AtS), math.Max(dMax, p.DelayS), math.Max(lMax, p.LatencyMS)
	}
	tMax, dMax, lMax = math.Max(tMax, 1e-3), math.Max(dMax, 1e-3), math.Max(lMax, 1e-3)
	x := func(t float64) float64 { return pad + t/tMax*(w-2*pad) }
	yd := func(d float64) float64 { return ht - pad - d/dMax*(ht-pad-12) }
	yl := func(l float64) float64 { return ht - pad - l/lMax*(ht-pad-12) }
	var path strings.Builder
	for i, p := range h.Timeline {
		if i == 0 {
			fmt.Fprintf(&path, "M%.1f %.1f", x(p.AtS), yd(p.DelayS))
		} else {
			fmt.Fprintf(&path, " H%.1f V%.1f", x(p.AtS), yd(p.DelayS))
		}
	}
	for _, p := range h.Timeline {
		fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="2" fill="#999"/>`, x(p.AtS), yl(p.LatencyMS))
	}
	fmt.Fprintf(&b, `<path d="%s" fill="none" stroke="#1f6feb" stroke-width="1.5"/>`, path.String())
	for _, p := range h.Timeline {
		if p.Status == 429 || p.Status == 503 {
			cx := x(p.AtS)
			fmt.Fprintf(&b, `<path d="M%.1f %.1f l4 8 h-8 z" fill="#d1242f"><title>%d at %.1fs</title></path>`, cx, ht-pad+2, p.Status, p.AtS)
		}
	}
	fmt.Fprintf(&b, `<text x="2" y="14" font-size="10" fill="#1f6feb">%.2fs</text>`, dMax)
	fmt.Fprintf(&b, `<text x="%.0f" y="14" font-size="10" fill="#999" text-anchor="end">%.0fms</text>`, w-2, lMax)
	fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" font-size="10" fill="#666">0</text>`, pad, ht-8)
	fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" font-size="10" fill="#666" text-anchor="end">%.1fs</text>`, w-pad, ht-8, tMax)
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}
