package crawl_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/clock"
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
			t.Parallel() // each case has its own origin, clock and database
			const site = "http://site.example"
			seeds := []string{site + "/first", site + tt.slow}
			for i := 0; i < 10; i++ {
				seeds = append(seeds, fmt.Sprintf("%s/later/%d", site, i))
			}
			cfg := fastConfig(t, seeds...)
			cfg.Grace = tt.grace
			db := mustOpen(t)

			// The origin answers in memory on the run's fake clock, which
			// moves while the loop waits; the slow page holds its request
			// for its milliseconds of fake time.
			fake := clock.NewFake(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
			clk := &loopClock{Fake: fake, changed: make(chan struct{})}
			origin := crawltest.New(crawltest.Config{Clock: fake})
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			var signalled sync.Once
			fetcher := &crawltest.Fetcher{Clock: fake, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == tt.slow {
					// The signal comes while the slow request is in
					// flight and the loop waits on it.
					signalled.Do(func() { clk.signal(func() { intr := tt.intr; cancel(&intr) }) })
				}
				origin.ServeHTTP(w, r)
			})}
			cfg.Fetcher = fetcher
			cfg.Clock = clk
			t.Cleanup(fake.Auto())

			// No time bound: a grace that did not cut the request shows as
			// the slow URL done, and a run that went on after the signal as
			// nothing left queued; both are checked below.
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
			slow := mustGet(t, db, cfg.Job, site+tt.slow)
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
				asked := map[string]int{}
				for _, f := range fetcher.Requests() {
					if !strings.HasSuffix(f.URL, "/robots.txt") {
						asked[f.URL]++
					}
				}
				for u, n := range asked {
					if n != 1 {
						t.Errorf("%s requested %d times over both runs, want once", u, n)
					}
				}
			}
		})
	}
}

// loopClock is the run's fake clock, watching when the run's loop says it
// waits. A signal is a cancel of the run's context: the loop wakes from
// it, but the fake clock only learns so when the loop says it stopped
// waiting. signal cancels while the loop waits and returns once the loop
// has woken, so that the clock cannot move on (to the slow request's end)
// under a loop that has not seen the signal yet.
type loopClock struct {
	*clock.Fake

	mu      sync.Mutex
	waiting bool
	woke    int           // how many times the loop stopped waiting
	changed chan struct{} // closed and replaced at each word of the loop
}

func (c *loopClock) Waiting(w bool) {
	c.Fake.Waiting(w)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.waiting = w
	if !w {
		c.woke++
	}
	close(c.changed)
	c.changed = make(chan struct{})
}

// await blocks until ok holds of the loop's state (waiting, and how many
// times it woke), and returns that state.
func (c *loopClock) await(ok func(waiting bool, woke int) bool) (bool, int) {
	for {
		c.mu.Lock()
		w, n, ch := c.waiting, c.woke, c.changed
		c.mu.Unlock()
		if ok(w, n) {
			return w, n
		}
		<-ch
	}
}

// signal calls cancel while the loop waits, and returns once the loop woke.
func (c *loopClock) signal(cancel func()) {
	_, woke := c.await(func(w bool, _ int) bool { return w })
	cancel()
	c.await(func(_ bool, n int) bool { return n > woke })
}
