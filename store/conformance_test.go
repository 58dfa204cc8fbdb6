package store_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/polite-crawler/polite/store"
	"github.com/polite-crawler/polite/store/storetest"
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
