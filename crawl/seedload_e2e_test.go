package crawl_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/crawltest"
	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/revisit"
	"github.com/polite-crawler/polite/crawl/seeds"
	"github.com/polite-crawler/polite/store"
)

// seedSpy counts the entries the run hands to Enqueue: the seeds it read.
type seedSpy struct {
	*store.DB
	entries int
	calls   int
	onCall  func()
}

func (s *seedSpy) Enqueue(job string, es []frontier.Entry) (int, error) {
	s.entries += len(es)
	s.calls++
	if s.onCall != nil {
		s.onCall()
	}
	return s.DB.Enqueue(job, es)
}

func writeSeeds(t *testing.T, path string, lines ...string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestResumeSkipsAnUnchangedSeedFile: a run after one that loaded the
// seed file does not read it again while it is unchanged (even touched),
// and still lets the seeds' loopback origin be dialled; a changed file is
// read again, and only its new URL is new.
func TestResumeSkipsAnUnchangedSeedFile(t *testing.T) {
	t.Parallel()
	o, srv := serve(t, crawltest.Config{})
	path := filepath.Join(t.TempDir(), "seeds.txt")
	lines := []string{srv.URL + "/doc/1", srv.URL + "/doc/2", srv.URL + "/doc/3", srv.URL + "/doc/1 9"}
	writeSeeds(t, path, lines...)
	cfg := fastConfig(t)
	cfg.Seeds = seeds.File(path)
	cfg.Revisit.Mode = revisit.Always // every run asks for every URL: this test is about reading the file
	onFakeClock(t, &cfg)              // the pace in fake time; the seeds' origin is dialled over loopback
	spy := &seedSpy{DB: mustOpen(t)}
	cfg.SeedTx = spy
	later := time.Now().Add(time.Hour).Truncate(time.Second) // a file time: the file system keeps its own

	steps := []struct {
		name     string
		change   func()
		enqueued int // entries read from the file
		fetched  []string
	}{
		{"first run reads the file", nil, 4, []string{"/doc/1", "/doc/2", "/doc/3"}},
		{"unchanged: not read", nil, 0, []string{"/doc/1", "/doc/2", "/doc/3"}},
		{"touched, same content: not read", func() {
			if err := os.Chtimes(path, later, later); err != nil {
				t.Fatal(err)
			}
		}, 0, []string{"/doc/1"}},
		{"changed: read again", func() { writeSeeds(t, path, append(lines, srv.URL+"/doc/4")...) }, 5, []string{"/doc/4"}},
	}
	for _, st := range steps {
		if st.change != nil {
			st.change()
		}
		o.Reset()
		spy.entries = 0
		rep, err := crawl.Run(context.Background(), spy, cfg)
		if err != nil || rep.ExitCode != 0 {
			t.Fatalf("%s: Run = exit %v, %v", st.name, rep.ExitCode, err)
		}
		if spy.entries != st.enqueued {
			t.Errorf("%s: %d seeds enqueued, want %d", st.name, spy.entries, st.enqueued)
		}
		got := o.Stats().ByPath
		for _, p := range st.fetched {
			if got[p] != 1 {
				t.Errorf("%s: %s requested %d times, want once (requests %v, hosts %+v)", st.name, p, got[p], got, rep.Hosts)
			}
		}
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	src, ok, err := spy.SeedSource(cfg.Job)
	if !ok || err != nil || src.Size != fi.Size() || !src.ModTime.Equal(fi.ModTime()) || src.Seeds != 5 || len(src.Origins) != 1 {
		t.Errorf("stored seed source = %+v, %v, %v; want the file's size and time, 5 seeds, one origin", src, ok, err)
	}
}

// TestInterruptWhileLoadingSeeds: a signal between two batches stops the
// loading at once; the run is recorded as interrupted, and the file's
// fingerprint is not stored, so the next run reads it again.
func TestInterruptWhileLoadingSeeds(t *testing.T) {
	t.Parallel()
	o, srv := serve(t, crawltest.Config{})
	path := filepath.Join(t.TempDir(), "seeds.txt")
	lines := make([]string, 25_000)
	for i := range lines {
		lines[i] = fmt.Sprintf("%s/doc/%d", srv.URL, i)
	}
	writeSeeds(t, path, lines...)
	cfg := fastConfig(t)
	cfg.Seeds = seeds.File(path)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	spy := &seedSpy{DB: mustOpen(t)}
	cfg.SeedTx = spy
	spy.onCall = func() { cancel(&crawl.Interrupted{Signal: "SIGINT", Code: crawl.ExitInterrupted}) }
	rep, err := crawl.Run(ctx, spy, cfg)
	var intr *crawl.Interrupted
	if !errors.As(err, &intr) || rep != nil {
		t.Fatalf("Run = %v, %v; want no report and the interruption", rep, err)
	}
	if spy.calls != 1 || o.Stats().Requests != 0 {
		t.Errorf("%d batches enqueued, %d requests; want 1 and none", spy.calls, o.Stats().Requests)
	}
	runs, err := spy.Runs(0)
	if err != nil || len(runs) != 1 || runs[0].ExitCode != crawl.ExitInterrupted || runs[0].EndedAt.IsZero() {
		t.Errorf("runs = %+v, %v; want one ended with exit %d", runs, err, crawl.ExitInterrupted)
	}
	if _, ok, err := spy.SeedSource(cfg.Job); ok || err != nil {
		t.Errorf("seed source stored after an interrupted load (%v)", err)
	}
}

// TestSkippedSeedLinesAreCapped: many bad lines are logged five at a time
// and kept up to seeds.MaxRejectedKept for the report; a file of bad lines
// only is refused before a run is recorded.
func TestSkippedSeedLinesAreCapped(t *testing.T) {
	t.Parallel()
	_, srv := serve(t, crawltest.Config{})
	bad := make([]string, 1500)
	for i := range bad {
		bad[i] = fmt.Sprintf("ftp://a.example/%d", i)
	}
	tests := []struct {
		name    string
		lines   []string
		wantErr error
		kept    int
	}{
		{"bad lines only", bad, seeds.ErrNone, 0},
		{"bad lines and one good", append(append([]string{}, bad...), srv.URL+"/doc/ok"), nil, seeds.MaxRejectedKept},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "seeds.txt")
			writeSeeds(t, path, tt.lines...)
			cfg := fastConfig(t)
			cfg.Seeds = seeds.File(path)
			onFakeClock(t, &cfg) // the pace of the one good seed in fake time
			var logs bytes.Buffer
			cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			db := mustOpen(t)
			rep, err := crawl.Run(context.Background(), db, cfg)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Run = %v, want %v", err, tt.wantErr)
			}
			if n := strings.Count(logs.String(), "seed line skipped"); n != 5 {
				t.Errorf("%d skipped lines logged, want 5", n)
			}
			if want := "... and 1495 more seed lines skipped (the report lists the first 1000)"; !strings.Contains(logs.String(), want) {
				t.Errorf("log %q lacks %q", logs.String(), want)
			}
			runs, _ := db.Runs(0)
			if tt.wantErr != nil {
				if len(runs) != 0 {
					t.Errorf("%d runs recorded, want none", len(runs))
				}
				return
			}
			if len(rep.Rejected) != tt.kept || rep.Rejected[0].String() != path+`:1: URL "ftp://a.example/0": scheme "ftp" is not http or https` {
				t.Errorf("report lists %d rejected lines, first %v; want %d from line 1", len(rep.Rejected), rep.Rejected[0], tt.kept)
			}
		})
	}
}
