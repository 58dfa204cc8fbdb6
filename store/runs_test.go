package store_test

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/polite-crawler/polite/store"
)

func TestRunsRoundTrip(t *testing.T) {
	db := mustOpen(t)
	r1, err := db.BeginRun("nightly", t0)
	if err != nil {
		t.Fatalf("BeginRun: %v", err)
	}
	r2, err := db.BeginRun("docs", time.Time{}) // zero: the store's clock
	if err != nil {
		t.Fatalf("BeginRun: %v", err)
	}
	if r1.ID == 0 || r2.ID <= r1.ID {
		t.Fatalf("run ids = %d, %d; want increasing from 1", r1.ID, r2.ID)
	}
	report := []byte(`{"hosts":[]}`)
	if err := db.EndRun(r1.ID, t0.Add(time.Minute), 1, "12 done, 1 dead", report); err != nil {
		t.Fatalf("EndRun: %v", err)
	}

	t.Run("get ended run", func(t *testing.T) {
		got, err := db.GetRun(r1.ID)
		if err != nil {
			t.Fatalf("GetRun: %v", err)
		}
		if got.ID != r1.ID || got.Job != "nightly" || !got.StartedAt.Equal(t0) || !got.EndedAt.Equal(t0.Add(time.Minute)) ||
			got.ExitCode != 1 || got.Summary != "12 done, 1 dead" || !bytes.Equal(got.Report, report) {
			t.Errorf("GetRun = %+v, want the ended run", got)
		}
	})
	t.Run("get running run", func(t *testing.T) {
		got, err := db.GetRun(r2.ID)
		if err != nil {
			t.Fatalf("GetRun: %v", err)
		}
		if !got.StartedAt.Equal(t0) || !got.EndedAt.IsZero() || got.Report != nil {
			t.Errorf("GetRun = %+v, want started at %v, not ended, no report", got, t0)
		}
	})
	t.Run("newest first", func(t *testing.T) {
		tests := []struct {
			limit int
			want  []int64
		}{
			{0, []int64{r2.ID, r1.ID}},
			{1, []int64{r2.ID}},
			{5, []int64{r2.ID, r1.ID}},
		}
		for _, tt := range tests {
			rs, err := db.Runs(tt.limit)
			if err != nil {
				t.Fatalf("Runs(%d): %v", tt.limit, err)
			}
			var got []int64
			for _, r := range rs {
				got = append(got, r.ID)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Runs(%d) ids = %v, want %v", tt.limit, got, tt.want)
			}
		}
	})
	t.Run("unknown run", func(t *testing.T) {
		if _, err := db.GetRun(999); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("GetRun(999) = %v, want ErrNotFound", err)
		}
		if err := db.EndRun(999, t0, 0, "", nil); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("EndRun(999) = %v, want ErrNotFound", err)
		}
	})
}

func TestFetchesRoundTrip(t *testing.T) {
	db := mustOpen(t)
	run, err := db.BeginRun("nightly", t0)
	if err != nil {
		t.Fatalf("BeginRun: %v", err)
	}
	other, err := db.BeginRun("other", t0)
	if err != nil {
		t.Fatalf("BeginRun: %v", err)
	}
	fs := []store.Fetch{
		{RunID: run.ID, URL: "https://example.com/", Host: "example.com", Status: 200, File: "example.com/index.html",
			SHA256: "abc123", Bytes: 1234, ContentType: "text/html", FetchedAt: t0.Add(time.Second),
			Latency: 87 * time.Millisecond, Attempts: 1, Delay: 3 * time.Second},
		{RunID: run.ID, URL: "https://example.com/a", Host: "example.com", Status: 0, Reason: "timeout",
			FetchedAt: t0.Add(5 * time.Second), Latency: 0, Attempts: 2, Delay: 2750 * time.Millisecond},
		{RunID: other.ID, URL: "https://other.example/", Host: "other.example", Status: 429, Reason: "throttled",
			FetchedAt: t0.Add(2 * time.Second), Attempts: 1},
	}
	// Recorded out of order: Fetches sorts by when they were made.
	if err := db.AddFetches([]store.Fetch{fs[1], fs[2]}); err != nil {
		t.Fatalf("AddFetches: %v", err)
	}
	if err := db.AddFetches(fs[:1]); err != nil {
		t.Fatalf("AddFetches: %v", err)
	}
	tests := []struct {
		name string
		run  int64
		want []store.Fetch
	}{
		{"run with two fetches", run.ID, fs[:2]},
		{"other run", other.ID, fs[2:]},
		{"unknown run", 999, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := db.Fetches(tt.run)
			if err != nil {
				t.Fatalf("Fetches: %v", err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("Fetches = %d fetches, want %d", len(got), len(tt.want))
			}
			for i := range got {
				if !got[i].FetchedAt.Equal(tt.want[i].FetchedAt) {
					t.Errorf("fetch %d FetchedAt = %v, want %v", i, got[i].FetchedAt, tt.want[i].FetchedAt)
				}
				g, w := got[i], tt.want[i]
				g.FetchedAt, w.FetchedAt = time.Time{}, time.Time{}
				if g != w {
					t.Errorf("fetch %d = %+v, want %+v", i, g, w)
				}
			}
		})
	}

	t.Run("fetch of an unknown run is refused", func(t *testing.T) {
		err := db.AddFetches([]store.Fetch{{RunID: 999, URL: "https://x.example/", Host: "x.example", FetchedAt: t0}})
		if err == nil {
			t.Errorf("AddFetches(run 999) = nil, want a foreign key error")
		}
	})
}

func TestLastRunOfAJob(t *testing.T) {
	db := mustOpen(t)
	var ids []int64
	for _, job := range []string{"a", "b", "a"} {
		r, err := db.BeginRun(job, t0)
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
		t.Run(tt.job, func(t *testing.T) {
			r, ok, err := db.LastRun(tt.job)
			if err != nil || ok != tt.wantOK || r.ID != tt.wantID {
				t.Errorf("LastRun(%q) = run %d, %v, %v; want run %d, %v", tt.job, r.ID, ok, err, tt.wantID, tt.wantOK)
			}
		})
	}
}
