package storetest

import (
	"bytes"
	"errors"
	"reflect"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// Every run of a database carries the database's identity, drawn once
// (8 hex digits), so that the run folders of two databases writing to
// one output folder differ (frontier.Run.Folder).
func testStoreIdentity(t *testing.T, v *env) {
	r1, err := v.db.BeginRun("nightly", T0)
	if err != nil {
		t.Fatalf("BeginRun: %v", err)
	}
	if !regexp.MustCompile(`^[0-9a-f]{8}$`).MatchString(r1.Store) {
		t.Fatalf("run's store identity %q, want 8 hex digits", r1.Store)
	}
	r2, err := v.open(v.clock.Now).BeginRun("docs", T0)
	if err != nil || r2.Store != r1.Store || r2.Folder() != r1.Store+"-"+strconv.FormatInt(r2.ID, 10) {
		t.Errorf("another handle's run = %+v, %v; want identity %s, folder IDENTITY-RUN", r2, err, r1.Store)
	}
	r3, err := v.cfg.env(t).db.BeginRun("nightly", T0)
	if err != nil || r3.Store == r1.Store || r3.Folder() == r1.Folder() {
		t.Errorf("another database's run = %+v, %v; want another identity than %s", r3, err, r1.Store)
	}
}

func testRunsRoundTrip(t *testing.T, v *env) {
	db := v.db
	r1, err := db.BeginRun("nightly", T0)
	if err != nil {
		t.Fatalf("BeginRun: %v", err)
	}
	r2, err := db.BeginRun("docs", time.Time{}) // zero: the store's clock
	if err != nil {
		t.Fatalf("BeginRun: %v", err)
	}
	if r1.ID == 0 || r2.ID <= r1.ID || !r2.StartedAt.Equal(T0) {
		t.Fatalf("runs = %+v, %+v; want ids increasing from 1, the second started at the store's clock", r1, r2)
	}
	report := []byte(`{"hosts":[]}`)
	if err := db.EndRun(r1.ID, T0.Add(time.Minute), 1, "12 done, 1 dead", report); err != nil {
		t.Fatalf("EndRun: %v", err)
	}
	got, err := db.GetRun(r1.ID)
	if err != nil || got.ID != r1.ID || got.Job != "nightly" || !got.StartedAt.Equal(T0) || !got.EndedAt.Equal(T0.Add(time.Minute)) ||
		got.ExitCode != 1 || got.Summary != "12 done, 1 dead" || !bytes.Equal(got.Report, report) {
		t.Errorf("GetRun(ended) = %+v, %v; want the ended run", got, err)
	}
	got, err = db.GetRun(r2.ID)
	if err != nil || !got.StartedAt.Equal(T0) || !got.EndedAt.IsZero() || got.Report != nil {
		t.Errorf("GetRun(running) = %+v, %v; want started at %v, not ended, no report", got, err, T0)
	}
	for _, tt := range []struct {
		limit int
		want  []int64
	}{{0, []int64{r2.ID, r1.ID}}, {1, []int64{r2.ID}}, {5, []int64{r2.ID, r1.ID}}} {
		rs, err := db.Runs(tt.limit)
		if err != nil {
			t.Fatalf("Runs(%d): %v", tt.limit, err)
		}
		var ids []int64
		for _, r := range rs {
			ids = append(ids, r.ID)
			if r.Report != nil {
				t.Errorf("Runs(%d) run %d has a report; want none in the list", tt.limit, r.ID)
			}
		}
		if !reflect.DeepEqual(ids, tt.want) {
			t.Errorf("Runs(%d) ids = %v, want %v (newest first)", tt.limit, ids, tt.want)
		}
	}
	if _, err := db.GetRun(999); !errors.Is(err, v.cfg.NotFound) {
		t.Errorf("GetRun(999) = %v, want NotFound", err)
	}
	if err := db.EndRun(999, T0, 0, "", nil); !errors.Is(err, v.cfg.NotFound) {
		t.Errorf("EndRun(999) = %v, want NotFound", err)
	}
}

func testFetchesRoundTrip(t *testing.T, v *env) {
	db := v.db
	run, err := db.BeginRun("nightly", T0)
	if err != nil {
		t.Fatalf("BeginRun: %v", err)
	}
	other, err := db.BeginRun("other", T0)
	if err != nil {
		t.Fatalf("BeginRun: %v", err)
	}
	fs := []frontier.Fetch{
		{RunID: run.ID, URL: "https://example.com/", Host: "example.com", Status: 200, File: "example.com/index.html",
			SHA256: "abc123", Bytes: 1234, ContentType: "text/html", FetchedAt: T0.Add(time.Second),
			Latency: 87 * time.Millisecond, Attempts: 1, Delay: 3 * time.Second},
		{RunID: run.ID, URL: "https://example.com/a", Host: "example.com", Status: 0, Reason: "timeout",
			FetchedAt: T0.Add(5 * time.Second), Latency: 0, Attempts: 2, Delay: 2750 * time.Millisecond},
		{RunID: other.ID, URL: "https://other.example/", Host: "other.example", Status: 429, Reason: "throttled",
			FetchedAt: T0.Add(2 * time.Second), Attempts: 1},
	}
	// Recorded out of order: Fetches sorts by when they were made.
	if err := db.AddFetches([]frontier.Fetch{fs[1], fs[2]}); err != nil {
		t.Fatalf("AddFetches: %v", err)
	}
	if err := db.AddFetches(fs[:1]); err != nil {
		t.Fatalf("AddFetches: %v", err)
	}
	tests := []struct {
		name string
		run  int64
		want []frontier.Fetch
	}{
		{"run with two fetches", run.ID, fs[:2]},
		{"other run", other.ID, fs[2:]},
		{"unknown run", 999, nil},
	}
	for _, tt := range tests {
		got, err := db.Fetches(tt.run)
		if err != nil || len(got) != len(tt.want) {
			t.Fatalf("%s: Fetches = %d fetches, %v; want %d", tt.name, len(got), err, len(tt.want))
		}
		for i := range got {
			g, w := got[i], tt.want[i]
			if !g.FetchedAt.Equal(w.FetchedAt) {
				t.Errorf("%s: fetch %d FetchedAt = %v, want %v", tt.name, i, g.FetchedAt, w.FetchedAt)
			}
			g.FetchedAt, w.FetchedAt = time.Time{}, time.Time{}
			if g != w {
				t.Errorf("%s: fetch %d = %+v, want %+v", tt.name, i, g, w)
			}
		}
	}
	err = db.AddFetches([]frontier.Fetch{{RunID: 999, URL: "https://x.example/", Host: "x.example", FetchedAt: T0}})
	if err == nil {
		t.Errorf("AddFetches(run 999) = nil, want an error: a fetch belongs to a run")
	}
}

func testLastRun(t *testing.T, v *env) {
	if _, ok, err := v.db.LastRun("a"); ok || err != nil {
		t.Fatalf("LastRun of a job without runs = %v, %v", ok, err)
	}
	var ids []int64
	for i, job := range []string{"a", "b", "a"} {
		r, err := v.db.BeginRun(job, T0.Add(time.Duration(i)*time.Hour))
		if err != nil {
			t.Fatalf("BeginRun: %v", err)
		}
		ids = append(ids, r.ID)
	}
	tests := []struct {
		job    string
		wantID int64
		wantOK bool
	}{
		{"a", ids[2], true},
		{"b", ids[1], true},
		{"c", 0, false},
	}
	for _, tt := range tests {
		r, ok, err := v.db.LastRun(tt.job)
		if err != nil || ok != tt.wantOK || r.ID != tt.wantID {
			t.Errorf("LastRun(%q) = run %d, %v, %v; want run %d, %v", tt.job, r.ID, ok, err, tt.wantID, tt.wantOK)
		}
	}
}

func testSeedSource(t *testing.T, v *env) {
	db := v.db
	if _, ok, err := db.SeedSource("j"); ok || err != nil {
		t.Fatalf("SeedSource of a new job = %v, %v; want none", ok, err)
	}
	at := T0.Add(-time.Hour)
	first := frontier.SeedSource{Job: "j", Name: "/srv/seeds.txt", Size: 1234, ModTime: at, SHA256: "ab12",
		Seeds: 40, Origins: []string{"http://127.0.0.1:8080", "https://a.example:443"}, LoadedAt: at.Add(time.Second)}
	second := first
	second.Size, second.SHA256, second.Origins = 99, "cd34", nil
	for _, put := range []frontier.SeedSource{first, second} {
		if err := db.PutSeedSource(put); err != nil {
			t.Fatalf("PutSeedSource: %v", err)
		}
		got, ok, err := db.SeedSource("j")
		if !ok || err != nil || !got.ModTime.Equal(put.ModTime) || !got.LoadedAt.Equal(put.LoadedAt) {
			t.Fatalf("SeedSource = %+v, %v, %v; want %+v", got, ok, err, put)
		}
		got.ModTime, got.LoadedAt, put.ModTime, put.LoadedAt = time.Time{}, time.Time{}, time.Time{}, time.Time{}
		if !reflect.DeepEqual(got, put) {
			t.Errorf("SeedSource = %+v, want %+v", got, put)
		}
	}
	if _, ok, err := db.SeedSource("other"); ok || err != nil {
		t.Errorf("SeedSource of another job = %v, %v; want none", ok, err)
	}
	if err := db.PutSeedSource(frontier.SeedSource{Job: "j", Origins: []string{"a\nb"}}); err == nil {
		t.Errorf("PutSeedSource with a newline in an origin: nil, want an error")
	}
}

// The WARC files each run wrote come back by job, oldest run first, each
// path once (a path recorded again changes nothing).
func testWarcFiles(t *testing.T, v *env) {
	db := v.db
	files := []frontier.WarcFile{
		{Job: "nightly", Run: 2, Worker: "b~2", Path: "/out/warc/nightly-2-x-00000-b~2.warc.gz", At: T0.Add(time.Hour)},
		{Job: "nightly", Run: 1, Worker: "a~1", Path: "/out/warc/nightly-1-x-00000-a~1.warc.gz", At: T0},
		{Job: "nightly", Run: 1, Worker: "a~1", Path: "/out/warc/nightly-1-x-00001-a~1.warc.gz", At: T0.Add(time.Minute)},
		{Job: "docs", Run: 3, Worker: "a~1", Path: "/out/warc/docs-3-x-00000-a~1.warc.gz", At: T0},
	}
	for _, f := range append(files, files[0]) {
		if err := db.AddWarcFile(f); err != nil {
			t.Fatalf("AddWarcFile %s: %v", f.Path, err)
		}
	}
	got, err := db.WarcFiles("nightly")
	if err != nil {
		t.Fatal(err)
	}
	want := []frontier.WarcFile{files[1], files[2], files[0]}
	if len(got) != len(want) {
		t.Fatalf("WarcFiles = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].Path != want[i].Path || got[i].Run != want[i].Run || got[i].Worker != want[i].Worker ||
			got[i].Job != want[i].Job || !got[i].At.Equal(want[i].At) {
			t.Errorf("WarcFiles[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
	if none, err := db.WarcFiles("other"); err != nil || len(none) != 0 {
		t.Errorf("WarcFiles of a job without any = %v, %v", none, err)
	}
}
