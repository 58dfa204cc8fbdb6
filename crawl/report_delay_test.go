package crawl

import (
	"bytes"
	"strings"
	"testing"

	"github.com/polite-crawler/polite/crawl/report"
)

func TestHighestAfterStart(t *testing.T) {
	t.Parallel()
	pts := func(ds ...float64) []report.Point {
		var ps []report.Point
		for i, d := range ds {
			ps = append(ps, report.Point{AtS: float64(i), DelayS: d, Status: 200})
		}
		return ps
	}
	tests := []struct {
		name  string
		start float64
		tl    []report.Point
		want  float64
	}{
		{"cold start, settled, backed off", 3, pts(0.7, 0.7, 2.15, 1.6, 1.01), 2.15},
		{"rose above the start", 0.5, pts(0.5, 1.5, 4, 2), 4},
		{"only fell", 3, pts(2, 1, 0.5), 2},
		{"no answer: never left the start", 3, nil, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &report.HostStats{Host: "a.example", DelayStartS: tt.start, Timeline: tt.tl}
			h.Finish(nil)
			if h.DelayMaxS != tt.want {
				t.Errorf("DelayMaxS = %v, want %v", h.DelayMaxS, tt.want)
			}
		})
	}
}

// TestWriteTextHighestAfterStart is issue 10's case in the summary: a host
// that backed off from 0.7 s to 2.15 s after a 3 s start.
func TestWriteTextHighestAfterStart(t *testing.T) {
	t.Parallel()
	h := &report.HostStats{Host: "bucket.example", Requests: 5, S2xx: 4, S429: 1, DelayStartS: 3, FloorS: 0.5, FloorSource: "default",
		Timeline: []report.Point{{AtS: 1, DelayS: 0.7, Status: 200}, {AtS: 2, DelayS: 0.7, Status: 200},
			{AtS: 3, DelayS: 2.15, Status: 429}, {AtS: 5, DelayS: 1.5, Status: 200}}}
	h.Finish(nil)
	h.DelayEndS = 1.01
	r := &report.Report{RunID: 1, Job: "j", Hosts: []*report.HostStats{h}}
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := "bucket.example  3.00s -> 2.15s -> 1.01s  (1 x 429)"
	if !strings.Contains(b.String(), want) {
		t.Errorf("summary lacks %q:\n%s", want, b.String())
	}
}
