package crawl

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/clock"
	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/store"
)

// gatedBeats is a Store whose Heartbeat waits for the test's turn, then
// hands the test its answer: the test lets the heartbeat beat one beat at
// a time, and knows when each beat has been written.
type gatedBeats struct {
	Store
	turn chan struct{}
	done chan error
	quit chan struct{} // closed when the test ends
}

func (s *gatedBeats) Heartbeat(h frontier.Holder, runID int64) error {
	select {
	case <-s.turn:
	case <-s.quit:
		return nil
	}
	err := s.Store.Heartbeat(h, runID)
	s.done <- err
	return err
}

// beat lets one heartbeat through and returns its answer.
func (s *gatedBeats) beat() error {
	s.turn <- struct{}{}
	return <-s.done
}

// TestHeartbeatRefreshesTheLockAndStopsWhenItIsLost: each frontier.Beat on the
// crawl's clock refreshes the lock and the run; when another crawl took
// the lock over, the run is stopped with ErrLockLost. The clock moves by
// itself (Auto) while the heartbeat waits on it, and stands still while
// a beat waits for its turn: beat i comes at t0 + i x LockBeat.
func TestHeartbeatRefreshesTheLockAndStopsWhenItIsLost(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	clk := clock.NewFake(t0)
	t.Cleanup(clk.Auto())
	db, err := store.Open(filepath.Join(t.TempDir(), "polite.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.Now = clk.Now
	me := frontier.Holder{PID: 1, Hostname: "here", Job: "j"}
	if err := db.Acquire(me); err != nil {
		t.Fatal(err)
	}
	run, err := db.BeginRun("j", t0)
	if err != nil {
		t.Fatal(err)
	}
	gated := &gatedBeats{Store: db, turn: make(chan struct{}), done: make(chan error), quit: make(chan struct{})}
	ctx, lost := context.WithCancelCause(context.Background())
	stop := heartbeat(ctx, gated, clk, me, run.ID, slog.New(slog.NewTextHandler(io.Discard, nil)), lost)
	defer stop()
	defer close(gated.quit)
	for i := 1; i <= 4; i++ {
		if err := gated.beat(); err != nil {
			t.Fatalf("beat %d: %v", i, err)
		}
	}
	// Four beats in, the run is alive long after LockStale from its start.
	rs, err := db.Runs(1)
	if err != nil || len(rs) != 1 || !rs[0].BeatAt.Equal(t0.Add(4*frontier.Beat)) {
		t.Fatalf("runs %+v (%v), want one whose last beat is at %s", rs, err, t0.Add(4*frontier.Beat))
	}
	if rs[0].Died(clk.Now()) {
		t.Errorf("a run that beats shows as died")
	}
	// Another crawl takes the lock over; the next beat stops the run.
	db.Release(me)
	if err := db.Acquire(frontier.Holder{PID: 2, Hostname: "there"}); err != nil {
		t.Fatal(err)
	}
	if err := gated.beat(); !errors.Is(err, frontier.ErrLockLost) {
		t.Errorf("the beat after the takeover: %v, want ErrLockLost", err)
	}
	<-ctx.Done()
	if cause := context.Cause(ctx); !errors.Is(cause, frontier.ErrLockLost) {
		t.Errorf("run stopped with %v, want ErrLockLost", cause)
	}
}
