package e2etest

import (
	"testing"

	"github.com/polite-crawler/polite/crawl"
)

// What a worker asks of PostgreSQL per page, on one host paced at floor
// 0 as the bench's throughput scenario is: a worker that owns a host
// takes a run of its pages under one lease and one claim, and records
// them in group commits, so that a page costs far less than the claim,
// lease and record of its own it once did (4 transactions, about 13
// round trips). Every page is fetched once.
func TestSharedPageCostsFewRoundTrips(t *testing.T) {
	t.Parallel()
	o := &ownedOrigin{}
	const pages = 128
	dbs := pgWorkers(t, 1)
	crawlTogether(t, dbs, o, pages, func(cfg *crawl.Config) {
		cfg.Pace.Floor, cfg.Pace.Start, cfg.Pace.Decrease = 0, 0, 0
	})
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.hits) != pages {
		t.Errorf("%d page requests, want %d (every page once)", len(o.hits), pages)
	}
	txs, trips := dbs[0].Trips()
	t.Logf("%d pages: %d transactions (%.2f a page), %d round trips (%.2f a page)",
		pages, txs, float64(txs)/pages, trips, float64(trips)/pages)
}
