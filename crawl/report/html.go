package report

import (
	"html/template"
	"io"
)

// WriteHTML writes report.html: one self-contained page (no scripts, fonts,
// styles or images from anywhere) with the run, its totals, a table of
// hosts and, per host, a timeline drawn as inline SVG: the delay between
// requests, each response's time to first byte, the 429/503 answers and
// the Retry-After waits.
//
// The page lists hosts in order of trouble (see Trouble), explains every
// column under its table, and marks a host that never answered as such.
func (r *Report) WriteHTML(w io.Writer) error {
	v := htmlView{Report: r, Hosts: r.hostsByTrouble(), Groups: r.PaceGroups()}
	at := map[string]int{}
	for i, g := range v.Groups {
		at[g.Key] = i
	}
	for _, h := range v.Hosts {
		if i, ok := at[h.Group]; ok {
			h.GroupAt = i
		}
	}
	return reportTmpl.Execute(w, v)
}

// htmlView is what the page template reads: the report, its hosts in the
// page's order.
type htmlView struct {
	*Report
	Hosts  []*hostView
	Groups []PaceGroup // the paces hosts shared (--pace-by domain or ip)
}

var reportTmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"timeline":    timelineSVG,
	"secs":        HumanSeconds,
	"dur":         HumanDuration,
	"bytes":       HumanBytes,
	"plural":      Plural,
	"answersRow":  answersRow,
	"pacingRow":   pacingRow,
	"hostSection": hostSection,
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
td.bad{color:var(--bad);font-weight:600}td.never{color:var(--muted);font-style:italic}
.grp{font-size:12px;color:var(--muted)}
.tag{display:inline-block;font-size:11px;font-weight:600;border-radius:8px;padding:0 6px;margin-left:4px;background:#ffebe9;color:var(--bad)}
dl.cols{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;font-size:12px;color:var(--muted);margin:8px 0 0}
dl.cols dt{font-weight:600;color:var(--ink)}dl.cols dd{margin:0}
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
<p class="meta">{{.Start.Format "2006-01-02 15:04:05 MST"}} to {{.End.Format "15:04:05"}} ({{dur .DurationS}}); stopped: {{.StopReason}}{{if .BudgetsBound}} (budgets reached: {{.Budgets}}){{end}}; exit code {{.ExitCode}}, {{.Outcome}}.</p>
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
{{with .Totals}}{{if .Requisites}}<li><b>{{.Requisites}}</b><span>{{plural .Requisites "requisite" "requisites"}} from {{.RequisiteHosts}} {{plural .RequisiteHosts "host" "hosts"}}</span></li>{{end}}{{end}}
</ul>

<h2>Hosts: what they answered</h2>
<p class="meta">Hosts in order of trouble: throttled first, then those with dead URLs, then those that never answered, then those skipped before their work was done, then the rest.</p>
<div class="scroll"><table id="answers">
<thead><tr><th class="l">host</th><th>requests</th><th>2xx</th><th>304</th><th>3xx</th><th>4xx</th><th>429</th><th>5xx</th><th>errors</th><th>excluded by robots.txt</th><th>retries</th><th>bytes</th><th class="l">robots.txt</th></tr></thead>
<tbody>
{{range $i, $h := .Hosts}}{{answersRow $i .}}
{{else}}<tr><td class="l" colspan="13">no host was contacted</td></tr>
{{end}}</tbody>
</table></div>
{{if .Hosts}}<dl class="cols">
<dt>host</dt><dd>the host and port; a tag names its trouble: throttled, dead (dead URLs), unreachable (no answer at all: refused, timed out, no DNS), skipped (stopped before its work was done)</dd>
<dt>requests</dt><dd>every request sent, robots.txt included</dd>
<dt>2xx, 304, 3xx, 4xx, 429, 5xx</dt><dd>answers by status; 3xx leaves out 304, 4xx leaves out 429, 5xx includes 503</dd>
<dt>errors</dt><dd>requests with no answer: network errors and timeouts</dd>
<dt>excluded by robots.txt</dt><dd>URLs robots.txt disallowed, never requested</dd>
<dt>retries</dt><dd>requests sent again after an error, a 429 or a 5xx</dd>
<dt>bytes</dt><dd>body bytes downloaded</dd>
<dt>robots.txt</dt><dd>what the host's robots.txt said, and the status it came with</dd>
</dl>{{end}}

{{if .Hosts}}<h2>Hosts: how polite paced them</h2>
<div class="scroll"><table id="pacing">
<thead><tr><th class="l">host</th><th>TTFB p50</th><th>p95</th><th>max</th><th>delay at start</th><th>highest</th><th>at end</th><th class="l">floor (source)</th><th>waited</th><th>Retry-After waits</th><th class="l">stopped</th></tr></thead>
<tbody>
{{range $i, $h := .Hosts}}{{pacingRow $i .}}
{{end}}</tbody>
</table></div>
<dl class="cols">
<dt>TTFB p50, p95, max</dt><dd>time to first byte of the host's answers: median, 95th percentile, slowest; "never answered" when no request got an answer</dd>
<dt>delay at start</dt><dd>the gap between two requests the run started the host at: what an earlier run left, aged with the half-life; in brackets the delay as stored before ageing</dd>
<dt>highest</dt><dd>the highest gap after the start, once answers came in</dd>
<dt>at end</dt><dd>the gap when the run ended, aged as the next run will find it</dd>
<dt>floor (source)</dt><dd>the shortest gap allowed and who set it: default (--floor), floor-host, crawl-delay or request-rate (robots.txt), ratelimit (the host's RateLimit headers)</dd>
<dt>waited</dt><dd>how long the host had URLs to fetch but waited for its pace: the delay between requests and any hold (Retry-After, spent quota, breaker)</dd>
<dt>Retry-After waits</dt><dd>answers that asked polite to wait before the next request</dd>
<dt>stopped</dt><dd>why the host got no more requests: done, a budget, a deferral to a later run, or the run's end with URLs waiting</dd>
</dl>{{end}}

{{if .Groups}}<h2>Pace groups</h2>
<p class="meta">Paced by {{.PaceBy}}: the hosts of a group shared one pace (one delay, one hold, the strictest floor of their names, --per-host requests in flight for all of them). Each chart draws the group's delay and its hosts' answers together.</p>
<div class="scroll"><table id="groups">
<thead><tr><th class="l">group</th><th class="l">hosts</th><th>requests</th><th>429</th><th>delay at start</th><th>highest</th><th>at end</th><th class="l">floor (source)</th></tr></thead>
<tbody>
{{range $i, $g := .Groups}}<tr data-group="{{.Key}}"><td class="l"><a href="#group-{{$i}}">{{.Key}}</a></td><td class="l wrap">{{range $j, $h := .Hosts}}{{if $j}}, {{end}}{{$h}}{{end}}</td><td>{{.Stats.Requests}}</td><td{{if .Stats.S429}} class="bad"{{end}}>{{.Stats.S429}}</td><td>{{secs .Stats.DelayStartS}}</td><td>{{secs .Stats.DelayMaxS}}</td><td>{{secs .Stats.DelayEndS}}</td><td class="l">{{secs .Stats.FloorS}} ({{.Stats.FloorSource}})</td></tr>
{{end}}</tbody>
</table></div>
{{range $i, $g := .Groups}}<section class="host" id="group-{{$i}}">
<h3>{{.Key}}</h3>
<p class="facts">{{len .Hosts}} hosts, {{.Stats.Requests}} {{plural .Stats.Requests "request" "requests"}}, {{.Stats.Throttled}} throttled (429/503); delay {{secs .Stats.DelayStartS}} at start, {{secs .Stats.DelayMaxS}} at most, {{secs .Stats.DelayEndS}} at end; floor {{secs .Stats.FloorS}} ({{.Stats.FloorSource}}).</p>
{{timeline .Stats $.DurationS}}
</section>
{{end}}{{end}}
{{if .PaceAdvice}}<h2>Hosts that share a server</h2>
<ul>{{range .PaceAdvice}}<li>{{.}}</li>{{end}}</ul>
<p class="meta">Paced by host, these names each had a pace of their own, though they resolved to one address: their server saw all of those paces at once.</p>{{end}}
{{if .Hosts}}<h2>Timelines</h2>
<p class="meta">One chart per host, in the order above, on the same time axis (seconds since the run started). Top: the delay polite kept between two requests to the host, its floor, the 429/503 answers, the Retry-After waits they asked for, the breaker's pauses and the waits to ask robots.txt again. Bottom: each response's time to first byte. Each chart's key lists only what it shows.</p>
{{range $i, $h := .Hosts}}{{hostSection $i . $.DurationS}}
{{end}}{{end}}
{{if .Dead}}<h2>Dead URLs</h2>
<div class="scroll"><table><thead><tr><th class="l">URL</th><th class="l">reason</th><th>attempts</th></tr></thead><tbody>
{{range .Dead}}<tr><td class="l wrap">{{.URL}}</td><td class="l">{{.Reason}}</td><td>{{.Attempts}}</td></tr>
{{end}}</tbody></table></div>{{end}}
{{with .Changes}}<h2>What changed</h2>
<p class="facts">{{.Line}}.</p>
{{if or .ChangedURLs .GoneURLs}}<div class="scroll"><table><thead><tr><th class="l">URL</th><th class="l">change</th></tr></thead><tbody>
{{range .ChangedURLs}}<tr><td class="l wrap">{{.}}</td><td class="l">changed</td></tr>
{{end}}{{range .GoneURLs}}<tr><td class="l wrap">{{.}}</td><td class="l">gone</td></tr>
{{end}}</tbody></table></div>{{end}}{{end}}
{{if .Usage}}<h2>Usage preferences</h2>
<p class="meta">What each host said about the use of its content (Content-Usage, TDMRep){{if .Purpose}}, and what it refused to the declared purpose ({{.Purpose}}): those URLs were not kept{{else}}; no purpose was declared, so nothing was excluded{{end}}.</p>
<div class="scroll"><table class="usage"><thead><tr><th class="l">host</th><th class="l">signals read</th><th class="l">excluded by</th><th>URLs</th></tr></thead><tbody>
{{range .Usage}}<tr data-usage-host="{{.Host}}"><td class="l">{{.Host}}</td><td class="l wrap">{{range $j, $s := .Signals}}{{if $j}}<br>{{end}}{{$s}}{{end}}</td><td class="l wrap">{{range $j, $e := .Excluded}}{{if $j}}<br>{{end}}{{$e.Rule}}{{else}}-{{end}}</td><td>{{range $j, $e := .Excluded}}{{if $j}}<br>{{end}}{{$e.URLs}}{{else}}0{{end}}</td></tr>
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
