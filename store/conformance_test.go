package store_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/seeds"
	"github.com/polite-crawler/polite/store"
	"github.com/polite-crawler/polite/store/storetest"
)

// Each role type of the SQLite store plays one of the roles crawl
// declares; the DB plays them all.
var (
	_ crawl.Lock       = (*store.CrawlLock)(nil)
	_ crawl.Runs       = (*store.RunLog)(nil)
	_ crawl.Frontier   = (*store.Frontier)(nil)
	_ crawl.PaceStates = (*store.PaceStates)(nil)
	_ seeds.LoadTx     = (*store.SeedLoads)(nil)
	_ crawl.Store      = (*store.DB)(nil)
)

// TestConformance runs the stores' shared suite on SQLite, a database
// file in a temporary folder for each of its tests.
func TestConformance(t *testing.T) {
	storetest.Run(t, storetest.Config{
		NewDB: func(t *testing.T) func(now func() time.Time) storetest.Store {
			path := filepath.Join(t.TempDir(), "polite.db")
			return func(now func() time.Time) storetest.Store {
				db := mustOpenAt(t, path)
				db.Now = now
				return db
			}
		},
		NotFound: store.ErrNotFound,
	})
}
