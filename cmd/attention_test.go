package cmd

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/report"
)

// runLog is a reportDB of runs given newest first; read lists the runs
// whose report was read (GetRun).
type runLog struct {
	runs []frontier.Run
	read *[]int64
}

func (l runLog) Runs(int) ([]frontier.Run, error) { return l.runs, nil }

func (l runLog) GetRun(id int64) (frontier.Run, error) {
	*l.read = append(*l.read, id)
	for _, r := range l.runs {
		if r.ID == id {
			return r, nil
		}
	}
	return frontier.Run{}, fmt.Errorf("no run %d", id)
}

func TestCutShortStreak(t *testing.T) {
	run := func(id int64, job string, stop frontier.RunStop) frontier.Run {
		return frontier.Run{ID: id, Job: job, Report: []byte(`{"stop":"` + stop + `"}`)}
	}
	cut := []frontier.Run{run(6, "nightly", "budget"), run(5, "other", "done"), run(4, "nightly", "budget"), run(3, "nightly", "budget"), run(2, "nightly", "done")}
	tests := []struct {
		name string
		runs []frontier.Run
		want bool
		read []int64 // the reports read back: never the newest run's, which is in memory
	}{
		{"three cut runs in a row, another job's between", cut, true, []int64{4, 3}},
		{"the third newest ran to its end", append(cut[:3:3], run(3, "nightly", "done")), false, []int64{4, 3}},
		{"only two runs yet", cut[:3], false, []int64{4}},
		{"the newest was interrupted", append([]frontier.Run{run(7, "nightly", "interrupted")}, cut...), false, nil},
	}
	for _, tt := range tests {
		var read []int64
		newest := &report.Report{RunID: tt.runs[0].ID}
		json.Unmarshal(tt.runs[0].Report, newest)
		if got := cutShortStreak(runLog{tt.runs, &read}, "nightly", newest); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
		if fmt.Sprint(read) != fmt.Sprint(tt.read) {
			t.Errorf("%s: read the reports of runs %v, want %v", tt.name, read, tt.read)
		}
	}
}
