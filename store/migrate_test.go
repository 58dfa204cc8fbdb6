package store

import (
	"database/sql"
	"path/filepath"
	"testing"
	"time"
)

// A database made by the first schema opens in this polite: it is
// migrated in place and keeps what it had learned.
func TestOpenMigratesAnOlderDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v1.db")
	raw, err := sql.Open("sqlite", dsn(path, true))
	if err != nil {
		t.Fatal(err)
	}
	setAt := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, q := range []string{
		migrations[0],
		`PRAGMA user_version = 1`,
	} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("build a version 1 database: %v", err)
		}
	}
	if _, err := raw.Exec(`INSERT INTO host_state (host, delay_ns, set_at, last_signal) VALUES (?, ?, ?, ?)`,
		"old.example", int64(7*time.Second), toNanos(setAt), "429"); err != nil {
		t.Fatal(err)
	}
	raw.Close()

	db, err := Open(path)
	if err != nil {
		t.Fatalf("Open a version 1 database: %v", err)
	}
	defer db.Close()
	st, ok, err := db.Load("old.example")
	if err != nil || !ok {
		t.Fatalf("Load after migrating = %+v, %v, %v", st, ok, err)
	}
	if st.Delay != 7*time.Second || !st.SetAt.Equal(setAt) || st.LastSignal != "429" || !st.HoldUntil.IsZero() {
		t.Errorf("state after migrating = %+v, want the stored delay, time and signal and no hold", st)
	}
	var v int
	if err := db.w.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil || v != len(migrations) {
		t.Errorf("user_version = %d, %v; want %d", v, err, len(migrations))
	}
}
