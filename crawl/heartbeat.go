package crawl

import (
	"context"
	"errors"
	"log/slog"

	"github.com/polite-crawler/polite/crawl/clock"
	"github.com/polite-crawler/polite/crawl/frontier"
)

// heartbeat refreshes the crawl lock and the run's heartbeat every
// frontier.Beat on clk, until the returned stop is called: a lock left
// silent for frontier.Stale is another crawl's to take. When the lock was
// taken over (this process stalled that long), the run is stopped through
// lost, since two crawls must not share the database.
func heartbeat(ctx context.Context, lock Lock, clk clock.Clock, h frontier.Holder, runID int64, log *slog.Logger, lost context.CancelCauseFunc) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for clock.Sleep(ctx, clk, frontier.Beat) {
			err := lock.Heartbeat(h, runID)
			switch {
			case errors.Is(err, frontier.ErrLockLost):
				log.Error("stopping: the crawl lock was taken over", "err", err)
				lost(err)
				return
			case err != nil:
				log.Warn("cannot refresh the crawl lock", "err", err)
			}
		}
	}()
	return func() { cancel(); <-done }
}
