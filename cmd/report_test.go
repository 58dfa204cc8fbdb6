package cmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/report"
)

func TestReportCommand(t *testing.T) {
	db := openFixture(t)
	dir := t.TempDir()
	tests := []struct {
		name    string
		opts    reportOptions
		wantOut string // substring of stdout
		wantErr string // substring of the error; "" for none
		usage   bool   // the error is a usage error (exit 2)
	}{
		{name: "newest finished run", opts: reportOptions{}, wantOut: `job "nightly", run 2: stopped by max-duration`},
		{name: "last", opts: reportOptions{Run: "last"}, wantOut: "run 2:"},
		{name: "by number", opts: reportOptions{Run: "1"}, wantOut: `job "nightly", run 1: done after 2m05s, exit 0`},
		{name: "newest of a job", opts: reportOptions{Job: "nightly"}, wantOut: "run 2:"},
		{name: "job without a finished run", opts: reportOptions{Job: "docs"}, wantErr: `no finished run of job "docs"`},
		{name: "run still going", opts: reportOptions{Run: "3"}, wantErr: "run 3 of job docs has no report"},
		{name: "no such run", opts: reportOptions{Run: "99"}, wantErr: "no run 99"},
		{name: "not a number", opts: reportOptions{Run: "yesterday"}, wantErr: "RUN must be a run number", usage: true},
		{name: "json and html on stdout", opts: reportOptions{JSON: true, HTML: "-"}, wantErr: "both write to stdout", usage: true},
		{name: "html to a file", opts: reportOptions{Run: "2", HTML: filepath.Join(dir, "r.html")}, wantOut: "wrote " + filepath.Join(dir, "r.html")},
		{name: "html to stdout", opts: reportOptions{Run: "2", HTML: "-"}, wantOut: `<svg class="timeline"`},
		{name: "html to a missing folder", opts: reportOptions{Run: "2", HTML: filepath.Join(dir, "no", "r.html")}, wantErr: "write "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			err := runReport(&out, db, &tt.opts)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("error %v, want none", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("error %v, want one saying %q", err, tt.wantErr)
			case tt.wantErr != "" && errors.Is(err, errUsage) != tt.usage:
				t.Errorf("usage error = %v, want %v (%v)", errors.Is(err, errUsage), tt.usage, err)
			}
			if !strings.Contains(out.String(), tt.wantOut) {
				t.Errorf("stdout does not contain %q:\n%s", tt.wantOut, out.String())
			}
		})
	}
	page, err := os.ReadFile(filepath.Join(dir, "r.html"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(page), `<svg class="timeline"`); n != 4 {
		t.Errorf("report.html of run 2 has %d timelines, want 4 (one per host)", n)
	}
}

func TestReportJSONRoundTrip(t *testing.T) {
	db := openFixture(t)
	var out bytes.Buffer
	if err := runReport(&out, db, &reportOptions{Run: "2", JSON: true}); err != nil {
		t.Fatal(err)
	}
	var got report.Report
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("report --json: %v", err)
	}
	want := fixtureRuns()[1]
	want.RunID = 2
	gotJSON, _ := json.Marshal(&got)
	wantJSON, _ := json.Marshal(want)
	if string(gotJSON) != string(wantJSON) {
		t.Errorf("report --json differs from what the run stored:\n got %s\nwant %s", gotJSON, wantJSON)
	}
}

func TestRunsCommand(t *testing.T) {
	db := openFixture(t)
	now := func() time.Time { return fixedNow }
	tests := []struct {
		name    string
		opts    runsOptions
		wantIDs []int64
		wantErr bool
	}{
		{"all", runsOptions{Now: now}, []int64{3, 2, 1}, false},
		{"limit", runsOptions{Limit: 2, Now: now}, []int64{3, 2}, false},
		{"one job", runsOptions{Job: "nightly", Now: now}, []int64{2, 1}, false},
		{"one job, limited", runsOptions{Job: "nightly", Limit: 1, Now: now}, []int64{2}, false},
		{"unknown job", runsOptions{Job: "weekly", Now: now}, nil, false},
		{"negative limit", runsOptions{Limit: -1, Now: now}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			o := tt.opts
			o.JSON = true
			err := runRuns(&out, db, &o)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error %v, want error: %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			var rows []runRow
			if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
				t.Fatalf("runs --json: %v\n%s", err, out.String())
			}
			var ids []int64
			for _, r := range rows {
				ids = append(ids, r.ID)
			}
			if !equalIDs(ids, tt.wantIDs) {
				t.Errorf("runs %v, want %v", ids, tt.wantIDs)
			}
		})
	}
	var out bytes.Buffer
	if err := runRuns(&out, db, &runsOptions{Job: "weekly", Now: now}); err != nil || out.String() != "no runs of job \"weekly\" yet\n" {
		t.Errorf("runs of an unknown job: %q, %v; want a sentence saying there are none", out.String(), err)
	}
}

func equalIDs(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
