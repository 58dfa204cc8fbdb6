package cmd

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/report"
)

// tellAttention writes what in the run needs a person (report.Attention)
// to stderr as warnings, through the run's logger: --quiet keeps them and
// --log-format json keeps stderr JSON. stdout has the summary.
func tellAttention(log *slog.Logger, db reportDB, job string, rep *report.Report) {
	for _, n := range rep.Attention(cutShortStreak(db, job, rep)) {
		log.LogAttrs(context.Background(), slog.LevelWarn, n.Msg, n.Attrs...)
	}
}

// cutShortStreak reports whether the newest report.CutShortRuns runs of
// job, the one just ended (rep) among them, all stopped on a budget or
// --max-duration. The run just ended is read from rep, not back from the
// database (its report may be large), and no report is read when it was
// not cut short. A database that cannot say is taken for no streak: the
// notice is a courtesy, not the run's outcome.
func cutShortStreak(db reportDB, job string, rep *report.Report) bool {
	if rep.Stop != frontier.RunBudget {
		return false
	}
	runs, err := db.Runs(0)
	if err != nil {
		return false
	}
	n := 0
	for _, r := range runs {
		if r.Job != job {
			continue
		}
		if r.ID != rep.RunID {
			full, err := db.GetRun(r.ID)
			var older struct {
				Stop frontier.RunStop `json:"stop"`
			}
			if err != nil || json.Unmarshal(full.Report, &older) != nil || older.Stop != frontier.RunBudget {
				return false
			}
		}
		if n++; n == report.CutShortRuns {
			return true
		}
	}
	return false
}
