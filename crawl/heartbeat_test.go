package crawl

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/clock"
	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/store"
)

// stepClock is a clock whose timers fire when the test advances it.
type stepClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*stepTimer
}

type stepTimer struct {
	at time.Time
	c  chan time.Time
}

func (t *stepTimer) C() <-chan time.Time { return t.c }
func (t *stepTimer) Stop() bool          { return true }

func (c *stepClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *stepClock) NewTimer(d time.Duration) clock.Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &stepTimer{at: c.now.Add(d), c: make(chan time.Time, 1)}
	c.timers = append(c.timers, t)
	return t
}

// advance moves the clock by d once a timer is waiting, firing those due.
func (c *stepClock) advance(t *testing.T, d time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; {
		c.mu.Lock()
		n := len(c.timers)
		c.mu.Unlock()
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no timer was set")
		}
		time.Sleep(time.Millisecond)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	kept := c.timers[:0]
	for _, tm := range c.timers {
		if !tm.at.After(c.now) {
			tm.c <- c.now
			continue
		}
		kept = append(kept, tm)
	}
	c.timers = kept
}

// TestHeartbeatRefreshesTheLockAndStopsWhenItIsLost: each frontier.Beat on the
// crawl's clock refreshes the lock and the run; when another crawl took
// the lock over, the run is stopped with ErrLockLost.
func TestHeartbeatRefreshesTheLockAndStopsWhenItIsLost(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	clock := &stepClock{now: t0}
	db, err := store.Open(filepath.Join(t.TempDir(), "polite.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.Now = clock.Now
	me := frontier.Holder{PID: 1, Hostname: "here", Job: "j"}
	if err := db.Acquire(me); err != nil {
		t.Fatal(err)
	}
	run, err := db.BeginRun("j", t0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, lost := context.WithCancelCause(context.Background())
	stop := heartbeat(ctx, db, clock, me, run.ID, slog.New(slog.NewTextHandler(io.Discard, nil)), lost)
	for i := 1; i <= 4; i++ {
		clock.advance(t, frontier.Beat)
	}
	// Four beats in, the run is alive long after frontier.Stale from its start.
	waitFor(t, func() bool {
		rs, _ := db.Runs(1)
		return len(rs) == 1 && rs[0].BeatAt.Equal(t0.Add(4*frontier.Beat))
	})
	if rs, _ := db.Runs(1); rs[0].Died(clock.Now()) {
		t.Errorf("a run that beats shows as died")
	}
	// Another crawl takes the lock over; the next beat stops the run.
	db.Release(me)
	if err := db.Acquire(frontier.Holder{PID: 2, Hostname: "there"}); err != nil {
		t.Fatal(err)
	}
	clock.advance(t, frontier.Beat)
	<-ctx.Done()
	if cause := context.Cause(ctx); !errors.Is(cause, frontier.ErrLockLost) {
		t.Errorf("run stopped with %v, want ErrLockLost", cause)
	}
	stop()
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatal("condition not met")
		}
		time.Sleep(time.Millisecond)
	}
}
