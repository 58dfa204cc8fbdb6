package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/report"
)

// runsOf is a reportDB of runs in memory, newest first.
type runsOf []frontier.Run

func (rs runsOf) Runs(int) ([]frontier.Run, error) { return rs, nil }

func (rs runsOf) GetRun(id int64) (frontier.Run, error) {
	for _, r := range rs {
		if r.ID == id {
			return r, nil
		}
	}
	return frontier.Run{}, frontier.ErrNotFound
}

// changesFixture: run 3 of nightly changed pages, run 2 found nothing
// changed, run 1 is of another job.
func changesFixture(t *testing.T) runsOf {
	t.Helper()
	run := func(id int64, job string, c *report.Changes) frontier.Run {
		data, err := json.Marshal(&report.Report{RunID: id, Job: job, Changes: c})
		if err != nil {
			t.Fatal(err)
		}
		start := fixedNow.Add(-time.Duration(4-id) * 24 * time.Hour)
		return frontier.Run{ID: id, Job: job, StartedAt: start, EndedAt: start.Add(time.Minute), Report: data}
	}
	c := &report.Changes{New: 1, Changed: 22, Unchanged: 40, Gone: 1, NotDue: 950,
		GoneURLs: []string{"https://docs.example.org/old"}}
	for i := range report.MaxChangedURLs {
		c.ChangedURLs = append(c.ChangedURLs, fmt.Sprintf("https://docs.example.org/page/%d", i))
	}
	return runsOf{
		run(3, "nightly", c),
		run(2, "nightly", &report.Changes{Unchanged: 60, NotDue: 953}),
		run(1, "docs", nil),
	}
}

// TestGoldenChanges: polite changes as text and JSON against golden
// files; nothing new, changed or gone is no text at all (a cron line
// mails only changes).
func TestGoldenChanges(t *testing.T) {
	db := changesFixture(t)
	var out bytes.Buffer
	if err := runChanges(&out, db, &changesOptions{Job: "nightly"}); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "changes.txt", out.String())
	out.Reset()
	if err := runChanges(&out, db, &changesOptions{Run: "3", JSON: true}); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "changes.json", out.String())

	for _, o := range []changesOptions{{Run: "2"}, {Run: "1"}} {
		out.Reset()
		if err := runChanges(&out, db, &o); err != nil || out.Len() != 0 {
			t.Errorf("run %s: %q, %v; want no text", o.Run, out.String(), err)
		}
	}
	out.Reset()
	if err := runChanges(&out, db, &changesOptions{Run: "2", JSON: true}); err != nil || !strings.Contains(out.String(), `"not_due": 953`) {
		t.Errorf("run 2 --json: %s, %v; want the counts", out.String(), err)
	}
	if err := runChanges(&out, db, &changesOptions{Run: "yesterday"}); err == nil || !strings.Contains(err.Error(), "RUN must be a run number") {
		t.Errorf("bad RUN: %v", err)
	}
}
