package report

// timelineMax bounds the points a host's timeline holds, so that what a
// run keeps for its report does not grow with the pages it fetches. It is
// what report.html's chart draws: once a timeline has halved it holds 256
// to 512 points, so over the plot's 912 units (plotR - plotL) two
// neighbours are at most 3.6 units apart, closer than a dot is wide
// (2 * dotR = 5): more points would only draw dots over each other, and
// 256 (128 to 256, 7.1 units apart) would leave gaps. 512 points cost
// about 20 KB a host in memory and 30 KB in report.json and the runs
// table, however long the run.
const timelineMax = 512

// AddPoint appends one response to the host's timeline. Once the timeline
// holds timelineMax points it halves, each two neighbours merged into one
// (merge), and from then on each point stands for twice as many
// responses as before: the points stay evenly spread over the run and
// their number bounded. Every throttle, Retry-After and the highest delay
// and latency stay visible in the points that hold them.
func (h *HostStats) AddPoint(p Point) {
	if h.per > 1 && h.inLast < h.per && len(h.Timeline) > 0 {
		last := &h.Timeline[len(h.Timeline)-1]
		*last = merge(*last, p)
		h.inLast++
		return
	}
	if len(h.Timeline) >= timelineMax {
		half := h.Timeline[:0]
		for i := 0; i+1 < len(h.Timeline); i += 2 {
			half = append(half, merge(h.Timeline[i], h.Timeline[i+1]))
		}
		h.Timeline = half
		h.per = max(h.per, 1) * 2
	}
	h.Timeline = append(h.Timeline, p)
	h.inLast = 1
}

// merge is two neighbouring points as one: at the first's time, with the
// higher delay, latency and Retry-After, and the more telling status (a
// throttle, then a network error, then any other error, then the later).
func merge(a, b Point) Point {
	m := Point{AtS: a.AtS, DelayS: max(a.DelayS, b.DelayS), LatencyMS: max(a.LatencyMS, b.LatencyMS),
		Status: b.Status, RetryAfterS: max(a.RetryAfterS, b.RetryAfterS)}
	if weight(a.Status) > weight(b.Status) {
		m.Status = a.Status
	}
	return m
}

// weight ranks a status by how much a merged point must show it.
func weight(status int) int {
	switch {
	case status == 429 || status == 503:
		return 3
	case status == 0:
		return 2
	case status >= 400:
		return 1
	}
	return 0
}
