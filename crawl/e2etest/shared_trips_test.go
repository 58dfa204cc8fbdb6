package e2etest

import (
	"testing"

	"github.com/polite-crawler/polite/crawl"
)

// What a worker asks of PostgreSQL per page, on one host paced at floor
// 0 as the bench's throughput scenario is: a worker that owns a host
// claims a run of its requests with one transaction and takes a run of
// its pages under one lease, and a record is one round trip, so that a
// page costs its record and little more (before: a claim, a share of a
// lease and a record of its own, 2.24 transactions and 9.07 round trips
// a page). Every page is fetched once.
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
	if txs > pages*3/2 || trips > pages*4 {
		t.Errorf("%d pages cost %d transactions and %d round trips, want at most 1.5 and 4 a page", pages, txs, trips)
	}
}

// Two workers on one host at floor 0, the owner working it in runs of
// claims and leases across several runs: every page is fetched once, and
// no two requests are ever in flight at once (one owner at a time, its
// runs keeping the pace).
func TestSharedRunsTwoWorkersEveryPageOnce(t *testing.T) {
	t.Parallel()
	o := &ownedOrigin{}
	const pages = 100 // more than three runs
	reps := crawlTogether(t, pgWorkers(t, 2), o, pages, func(cfg *crawl.Config) {
		cfg.Pace.Floor, cfg.Pace.Start, cfg.Pace.Decrease = 0, 0, 0
	})
	o.mu.Lock()
	defer o.mu.Unlock()
	seen := map[string]bool{}
	for i, h := range o.hits {
		if seen[h.path] {
			t.Errorf("%s fetched twice", h.path)
		}
		seen[h.path] = true
		if i > 0 && h.start.Before(o.hits[i-1].end) {
			t.Errorf("requests %d and %d overlap: two senders at once", i-1, i)
		}
	}
	if len(seen) != pages {
		t.Errorf("%d pages fetched, want %d (every page once)", len(seen), pages)
	}
	done := 0
	for _, r := range reps {
		if r != nil {
			done = max(done, r.Frontier["done"])
		}
	}
	if done != pages {
		t.Errorf("the workers' reports count %d pages done, want %d", done, pages)
	}
}
