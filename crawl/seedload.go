package crawl

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/polite-crawler/polite/crawl/fetch"
	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/seeds"
)

// openSeeds starts reading the run's seeds before the run is recorded
// (seeds.Loader.Open), so that a source without a valid seed fails here,
// as a usage error, and so does a seed file that cannot be opened.
// The seeds' origins go to origins (the dial policy's); with --sitemaps
// (maps not nil) a seed that is a sitemap becomes an entry of that kind.
// The batches share cfg.SeedTx's transactions when there is one.
func openSeeds(ctx context.Context, db seeds.Store, cfg *Config, log *slog.Logger, origins fetch.Origins, maps *sitemapRun) (*seeds.Loader, error) {
	l := &seeds.Loader{Job: cfg.Job, Log: log, Origins: origins, Tx: cfg.SeedTx}
	if maps != nil {
		l.Mark = maps.seedEntry
	}
	err := l.Open(ctx, db, cfg.Seeds)
	if errors.Is(err, seeds.ErrOpen) {
		return nil, fmt.Errorf("%w: %v", ErrUsage, err)
	}
	return l, err
}

// lockBeat returns what refreshes the crawl lock of run runID while the
// seeds load: a heartbeat once frontier.Beat has passed since the last,
// called between two batches. A lock taken over stops the loading. Like
// the heartbeat, it goes by the wall clock, whatever clock paces the run.
func lockBeat(lock Lock, h frontier.Holder, runID int64, log *slog.Logger) func() error {
	last := time.Now()
	return func() error {
		now := time.Now()
		if now.Sub(last) < frontier.Beat {
			return nil
		}
		last = now
		err := lock.Heartbeat(h, runID)
		if err != nil && !errors.Is(err, frontier.ErrLockLost) {
			log.Warn("cannot refresh the crawl lock", "err", err)
			return nil
		}
		return err
	}
}

// endLoad records that run runID, whose seeds could not be loaded, ended
// at now: with the signal's code when it was interrupted.
func endLoad(runs Runs, runID int64, now time.Time, err error) {
	code, summary := ExitFailure, "could not load the seeds: "+err.Error()
	var intr *Interrupted
	if errors.As(err, &intr) {
		code, summary = intr.Code, "interrupted while loading the seeds"
	}
	runs.EndRun(runID, now, code, summary, nil)
}
