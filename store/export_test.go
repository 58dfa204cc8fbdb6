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
