package report

import "testing"

// A long run's timeline stays bounded, spread over the whole run, and
// keeps what the chart must show: every kind of throttle answered, the
// highest delay and latency.
func TestTimelineStaysBoundedAndKeepsWhatMatters(t *testing.T) {
	var h HostStats
	const n = 100_000
	for i := range n {
		p := Point{AtS: float64(i) / 100, DelayS: 0.5, LatencyMS: 3, Status: 200}
		switch i {
		case 31_337:
			p.Status, p.RetryAfterS = 429, 7
		case 77_777:
			p.DelayS, p.LatencyMS = 9.5, 1200
		case 88_888:
			p.Status = 0
		}
		h.AddPoint(p)
		if len(h.Timeline) > timelineMax {
			t.Fatalf("after %d responses the timeline holds %d points, want at most %d", i+1, len(h.Timeline), timelineMax)
		}
	}
	if len(h.Timeline) < timelineMax/2 {
		t.Errorf("%d points for %d responses, want at least %d", len(h.Timeline), n, timelineMax/2)
	}
	var throttle, errs int
	var delay, lat, retry float64
	for i, p := range h.Timeline {
		if i > 0 && p.AtS <= h.Timeline[i-1].AtS {
			t.Fatalf("point %d at %gs after point %d at %gs: not in time order", i, p.AtS, i-1, h.Timeline[i-1].AtS)
		}
		if p.Status == 429 {
			throttle++
		}
		if p.Status == 0 {
			errs++
		}
		delay, lat, retry = max(delay, p.DelayS), max(lat, p.LatencyMS), max(retry, p.RetryAfterS)
	}
	if throttle != 1 || errs != 1 || delay != 9.5 || lat != 1200 || retry != 7 {
		t.Errorf("merged timeline shows %d 429s, %d errors, delay %g, latency %g, Retry-After %g; want 1, 1, 9.5, 1200, 7",
			throttle, errs, delay, lat, retry)
	}
	if first, last := h.Timeline[0].AtS, h.Timeline[len(h.Timeline)-1].AtS; first != 0 || last < 0.99*float64(n)/100 {
		t.Errorf("timeline spans %gs to %gs, want the whole run, 0s to about %gs", first, last, float64(n)/100)
	}
	if got := HighestAfterStart(&h); got != 9.5 {
		t.Errorf("HighestAfterStart = %g, want 9.5", got)
	}
}

// A short run keeps every response as its own point.
func TestTimelineShortRunKeepsEveryPoint(t *testing.T) {
	var h HostStats
	for i := range timelineMax {
		h.AddPoint(Point{AtS: float64(i), Status: 200 + i%2})
	}
	if len(h.Timeline) != timelineMax {
		t.Fatalf("%d points for %d responses", len(h.Timeline), timelineMax)
	}
	for i, p := range h.Timeline {
		if p.AtS != float64(i) || p.Status != 200+i%2 {
			t.Fatalf("point %d = %+v, want the response as added", i, p)
		}
	}
}

// A timeline holds as many points as its chart can tell apart: once
// halved, its neighbours' dots still touch across the plot, and a timeline
// of half the size would leave gaps between them.
func TestTimelineMaxIsWhatTheChartDraws(t *testing.T) {
	width := plotR - plotL
	if gap := width / (timelineMax / 2); gap > 2*dotR {
		t.Errorf("a halved timeline of %d points spreads %.1f units apart, wider than a dot (%g): the chart shows gaps", timelineMax/2, gap, 2*dotR)
	}
	if gap := width / (timelineMax / 4); gap <= 2*dotR {
		t.Errorf("timelines of %d points would still draw touching dots (%.1f units apart): timelineMax %d keeps more than the chart uses", timelineMax/4, gap, timelineMax)
	}
}
