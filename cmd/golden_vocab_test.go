package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/exclude"
	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/report"
	"github.com/polite-crawler/polite/pace"
	"github.com/polite-crawler/polite/store"
)

// vocabReport is a report whose words are every value of the crawl's
// vocabularies as report.json spells them: each host stopped value (and
// the free text an older polite kept there), the run's stop, every budget
// name, the dead URLs' failure reasons and the hosts' last errors.
func vocabReport() *report.Report {
	start := fixedNow.Add(-time.Hour)
	host := func(name string, stopped frontier.Stop, why string, lastErr frontier.Reason) *report.HostStats {
		return &report.HostStats{Host: name, Requests: 3, S2xx: 1, Errors: 2, DelayStartS: 3, DelayMaxS: 3, DelayEndS: 3,
			FloorS: 0.5, FloorSource: "default", Robots: "parsed (200)", Stopped: stopped, StoppedReason: why, LastError: lastErr}
	}
	r := &report.Report{
		RunID: 1, Job: "vocab", Start: start, End: start.Add(10 * time.Minute), DurationS: 600, ExitCode: 1,
		Stop: "budget", StopReason: "stopped by max-requests",
		BudgetsBound: []frontier.Budget{"max-requests", "max-bytes", "max-duration", "max-per-host", "retry-budget"},
		OutDir:       "/srv/crawl/vocab", RunDir: "/srv/crawl/vocab/runs/1",
		Totals: report.Totals{Requests: 40, Done: 10, NotModified: 2, Excluded: 3, Dead: 16, Waiting: 9, Retries: 4, Throttled: 1, Bytes: 4096},
		Hosts: []*report.HostStats{
			host("a.example", "done", "done", ""),
			host("b.example", "unreachable", "no answer to 3 requests (timeout)", "timeout"),
			host("c.example", "private-address", "private-address", "private-address"),
			host("d.example", "robots-unreachable", "unreachable (503): URLs wait for the next run", ""),
			host("e.example", "crawl-delay", "Crawl-delay 5s over --max-crawl-delay 1s", ""),
			host("f.example", "deferred", "deferred: Retry-After beyond --max-retry-after", "refused"),
			host("g.example", "budget", "max-per-host budget", "reset"),
			host("h.example", "interrupted", "run ended with URLs waiting", "dns"),
			host("i.example", "error", "run ended with URLs waiting", "tls"),
			// A report of an older polite: the sentence in stopped.
			host("j.example", "run ended with URLs waiting", "", "network"),
			host("k.example", "tls", "certificate expired on 2001-01-01T00:00:00Z: URLs wait for the next run", "tls-expired"),
			host("l.example", "excluded-by-operator", "excluded by the operator: l.example", ""),
		},
		ExcludedBy: []exclude.Hits{{Rule: "https://a.example/private/", URLs: 2}, {Rule: "l.example", Hosts: []string{"l.example"}}},
		Frontier:   map[string]int{"done": 10, "not-modified": 2, "excluded": 3, "dead": 16, "queued": 5, "deferred": 4},
	}
	r.Hosts[0].Holds = []report.HoldMark{{Kind: report.HoldMarkBreaker, AtS: 1, SpanS: 30}, {Kind: report.HoldMarkRobotsRetry, AtS: 40, SpanS: 5}}
	for i, why := range vocabDeadReasons {
		r.Dead = append(r.Dead, report.DeadURL{URL: fmt.Sprintf("https://a.example/dead/%d", i), Reason: why, Attempts: 1 + i%5})
	}
	return r
}

// vocabDeadReasons are the reasons a URL dies for, as they are stored and
// written.
var vocabDeadReasons = []frontier.Reason{"timeout", "dns", "refused", "reset", "tls", "network", "too-large", "bad-encoding",
	"bad-headers", "bad-url", "http-404", "http-500", "bad-redirect", "redirect-scheme", "redirect-loop", "too-many-redirects"}

// vocabTLSReasons are the reasons of a refused TLS handshake: the URL is
// deferred, never dead ("tls" may still be read as an older polite's
// dead reason).
var vocabTLSReasons = []frontier.Reason{"tls-unknown-authority", "tls-expired", "tls-name-mismatch", "tls-alert", "tls-version", "tls"}

// vocabDB is a fresh database holding vocabReport as its one run, and the
// frontier of its job: dead, excluded, not modified and deferred entries
// with each kind of reason the crawl stores.
func vocabDB(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "polite.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	st := pace.State{Host: "f.example", Delay: 2 * time.Second, SetAt: fixedNow.Add(-50 * time.Minute), HalfLife: 10 * time.Minute,
		Floor: 500 * time.Millisecond, FloorSource: pace.FloorDefault}
	if err := db.SaveAll([]pace.State{st}); err != nil {
		t.Fatal(err)
	}
	r := vocabReport()
	run, err := db.BeginRun(r.Job, r.Start)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.EndRun(run.ID, r.End, r.ExitCode, "10 done, 2 not modified, 3 excluded, 16 dead, 9 waiting (max-requests)", data); err != nil {
		t.Fatal(err)
	}
	at := r.Start.Add(time.Minute)
	var es []frontier.Entry
	add := func(state frontier.State, reason frontier.Reason, status int) {
		es = append(es, frontier.Entry{URL: fmt.Sprintf("https://a.example/%d", len(es)), Host: "a.example", State: state,
			Attempts: 1, Reason: reason, LastStatus: status, FetchedAt: at, NextAt: at})
	}
	for _, why := range vocabDeadReasons {
		status := 0
		if why == "http-404" || why == "http-500" {
			fmt.Sscanf(string(why), "http-%d", &status)
		}
		add(frontier.Dead, why, status)
	}
	add(frontier.Excluded, "robots", 0)
	add(frontier.Excluded, "private-address", 0)
	add(frontier.NotModified, "unchanged (sitemap lastmod)", 0)
	add(frontier.Deferred, "timeout (retry budget spent)", 0)
	add(frontier.Deferred, "http-503", 503)
	add(frontier.Deferred, "deferred: Retry-After beyond --max-retry-after", 0)
	for _, why := range vocabTLSReasons {
		add(frontier.Deferred, why, 0)
	}
	add(frontier.Deferred, "certificate expired on 2001-01-01T00:00:00Z: URLs wait for the next run", 0)
	add(frontier.Queued, "canceled", 0)
	add(frontier.Excluded, "excluded by the operator: https://a.example/private/", 0)
	if _, err := db.Enqueue(r.Job, es); err != nil {
		t.Fatal(err)
	}
	return db
}

// TestGoldenVocabJSON keeps the words of report.json, polite report
// --json, polite runs --json and polite status --job (--json) as they
// are: the failure reasons, the stopped values, the run's stop and the
// budget names, written and read back.
func TestGoldenVocabJSON(t *testing.T) {
	db := vocabDB(t)
	want, err := json.MarshalIndent(vocabReport(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	reportJSON := string(want) + "\n" // as the run writes report.json
	checkGolden(t, "report.json", reportJSON)

	// Read back and written again, report.json is the same.
	var read report.Report
	if err := json.Unmarshal(want, &read); err != nil {
		t.Fatal(err)
	}
	again, err := json.MarshalIndent(&read, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, want) {
		t.Errorf("report.json read back and written again differs\n--- got\n%s\n--- want\n%s", again, want)
	}

	runsOpts := &runsOptions{JSON: true, Limit: 20, Now: func() time.Time { return fixedNow }, Loc: time.UTC}
	tests := []struct {
		golden string
		run    func(w io.Writer) error
	}{
		{"report.json", func(w io.Writer) error { return runReport(w, db, &reportOptions{JSON: true}) }},
		{"runs-vocab.json", func(w io.Writer) error { return runRuns(w, db, runsOpts) }},
		{"status-job.json", func(w io.Writer) error { return runJobStatus(w, db, "vocab", true) }},
		{"status-job.txt", func(w io.Writer) error { return runJobStatus(w, db, "vocab", false) }},
		{"status-vocab.json", func(w io.Writer) error { return runStatus(w, db, storyOpts("", true)) }},
		{"status-host-vocab.json", func(w io.Writer) error { return runStatus(w, db, storyOpts("f.example", true)) }},
		{"frontier-reasons.txt", func(w io.Writer) error { return writeReasons(w, db, "vocab") }},
		{"summary-vocab.txt", func(w io.Writer) error { return runReport(w, db, &reportOptions{}) }},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			var b bytes.Buffer
			if err := tt.run(&b); err != nil {
				t.Fatal(err)
			}
			if tt.golden == "report.json" {
				// polite report --json prints the stored report.json.
				if b.String() != reportJSON {
					t.Errorf("polite report --json differs from report.json\n--- got\n%s\n--- want\n%s", b.String(), reportJSON)
				}
				return
			}
			checkGolden(t, tt.golden, b.String())
		})
	}
}

// writeReasons lists each entry of job as stored, state and reason, for
// the golden file that keeps the frontier's reason column as it is.
func writeReasons(w io.Writer, db *store.DB, job string) error {
	for _, s := range jobStates {
		es, err := db.Entries(job, s, 0)
		if err != nil {
			return err
		}
		for _, e := range es {
			fmt.Fprintf(w, "%s\t%s\t%q\n", e.URL, e.State, e.Reason)
		}
	}
	return nil
}
