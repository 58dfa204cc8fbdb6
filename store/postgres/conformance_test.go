package postgres

import (
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/store/storetest"
)

// TestConformance runs the stores' shared suite on PostgreSQL, a schema
// of its own for each of its tests.
func TestConformance(t *testing.T) {
	serverURL(t)
	storetest.Run(t, storetest.Config{
		NewDB: func(t *testing.T) func(now func() time.Time) storetest.Store {
			u := newSchema(t)
			return func(now func() time.Time) storetest.Store {
				db := mustOpen(t, u, nil)
				db.Now = now
				return db
			}
		},
		NotFound: frontier.ErrNotFound,
	})
}
