package crawl_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/crawltest"
	"github.com/polite-crawler/polite/crawl/frontier"
)

func TestInterruptSavesStateAndReports(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		slow     string        // the path in flight when the signal comes
		grace    time.Duration // how long it may finish
		intr     crawl.Interrupted
		finishes bool // the in-flight request completes within the grace
	}{
		{"SIGTERM, in-flight request finishes", "/slow/150", 2 * time.Second, crawl.Interrupted{Signal: "SIGTERM", Code: 143}, true},
		{"SIGINT, grace cuts the request", "/slow/5000", 100 * time.Millisecond, crawl.Interrupted{Signal: "SIGINT", Code: 130}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // each case has its own server and database
			srv := watch(t, crawltest.New(crawltest.Config{}), nil)
			seeds := []string{srv.URL + "/first", srv.URL + tt.slow}
			for i := 0; i < 10; i++ {
				seeds = append(seeds, fmt.Sprintf("%s/later/%d", srv.URL, i))
			}
			cfg := fastConfig(t, seeds...)
			cfg.Grace = tt.grace
			db := mustOpen(t)

			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			go func() {
				// The signal comes while the slow request is in flight.
				for srv.count(tt.slow) == 0 {
					time.Sleep(time.Millisecond)
				}
				intr := tt.intr
				cancel(&intr)
			}()
			// No wall-clock bound: a grace that did not cut the request
			// shows as the slow URL done, and a run that went on after the
			// signal as nothing left queued; both are checked below.
			rep, err := crawl.Run(ctx, db, cfg)
			var intr *crawl.Interrupted
			if !errors.As(err, &intr) || intr.Code != tt.intr.Code {
				t.Fatalf("Run error %v, want *Interrupted with code %d", err, tt.intr.Code)
			}
			if rep == nil || rep.ExitCode != tt.intr.Code || rep.StopReason != "interrupted" {
				t.Fatalf("report %+v, want exit %d, stop reason interrupted", rep, tt.intr.Code)
			}
			var onDisk struct {
				ExitCode int `json:"exit_code"`
			}
			b, err := os.ReadFile(filepath.Join(cfg.OutDir, "report.json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &onDisk); err != nil || onDisk.ExitCode != tt.intr.Code {
				t.Errorf("report.json exit code %d (%v), want %d", onDisk.ExitCode, err, tt.intr.Code)
			}
			counts, err := db.Counts(cfg.Job)
			if err != nil {
				t.Fatal(err)
			}
			if counts[frontier.InFlight] != 0 || counts[frontier.Queued] == 0 {
				t.Errorf("frontier after the signal %v, want nothing in flight and the rest queued", counts)
			}
			slow := mustGet(t, db, cfg.Job, srv.URL+tt.slow)
			if tt.finishes && slow.State != frontier.Done {
				t.Errorf("in-flight request: state %s, want done within the grace", slow.State)
			}
			if !tt.finishes && (slow.State != frontier.Queued || slow.Attempts != 0) {
				t.Errorf("cut request: state %s attempts %d, want queued with its attempt given back", slow.State, slow.Attempts)
			}
			runs, err := db.Runs(1)
			if err != nil || len(runs) != 1 || runs[0].ExitCode != tt.intr.Code || runs[0].EndedAt.IsZero() {
				t.Errorf("stored run %+v (%v), want ended with exit %d", runs, err, tt.intr.Code)
			}

			// The job resumes and finishes.
			if tt.finishes {
				rep, err = crawl.Run(context.Background(), db, cfg)
				if err != nil {
					t.Fatal(err)
				}
				if counts, _ := db.Counts(cfg.Job); counts[frontier.Done] != len(seeds) {
					t.Errorf("after the resumed run %v, want %d done", counts, len(seeds))
				}
				for _, h := range srv.log() {
					if n := srv.count(h.path); n != 1 {
						t.Errorf("%s requested %d times over both runs, want once", h.path, n)
					}
				}
			}
		})
	}
}
