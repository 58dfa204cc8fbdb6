package store

import (
	"database/sql"
	"path/filepath"
	"reflect"
	"testing"
	"time"

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
	if err := db.w.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil || v != len(migrations) || v < 8 {
		t.Errorf("user_version = %d, %v; want %d (at least 8)", v, err, len(migrations))
	}
}

func TestSeedSourceRoundTrip(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "polite.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	at := time.Date(2026, 12, 1, 9, 0, 0, 123456789, time.UTC)
	first := frontier.SeedSource{Job: "j", Name: "/srv/seeds.txt", Size: 1234, ModTime: at, SHA256: "ab12",
		Seeds: 40, Origins: []string{"http://127.0.0.1:8080", "https://a.example:443"}, LoadedAt: at.Add(time.Second)}
	second := first
	second.Size, second.SHA256, second.Origins = 99, "cd34", nil
	tests := []struct {
		name string
		put  frontier.SeedSource
	}{
		{"first", first},
		{"replaced, no origins", second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := db.PutSeedSource(tt.put); err != nil {
				t.Fatalf("PutSeedSource: %v", err)
			}
			got, ok, err := db.SeedSource("j")
			if !ok || err != nil || !reflect.DeepEqual(got, tt.put) {
				t.Errorf("SeedSource = %+v, %v, %v; want %+v", got, ok, err, tt.put)
			}
		})
	}
	if _, ok, err := db.SeedSource("other"); ok || err != nil {
		t.Errorf("SeedSource of another job = %v, %v; want none", ok, err)
	}
	if err := db.PutSeedSource(frontier.SeedSource{Job: "j", Origins: []string{"a\nb"}}); err == nil {
		t.Errorf("PutSeedSource with a newline in an origin: nil, want an error")
	}
}
