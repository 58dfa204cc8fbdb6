package store

import (
	"testing"
	"time"
)

// SchemaVersion is the user_version a fresh database gets.
var SchemaVersion = len(migrations)

// SetBusyTimeout shortens the busy timeout of databases opened during t.
func SetBusyTimeout(t *testing.T, d time.Duration) {
	t.Helper()
	old := busyTimeout
	busyTimeout = d
	t.Cleanup(func() { busyTimeout = old })
}

// WriterCacheKiB is the writer connection's page cache size in KiB.
func WriterCacheKiB(db *DB) (int, error) {
	var n int
	err := db.c.w.QueryRow("PRAGMA cache_size").Scan(&n)
	return -n, err
}
