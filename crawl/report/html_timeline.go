package report

import (
	"fmt"
	"html/template"
	"math"
	"strconv"
	"strings"
	"sync"
)

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
	dotR      = 2.5  // radius of a response's dot
)

// timelineSVG draws a host's timeline: the delay as a step line over the
// floor with Retry-After waits shaded and 429/503 marked, and below it
// each response's time to first byte, coloured by status. dur is the run's
// length, so that every host shares one time axis.
func timelineSVG(h *HostStats, dur float64) template.HTML {
	var b strings.Builder
	b.Grow(timelineSize(h))
	drawTimeline(&b, h, dur)
	return template.HTML(b.String())
}

// timelineSize is about the length of h's timeline drawn, from above: the
// axes, the legend and the delay line, and a mark for each answer.
func timelineSize(h *HostStats) int { return 4<<10 + 160*min(len(h.Timeline), maxPoints) }

// drawTimeline writes timelineSVG's drawing to b.
func drawTimeline(b *strings.Builder, h *HostStats, dur float64) {
	esc := template.HTMLEscapeString
	fmt.Fprintf(b, `<svg class="timeline" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" role="img" aria-label="timeline of %s">`,
		svgW, svgH, svgW, svgH, esc(h.Host))
	fmt.Fprintf(b, `<title>%s: delay and time to first byte over the run</title>`, esc(h.Host))
	legend(b, h)
	sc := newScale(h, dur)
	sc.axes(b)
	sc.holds(b, h)
	if len(h.Timeline) == 0 {
		fmt.Fprintf(b, `<text x="%.0f" y="%.0f" text-anchor="middle">no responses in this run</text></svg>`, (plotL+plotR)/2, (delayTop+delayBot)/2)
		return
	}
	sc.delays(b, h, dur)
	sc.answers(b, h)
	b.WriteString(`</svg>`)
}

// scale maps a host's timeline onto the plots: time across, the delay on
// the upper plot and the time to first byte on the lower one.
type scale struct {
	tTicks, dTicks, lTicks []float64
	tTop, dTop, lTop       float64
	tUnit                  float64 // seconds in the time axis' unit
	tLabel                 func(float64) string
}

// axesKey is what a timeline's axes depend on: each axis' top and number
// of ticks (the ticks are the top's even steps), and the time axis' unit.
type axesKey struct {
	tTop, dTop, lTop, tUnit float64
	tn, dn, ln              int
}

// drawnAxes keeps the axes drawn lately: a page's hosts share their time
// axis, and many their delay and latency scales, so that most charts'
// axes are drawn once (they were most of report.html's time).
var drawnAxes struct {
	sync.Mutex
	svg map[axesKey]string
}

func newScale(h *HostStats, dur float64) *scale {
	tMax, dMax, lMax := dur, max(h.DelayStartS, h.FloorS), 0.0
	for _, p := range h.Timeline {
		tMax = max(tMax, p.AtS)
		dMax, lMax = max(dMax, p.DelayS), max(lMax, p.LatencyMS)
	}
	sc := &scale{}
	sc.tTicks, sc.tTop, sc.tUnit, sc.tLabel = timeAxis(tMax)
	sc.dTicks, sc.dTop = niceTicks(max(dMax*1.05, 0.001), 4)
	sc.lTicks, sc.lTop = niceTicks(max(lMax*1.05, 1), 3)
	return sc
}

func (sc *scale) x(t float64) float64  { return plotL + t/sc.tTop*(plotR-plotL) }
func (sc *scale) yd(d float64) float64 { return delayBot - d/sc.dTop*(delayBot-delayTop) }
func (sc *scale) yl(l float64) float64 { return latBot - l/sc.lTop*(latBot-latTop) }

// axes writes the frames, grid lines and axes, drawn once for each
// axesKey (drawnAxes).
func (sc *scale) axes(b *strings.Builder) {
	k := axesKey{sc.tTop, sc.dTop, sc.lTop, sc.tUnit, len(sc.tTicks), len(sc.dTicks), len(sc.lTicks)}
	drawnAxes.Lock()
	svg, ok := drawnAxes.svg[k]
	drawnAxes.Unlock()
	if !ok {
		var a strings.Builder
		sc.drawAxes(&a)
		svg = a.String()
		drawnAxes.Lock()
		if len(drawnAxes.svg) >= 256 || drawnAxes.svg == nil {
			drawnAxes.svg = map[axesKey]string{}
		}
		drawnAxes.svg[k] = svg
		drawnAxes.Unlock()
	}
	b.WriteString(svg)
}

// drawAxes draws the frames, grid lines and axes.
func (sc *scale) drawAxes(b *strings.Builder) {
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
	var buf []byte
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
		buf = appendDot(buf[:0], cx, cy, class, p)
		b.Write(buf)
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

// appendDot appends the mark of an answer at cx, cy: a dot of colour
// fill, or a cross for a network error. It writes what fmt would for
// `<circle cx="%.1f" cy="%.1f" r="%g" fill="%s"><title>%d, %.0f ms at
// %s</title></circle>`, without fmt: a report has a mark for each
// answer, and fmt took most of the report's time.
func appendDot(buf []byte, cx, cy float64, fill string, p Point) []byte {
	if p.Status == 0 {
		buf = append(buf, `<path d="M`...)
		buf = strconv.AppendFloat(buf, cx-3, 'f', 1, 64)
		buf = append(buf, ' ')
		buf = strconv.AppendFloat(buf, cy-3, 'f', 1, 64)
		buf = append(buf, `l6 6m0 -6l-6 6" stroke="#1f2328" stroke-width="1.5"><title>error at `...)
		buf = appendSeconds(buf, p.AtS)
		return append(buf, `</title></path>`...)
	}
	buf = append(buf, `<circle cx="`...)
	buf = strconv.AppendFloat(buf, cx, 'f', 1, 64)
	buf = append(buf, `" cy="`...)
	buf = strconv.AppendFloat(buf, cy, 'f', 1, 64)
	buf = append(buf, `" r="`...)
	buf = strconv.AppendFloat(buf, dotR, 'g', -1, 64)
	buf = append(buf, `" fill="`...)
	buf = append(buf, fill...)
	buf = append(buf, `"><title>`...)
	buf = strconv.AppendInt(buf, int64(p.Status), 10)
	buf = append(buf, ", "...)
	buf = strconv.AppendFloat(buf, p.LatencyMS, 'f', 0, 64)
	buf = append(buf, " ms at "...)
	buf = appendSeconds(buf, p.AtS)
	return append(buf, `</title></circle>`...)
}

// legend draws the key along the top of a timeline: only what the chart
// shows.
func legend(b *strings.Builder, h *HostStats) {
	x := plotL
	item := func(show bool, mark, label string, w float64) {
		if !show {
			return
		}
		fmt.Fprintf(b, `<g transform="translate(%.0f 18)">%s<text x="22" y="4">%s</text></g>`, x, mark, label)
		x += w
	}
	var retryAfter, throttled, ok, client, bad, failed bool
	for _, p := range h.Timeline {
		retryAfter = retryAfter || p.RetryAfterS > 0
		throttled = throttled || p.Status == 429 || p.Status == 503
		ok = ok || p.Status > 0 && p.Status < 400
		client = client || p.Status >= 400 && p.Status < 500 && p.Status != 429
		bad = bad || p.Status == 429 || p.Status >= 500
		failed = failed || p.Status == 0
	}
	drawn := len(h.Timeline) > 0
	item(drawn, `<line x1="0" x2="16" y1="0" y2="0" stroke="#0969da" stroke-width="2"/>`, "delay between requests", 180)
	item(drawn && h.FloorS > 0, `<line x1="0" x2="16" y1="0" y2="0" stroke="#8c959f" stroke-dasharray="5 4"/>`, "floor", 80)
	item(retryAfter, `<rect x="0" y="-6" width="16" height="12" fill="#fff1c2" stroke="#d4a72c" stroke-width="0.5"/>`, "Retry-After wait", 140)
	for _, k := range []HoldKind{HoldMarkBreaker, HoldMarkRobotsRetry} {
		fill, stroke, label := holdStyle(k)
		item(h.hasHold(k), fmt.Sprintf(`<rect x="0" y="-6" width="16" height="12" fill="%s" stroke="%s" stroke-width="0.5"/>`, fill, stroke), label, 40+6.5*float64(len(label)))
	}
	item(throttled, `<path d="M8 5l-5 -9h10z" fill="#cf222e"/>`, "429 / 503", 100)
	item(ok, `<circle cx="8" cy="0" r="3" fill="#6e7781"/>`, "response 2xx/3xx", 140)
	item(client, `<circle cx="8" cy="0" r="3" fill="#bf8700"/>`, "4xx", 60)
	item(bad, `<circle cx="8" cy="0" r="3" fill="#cf222e"/>`, "429 / 5xx", 90)
	item(failed, `<path d="M5 -3l6 6m0 -6l-6 6" stroke="#1f2328" stroke-width="1.5"/>`, "network error", 120)
}

// holdStyle is how a pause is drawn and named.
func holdStyle(k HoldKind) (fill, stroke, label string) {
	if k == HoldMarkBreaker {
		return "#fbefff", "#8250df", "breaker pause"
	}
	return "#ddf4ff", "#54aeff", "robots.txt retry wait"
}

// holds shades the host's pauses (breaker cooldowns, robots.txt retry
// waits) behind the delay plot.
func (sc *scale) holds(b *strings.Builder, h *HostStats) {
	for _, m := range h.Holds {
		fill, stroke, label := holdStyle(m.Kind)
		x0 := math.Min(sc.x(m.AtS), plotR)
		x1 := math.Min(sc.x(m.AtS+m.SpanS), plotR)
		fmt.Fprintf(b, `<rect x="%.1f" y="%.0f" width="%.1f" height="%.0f" fill="%s" stroke="%s" stroke-width="0.5"><title>%s %s at %s</title></rect>`,
			x0, delayTop, math.Max(x1-x0, 1), delayBot-delayTop, fill, stroke, label, HumanSeconds(m.SpanS), HumanSeconds(m.AtS))
	}
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
func timeAxis(tMax float64) ([]float64, float64, float64, func(float64) string) {
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
	return ticks, top * unit, unit, func(v float64) string { return tickLabel(v/unit, top) + " " + suffix }
}
