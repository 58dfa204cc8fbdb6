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

// A database of schema version 2 (the last before two time scales) opens
// in this polite: its host states keep what they had, the new columns are
// zero (nothing learned, half-lives not recorded, a hold without a
// reason), and the last signal takes the congestion's time.
func TestOpenMigratesAVersion2Database(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v2.db")
	raw, err := sql.Open("sqlite", dsn(path, true))
	if err != nil {
		t.Fatal(err)
	}
	setAt := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	hold := time.Date(2036, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, q := range []string{migrations[0], migrations[1], `PRAGMA user_version = 2`} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("build a version 2 database: %v", err)
		}
	}
	if _, err := raw.Exec(`INSERT INTO host_state (host, delay_ns, set_at, congestion_ns, congestion_at, last_signal, hold_until)
		VALUES (?, ?, ?, ?, ?, ?, ?), (?, ?, ?, 0, 0, '', 0)`,
		"old.example", int64(4*time.Second), toNanos(setAt), int64(time.Second), toNanos(setAt.Add(-time.Minute)), "429", toNanos(hold),
		"calm.example", int64(time.Second), toNanos(setAt)); err != nil {
		t.Fatal(err)
	}
	raw.Close()

	db, err := Open(path)
	if err != nil {
		t.Fatalf("Open a version 2 database: %v", err)
	}
	defer db.Close()
	sts, err := db.States()
	if err != nil || len(sts) != 2 {
		t.Fatalf("States after migrating = %+v, %v; want two", sts, err)
	}
	calm, old := sts[0], sts[1]
	if old.Delay != 4*time.Second || !old.SetAt.Equal(setAt) || old.CongestionDelay != time.Second || !old.HoldUntil.Equal(hold) {
		t.Errorf("old.example after migrating = %+v, want its delay, time, congestion and hold kept", old)
	}
	if !old.SignalAt.Equal(setAt.Add(-time.Minute)) || !calm.SignalAt.IsZero() {
		t.Errorf("SignalAt = %v and %v, want the congestion's time and none", old.SignalAt, calm.SignalAt)
	}
	for _, st := range sts {
		if st.HalfLife != 0 || st.SafeGap != 0 || st.RefusedGap != 0 || !st.LearnedAt.IsZero() || st.LearnedHalfLife != 0 || st.HoldReason != "" {
			t.Errorf("%s: new fields = %+v, want zero", st.Host, st)
		}
	}
	var v int
	if err := db.w.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil || v != 3 || len(migrations) != 3 {
		t.Errorf("user_version = %d, %v; want 3 (of %d migrations)", v, err, len(migrations))
	}
}
