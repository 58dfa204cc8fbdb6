package main

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
	"time"
)

// row is one scenario measured under one policy. Figures not measured in
// that scenario are NaN (firstN: -1).
type row struct {
	scenario, policy string
	goodput          float64 // 2xx over what the origins allowed in the window
	per100           float64 // 429 and 503 per 100 page requests
	latency          float64 // p50 latency over the unloaded baseline
	firstN           int     // 429s in the first firstN requests
	refused          int     // 429 and 503 answers
	short            float64 // goodput over the first seconds (twenty hosts, long window)
	wall             time.Duration
	note             string
}

func newRow(scenario, policy string) row {
	return row{scenario: scenario, policy: policy, goodput: math.NaN(), per100: math.NaN(), latency: math.NaN(), firstN: -1, short: math.NaN()}
}

func ratio(f float64, prec int) string {
	if math.IsNaN(f) {
		return "-"
	}
	return fmt.Sprintf("%.*f", prec, f)
}

func intOrDash(n int) string {
	if n < 0 {
		return "-"
	}
	return fmt.Sprint(n)
}

// print writes the table, the throughput block and the targets.
func (b *table) print(w io.Writer, o options, took time.Duration) {
	if len(b.rows) > 0 {
		fmt.Fprintf(w, "pacing: time scale 1:%g (every pacing duration divided by %g, every origin rate multiplied by it);\n", o.scale, o.scale)
		fmt.Fprintf(w, "the RateLimit scenario at 1:%g; each run up to %s unscaled (%s here, %s at 1:%g);\n", o.quotaScale(), o.windowLen, o.window(o.scale), o.window(o.quotaScale()), o.quotaScale())
		fmt.Fprintf(w, "the policies of a scenario run side by side, 20 hosts one after the other; figures counted by the origins\n\n")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "scenario\tpolicy\tgoodput/limit\t429+503/100\tp50 lat/base\t429 in first %d\twall s\tnote\n", firstN)
		for _, r := range b.rows {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%.1f\t%s\n", r.scenario, r.policy, ratio(r.goodput, 3), ratio(r.per100, 2),
				ratio(r.latency, 2), intOrDash(r.firstN), r.wall.Seconds(), r.note)
		}
		tw.Flush()
		fmt.Fprintln(w)
	}
	if len(b.revisit) > 0 {
		printRevisit(w, b.revisit)
		fmt.Fprintln(w)
	}
	if len(b.coord) > 0 {
		printCoordinator(w, b.coord)
		fmt.Fprintln(w)
	}
	if t := b.throughput; t != nil {
		t.print(w)
		fmt.Fprintln(w)
	}
	if s := b.seeds; s != nil {
		s.print(w)
		fmt.Fprintln(w)
	}
	if s := b.sitemaps; s != nil {
		s.print(w)
		fmt.Fprintln(w)
	}
	if len(b.scale) > 0 {
		printScale(w, b.scale)
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "targets (polite):")
	for _, l := range b.targets(o) {
		fmt.Fprintln(w, "  "+l)
	}
	fmt.Fprintf(w, "\nbench took %.0f s\n", took.Seconds())
}

// find returns the row of a scenario and policy.
func (b *table) find(scenario, policy string) (row, bool) {
	for _, r := range b.rows {
		if r.scenario == scenario && r.policy == policy {
			return r, true
		}
	}
	return row{}, false
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}

// targets returns one line per target of the scenarios that ran (issue
// 10's figures).
func (b *table) targets(o options) []string {
	var out []string
	add := func(scenario, format string, met func(row) bool, args func(row) []any) {
		if r, ok := b.find(scenario, "polite"); ok {
			out = append(out, fmt.Sprintf(format, append([]any{verdict(met(r))}, args(r)...)...))
		}
	}
	add("token bucket", fmt.Sprintf("token bucket (%s): goodput >= 0.95 of the limit, <= 1 429 per 100: %%s (%%.3f, %%.2f)", o.windowLen),
		func(r row) bool { return r.goodput >= 0.95 && r.per100 <= 1 },
		func(r row) []any { return []any{r.goodput, r.per100} })
	add(fmt.Sprintf("cold start (%s)", coldWindow), fmt.Sprintf("cold start (%s): goodput >= 0.85, <= 2 429: %%s (%%.3f, %%d)", coldWindow),
		func(r row) bool { return r.goodput >= 0.85 && r.refused <= 2 },
		func(r row) []any { return []any{r.goodput, r.refused} })
	add("queueing", "queueing: goodput >= 0.90 of capacity, p50 latency <= 1.3x baseline: %s (%.3f, %.2fx, %.2f 503 per 100)",
		func(r row) bool { return r.goodput >= 0.90 && r.latency <= 1.3 },
		func(r row) []any { return []any{r.goodput, r.latency, r.per100} })
	add(o.quotaScenario(), "RateLimit headers: 0 429, goodput >= 0.97 of the limit: %s (%d 429, %.3f)",
		func(r row) bool { return r.refused == 0 && r.goodput >= 0.97 },
		func(r row) []any { return []any{r.refused, r.goodput} })
	add(fmt.Sprintf("%d hosts at once", manyHosts), fmt.Sprintf("%d hosts (%s): aggregate goodput >= 0.90 of the sum of limits: %%s (%%.3f)", manyHosts, o.windowLen),
		func(r row) bool { return r.goodput >= 0.90 },
		func(r row) []any { return []any{r.goodput} })
	add(fmt.Sprintf("%d hosts, %s", manyHosts, o.windowLen*longWindowFactor),
		fmt.Sprintf("%d hosts, long window: >= 0.95 over %s, >= 0.85 over its first %s: %%s (%%.3f, %%.3f)", manyHosts, o.windowLen*longWindowFactor, shortWindow),
		func(r row) bool { return r.goodput >= 0.95 && r.short >= 0.85 },
		func(r row) []any { return []any{r.goodput, r.short} })
	add("second run", fmt.Sprintf("second run: <= 1 429 in its first %d requests: %%s (%%d)", firstN),
		func(r row) bool { return r.firstN <= 1 },
		func(r row) []any { return []any{r.firstN} })
	add("nightly", fmt.Sprintf("nightly (%d half-lives later): <= 1 429 in its first %d requests, goodput >= 0.90: %%s (%%d, %%.3f)", nightlyHalfLives, firstN),
		func(r row) bool { return r.firstN <= 1 && r.goodput >= 0.90 },
		func(r row) []any { return []any{r.firstN, r.goodput} })
	add(sharedScenario, fmt.Sprintf("%s: goodput >= 0.85 of the limit, <= 1 429 per 100: %%s (%%.3f, %%.2f)", sharedScenario),
		func(r row) bool { return r.goodput >= 0.85 && r.per100 <= 1 },
		func(r row) []any { return []any{r.goodput, r.per100} })
	if ip, ok := b.find(sharedServerScenario, policyByIP); ok {
		line := fmt.Sprintf("%s, --pace-by ip: goodput >= 0.85 of the server's limit, <= 2 429 per 100: %s (%.3f, %.2f)",
			sharedServerScenario, verdict(ip.goodput >= 0.85 && ip.per100 <= 2), ip.goodput, ip.per100)
		if host, ok := b.find(sharedServerScenario, policyByHost); ok {
			line += fmt.Sprintf("; by host, the default: %.3f, %.2f 429 per 100", host.goodput, host.per100)
		}
		out = append(out, line)
	}
	if t := b.throughput; t != nil {
		p := t.polite
		all := p.recorded == t.urls() && p.onDisk == t.urls()
		out = append(out, fmt.Sprintf("throughput: >= 1500 pages/s, peak RSS < 80 MB, every fetch in SQLite and every body on disk: %s (%.0f pages/s, %.1f MB, %d/%d recorded, %d/%d on disk)",
			verdict(p.rate() >= 1500 && p.rssMB() < 80 && all), p.rate(), p.rssMB(), p.recorded, t.urls(), p.onDisk, t.urls()))
		if w := t.withWarc; w != nil {
			fetches := t.urls() * (1 + benchRequisites) // with --warc each page's requisites too
			all := w.recorded == fetches && w.onDisk == fetches && w.inWarc == t.urls() && w.complete == t.urls()
			out = append(out, fmt.Sprintf("throughput --warc: every page whole (with its %d requisites) in SQLite, on disk and in the WARC, peak RSS < 100 MB: %s (%.0f complete pages/s, %.2fx plain pages/s without --warc; %.1f MB, %d/%d recorded, %d/%d on disk, %d/%d pages in the WARC, %d/%d complete)",
				benchRequisites, verdict(w.rssMB() < 100 && all), w.completeRate(), w.completeRate()/p.rate(), w.rssMB(),
				w.recorded, fetches, w.onDisk, fetches, w.inWarc, t.urls(), w.complete, t.urls()))
		}
		out = append(out, t.besideTargets()...)
	}
	if t := b.throughput; t != nil && t.shared != nil {
		s := t.shared
		out = append(out, fmt.Sprintf("throughput, %d workers on PostgreSQL: every page once, done in the shared frontier: %s (%d page answers, %d distinct of %d, %d done; %.0f pages/s, %.2fx the single SQLite crawl)",
			sharedThroughputWorkers, verdict(s.pages == t.urls() && t.sharedDistinct == t.urls() && s.recorded == t.urls()),
			s.pages, t.sharedDistinct, t.urls(), s.recorded, s.rate(), s.rate()/t.polite.rate()))
		out = append(out, sharedCPU(t.polite, *s, t.urls()))
	}
	if s := b.seeds; s != nil {
		out = append(out, s.target())
	}
	if s := b.sitemaps; s != nil {
		out = append(out, s.target())
	}
	if len(b.scale) > 0 {
		out = append(out, scaleTarget(b.scale))
	}
	out = append(out, revisitTargets(b.revisit)...)
	if len(out) == 0 {
		out = append(out, "none ran")
	}
	return out
}

// print writes the throughput block.
func (t *throughputResult) print(w io.Writer) {
	fmt.Fprintf(w, "throughput: %d unthrottled hosts x %d pages (%d URLs, robots.txt on each), floors 0, --concurrency %d\n",
		t.hosts, t.pages, t.urls(), t.concurrency)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "crawler\tpages/s\tpages/s to 90%\tpeak RSS MB\tin SQLite\ton disk\twall s\tCPU s\tto 1st request s\tafter last request s")
	line := func(name string, f crawlerFigures, rss, kept bool) {
		r, rec, disk, cpu := "-", "-", "-", "-"
		if rss {
			r, cpu = fmt.Sprintf("%.1f", f.rssMB()), fmt.Sprintf("%.2f", f.cpu.Seconds())
		}
		if kept {
			rec, disk = fmt.Sprintf("%d/%d", f.recorded, t.urls()), fmt.Sprintf("%d/%d", f.onDisk, t.urls())
		}
		ends := "-\t-"
		if f.startup > 0 {
			ends = fmt.Sprintf("%.3f\t%.3f", f.startup.Seconds(), f.tail.Seconds())
		}
		fmt.Fprintf(tw, "%s\t%.0f\t%.0f\t%s\t%s\t%s\t%.2f\t%s\t%s\n", name, f.rate(), f.sustained(), r, rec, disk, f.wall.Seconds(), cpu, ends)
	}
	line("polite (binary)", t.polite, true, true)
	if t.withWarc != nil {
		line(fmt.Sprintf("polite --warc (binary; pages/s are complete pages, each with its %d requisites)", benchRequisites), *t.withWarc, true, false)
	}
	if t.shared != nil {
		line(fmt.Sprintf("polite, %d workers on PostgreSQL", sharedThroughputWorkers), *t.shared, true, false)
	}
	if t.inProcess != nil {
		line("polite (in process, profiled)", *t.inProcess, false, true)
	}
	for _, p := range t.peers {
		line(p.name, p.f, true, p.kept)
	}
	if t.colly != nil {
		line("colly (Async, 1 per host, mean of 2)", *t.colly, true, false)
	}
	line("durable reference (net/http, bodies and fetches kept; mean of 2)", t.durable, true, true)
	line("reference (net/http, bodies discarded)", t.reference, false, false)
	tw.Flush()
	fmt.Fprintf(w, "polite / reference: %.2f (to 90%%: %.2f)\n", t.polite.rate()/t.reference.rate(), t.polite.sustained()/t.reference.sustained())
	t.printRatios(w)
	if t.note != "" {
		fmt.Fprintln(w, strings.TrimSpace(t.note))
	}
}

// sharedCPU says what a page costs in CPU in the single SQLite crawl and
// in the shared one, the PostgreSQL server included, and what ratio of
// pages/s that allows when the crawlers, the server and the origins
// share the same cores and keep them busy: the inverse ratio of the CPU
// a page takes.
func sharedCPU(one, shared crawlerFigures, pages int) string {
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) / float64(pages) }
	if shared.server < 0 {
		return fmt.Sprintf("  CPU a page: the SQLite crawl %.2f ms, the %d workers %.2f ms, the PostgreSQL server not measured (not on this machine)",
			ms(one.cpu), sharedThroughputWorkers, ms(shared.cpu))
	}
	single := one.cpu + one.origins
	both := shared.cpu + shared.server + shared.origins
	return fmt.Sprintf("  CPU a page: the SQLite crawl %.2f ms + origins %.2f; the %d workers %.2f ms + the PostgreSQL server %.2f + origins %.2f: on shared cores at most %.2fx the SQLite crawl's pages/s",
		ms(one.cpu), ms(one.origins), sharedThroughputWorkers, ms(shared.cpu), ms(shared.server), ms(shared.origins), float64(single)/float64(both))
}
