package store

import (
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
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
	if err := db.c.w.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil || v != len(migrations) {
		t.Errorf("user_version = %d, %v; want %d", v, err, len(migrations))
	}
}

// A database of schema 2 (before heartbeats) holding the lock of a crawl
// on another machine and a run that never ended migrates; the lock, silent
// since it was taken, is taken over once frontier.Stale has passed, and the run
// shows as died.
func TestOpenMigratesSchema2WithAStaleLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v2.db")
	raw, err := sql.Open("sqlite", dsn(path, true))
	if err != nil {
		t.Fatal(err)
	}
	since := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, q := range []string{migrations[0], migrations[1], `PRAGMA user_version = 2`} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("build a version 2 database: %v", err)
		}
	}
	if _, err := raw.Exec(`INSERT INTO lock (id, pid, hostname, job, since) VALUES (1, 4242, 'elsewhere', 'nightly', ?)`, toNanos(since)); err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`INSERT INTO runs (job, started_at) VALUES ('nightly', ?)`, toNanos(since)); err != nil {
		t.Fatal(err)
	}
	raw.Close()

	db, err := Open(path)
	if err != nil {
		t.Fatalf("Open a version 2 database: %v", err)
	}
	defer db.Close()
	rs, err := db.Runs(0)
	if err != nil || len(rs) != 1 {
		t.Fatalf("Runs = %v, %v", rs, err)
	}
	if rs[0].Died(since.Add(time.Minute)) || !rs[0].Died(since.Add(frontier.Stale+time.Second)) {
		t.Errorf("run %+v: want running a minute in, died past frontier.Stale", rs[0])
	}
	me := frontier.Holder{PID: 1, Hostname: "here", Job: "nightly"}
	db.Now = func() time.Time { return since.Add(time.Minute) }
	if err := db.Acquire(me); err == nil {
		t.Fatalf("Acquire a minute after the old lock was taken: nil, want locked")
	}
	var warned string
	db.Warn = func(s string) { warned = s }
	db.Now = func() time.Time { return since.Add(frontier.Stale + time.Second) }
	if err := db.Acquire(me); err != nil {
		t.Fatalf("Acquire past frontier.Stale: %v", err)
	}
	if want := "pid 4242 on elsewhere"; !strings.Contains(warned, want) {
		t.Errorf("warning %q does not name the old holder %q", warned, want)
	}
	if err := db.Heartbeat(me, rs[0].ID); err != nil {
		t.Errorf("Heartbeat of the new holder: %v", err)
	}
	if err := db.Heartbeat(frontier.Holder{PID: 4242, Hostname: "elsewhere"}, 0); !errors.Is(err, frontier.ErrLockLost) {
		t.Errorf("Heartbeat of the old holder = %v, want ErrLockLost", err)
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
	if err := db.c.w.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil || v != len(migrations) {
		t.Errorf("user_version = %d, %v; want %d", v, err, len(migrations))
	}
}

// A database of schema version 4 (the last before WARC captures) opens in
// this polite: its frontier rows keep what they had and have no capture;
// a capture recorded after the migration reads back whole.
func TestOpenMigratesAVersion4Database(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v4.db")
	raw, err := sql.Open("sqlite", dsn(path, true))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range append(append([]string{}, migrations[:4]...), `PRAGMA user_version = 4`) {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("build a version 4 database: %v", err)
		}
	}
	if _, err := raw.Exec(`INSERT INTO frontier (job, url, host, state, next_at, etag, file, sha256, bytes)
		VALUES ('j', 'http://a.example/', 'a.example', 'done', 0, '"v1"', 'a.example/index.html', 'abc', 3)`); err != nil {
		t.Fatal(err)
	}
	raw.Close()

	db, err := Open(path)
	if err != nil {
		t.Fatalf("Open a version 4 database: %v", err)
	}
	defer db.Close()
	e, err := db.Get("j", "http://a.example/")
	if err != nil {
		t.Fatalf("Get after migrating: %v", err)
	}
	if e.ETag != `"v1"` || e.File != "a.example/index.html" || e.SHA256 != "abc" || e.Bytes != 3 {
		t.Errorf("entry after migrating = %+v, want its validators and file kept", e)
	}
	if e.WarcID != "" || !e.WarcDate.IsZero() || e.WarcDigest != "" {
		t.Errorf("capture after migrating = %q %v %q, want none", e.WarcID, e.WarcDate, e.WarcDigest)
	}
	at := time.Date(2026, 3, 4, 5, 6, 7, 89, time.UTC)
	e.WarcID, e.WarcDate, e.WarcDigest = "<urn:uuid:0b5e7c1a-0000-4000-8000-000000000001>", at, "sha256:ABC"
	if _, err := db.Record("j", nil, []frontier.Entry{e}, nil); err != nil {
		t.Fatalf("Record a capture: %v", err)
	}
	got, err := db.Get("j", "http://a.example/")
	if err != nil {
		t.Fatal(err)
	}
	if got.WarcID != e.WarcID || !got.WarcDate.Equal(at) || got.WarcDigest != e.WarcDigest {
		t.Errorf("capture = %q %v %q, want %q %v %q", got.WarcID, got.WarcDate, got.WarcDigest, e.WarcID, at, e.WarcDigest)
	}
	var v int
	if err := db.c.w.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil || v != len(migrations) {
		t.Errorf("user_version = %d, %v; want %d", v, err, len(migrations))
	}
}

// A migration that fails leaves the database as it was: the versions
// before it are not half applied. Here migration 9 meets a pace_groups
// table of the database's own, so a version 4 database stays version 4,
// without the tables of migrations 5 to 8, and says which step failed.
func TestOpenAFailedMigrationLeavesTheSchemaAsItWas(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v4.db")
	raw, err := sql.Open("sqlite", dsn(path, true))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	for _, q := range append(append([]string{}, migrations[:4]...), `PRAGMA user_version = 4`, `CREATE TABLE pace_groups (x TEXT)`) {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("build a version 4 database: %v", err)
		}
	}

	db, err := Open(path)
	if err == nil {
		db.Close()
		t.Fatal("Open migrated a database whose migration 9 cannot apply")
	}
	if !strings.Contains(err.Error(), "migrate to version 9") || !strings.Contains(err.Error(), path) {
		t.Errorf("error = %v; want it to name the file and version 9", err)
	}
	var v, seedSources int
	if err := raw.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil || v != 4 {
		t.Errorf("user_version = %d, %v; want 4", v, err)
	}
	if err := raw.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name = 'seed_sources'`).Scan(&seedSources); err != nil || seedSources != 0 {
		t.Errorf("seed_sources tables = %d, %v; want none (migration 8 undone)", seedSources, err)
	}
}
