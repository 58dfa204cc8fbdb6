package store

import (
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// A database of schema 4 (before seed sources) migrates: its frontier is
// kept, and a job has no seed source until one is stored.
func TestOpenMigratesAVersion4DatabaseToSeedSources(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v4.db")
	raw, err := sql.Open("sqlite", dsn(path, true))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range append(append([]string{}, migrations[:4]...), `PRAGMA user_version = 4`,
		`INSERT INTO frontier (job, url, host, state) VALUES ('nightly', 'https://a.example/', 'a.example', 'queued')`) {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("build a version 4 database: %v", err)
		}
	}
	raw.Close()

	db, err := Open(path)
	if err != nil {
		t.Fatalf("Open a version 4 database: %v", err)
	}
	defer db.Close()
	if counts, err := db.Counts("nightly"); err != nil || counts[frontier.Queued] != 1 {
		t.Errorf("Counts after migrating = %v, %v; want the queued entry kept", counts, err)
	}
	if s, ok, err := db.SeedSource("nightly"); ok || err != nil {
		t.Errorf("SeedSource after migrating = %+v, %v, %v; want none", s, ok, err)
	}
	var v int
	if err := db.c.w.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil || v != len(migrations) || v < 8 {
		t.Errorf("user_version = %d, %v; want %d (at least 8)", v, err, len(migrations))
	}
}
