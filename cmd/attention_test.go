package cmd

import (
	"fmt"
	"testing"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// runLog is a reportDB of runs given newest first.
type runLog []frontier.Run

func (l runLog) Runs(int) ([]frontier.Run, error) { return l, nil }

func (l runLog) GetRun(id int64) (frontier.Run, error) {
	for _, r := range l {
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
	cut := runLog{run(6, "nightly", "budget"), run(5, "other", "done"), run(4, "nightly", "budget"), run(3, "nightly", "budget"), run(2, "nightly", "done")}
	tests := []struct {
		name string
		db   runLog
		want bool
	}{
		{"three cut runs in a row, another job's between", cut, true},
		{"the third newest ran to its end", append(cut[:3:3], run(3, "nightly", "done")), false},
		{"only two runs yet", cut[:3], false},
		{"the newest was interrupted", append(runLog{run(7, "nightly", "interrupted")}, cut...), false},
	}
	for _, tt := range tests {
		if got := cutShortStreak(tt.db, "nightly"); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
