package report

import (
	"fmt"
	"io"
	"testing"
	"time"
)

// manyHosts is a report of n hosts with pages answers each, as a crawl of
// many small sites leaves it.
func manyHosts(n, pages int) *Report {
	r := &Report{Job: "many", RunID: 1, Start: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), DurationS: 60}
	r.End = r.Start.Add(time.Minute)
	for i := range n {
		h := &HostStats{Host: fmt.Sprintf("site-%d.example:8080", i), Requests: pages + 1, S2xx: pages, Bytes: int64(pages) * 4000,
			Robots: "parsed (fetched)", DelayStartS: 1, DelayMaxS: 1.5, DelayEndS: 0.8, FloorS: 0.5, FloorSource: "default", Stopped: "done"}
		for p := range pages {
			h.Timeline = append(h.Timeline, Point{AtS: float64(p) * 2, DelayS: 1, LatencyMS: 20 + float64(p%7), Status: 200})
		}
		r.Hosts = append(r.Hosts, h)
	}
	return r
}

// BenchmarkWriteHTML writes report.html of a crawl of 1,000 hosts of 4
// pages each, and of 200 hosts of 20 (the throughput bench's); it
// reports the page's size.
func BenchmarkWriteHTML(b *testing.B) {
	for _, c := range []struct{ hosts, pages int }{{1000, 4}, {200, 20}} {
		b.Run(fmt.Sprintf("%dx%d", c.hosts, c.pages), func(b *testing.B) {
			r := manyHosts(c.hosts, c.pages)
			var n countingWriter
			for b.Loop() {
				n = 0
				if err := r.WriteHTML(&n); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)/1e6, "MB/page")
		})
	}
}

type countingWriter int

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}

var _ io.Writer = (*countingWriter)(nil)
