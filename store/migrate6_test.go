package store

import (
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// A database of schema version 4 (the last before sitemaps) opens in this
// polite: its entries keep what they had and are pages without a lastmod;
// then an entry takes a sitemap's kind and lastmod, and a lastmod listed
// anew replaces the stored one through Enqueue without adding a row.
func TestOpenMigratesAVersion4DatabaseToSitemaps(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v4.db")
	raw, err := sql.Open("sqlite", dsn(path, true))
	if err != nil {
		t.Fatal(err)
	}
	fetched := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, q := range append(append([]string{}, migrations[:4]...), `PRAGMA user_version = 4`) {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("build a version 4 database: %v", err)
		}
	}
	if _, err := raw.Exec(`INSERT INTO frontier (job, url, host, state, fetched_at, etag) VALUES (?, ?, ?, ?, ?, ?)`,
		"j", "http://a.example/old", "a.example", "done", toNanos(fetched), `"e1"`); err != nil {
		t.Fatal(err)
	}
	raw.Close()

	db, err := Open(path)
	if err != nil {
		t.Fatalf("Open a version 4 database: %v", err)
	}
	defer db.Close()
	var v int
	if err := db.c.w.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil || v != len(migrations) {
		t.Errorf("user_version = %d, %v; want %d", v, err, len(migrations))
	}
	old, err := db.Get("j", "http://a.example/old")
	if err != nil {
		t.Fatal(err)
	}
	if old.Kind != frontier.Page || !old.LastMod.IsZero() || !old.FetchedAt.Equal(fetched) || old.ETag != `"e1"` {
		t.Errorf("old entry after migrating = %+v, want a page without lastmod, its fetch kept", old)
	}

	lm := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	es := []frontier.Entry{
		{URL: "http://a.example/sitemap.xml", Host: "a.example", Kind: frontier.Sitemap},
		{URL: "http://a.example/old", Host: "a.example", LastMod: lm},
		{URL: "http://a.example/new", Host: "a.example", LastMod: lm.Add(time.Hour)},
	}
	n, err := db.Enqueue("j", es)
	if err != nil || n != 2 {
		t.Fatalf("Enqueue = %d, %v; want 2 new", n, err)
	}
	for _, tc := range []struct {
		name string
		url  string
		kind frontier.Kind
		lm   time.Time
	}{
		{"sitemap", "http://a.example/sitemap.xml", frontier.Sitemap, time.Time{}},
		{"existing page takes the lastmod", "http://a.example/old", frontier.Page, lm},
		{"new page", "http://a.example/new", frontier.Page, lm.Add(time.Hour)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := db.Get("j", tc.url)
			if err != nil {
				t.Fatal(err)
			}
			if e.Kind != tc.kind || !e.LastMod.Equal(tc.lm) {
				t.Errorf("kind, lastmod = %q, %v; want %q, %v", e.Kind, e.LastMod, tc.kind, tc.lm)
			}
		})
	}
	// Update (Record's changed entries) writes both columns back.
	e, _ := db.Get("j", "http://a.example/sitemap.xml")
	e.Kind, e.LastMod = frontier.SitemapChild, lm
	if err := db.Update([]frontier.Entry{e}); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.Get("j", e.URL); got.Kind != frontier.SitemapChild || !got.LastMod.Equal(lm) {
		t.Errorf("after Update: kind, lastmod = %q, %v; want %q, %v", got.Kind, got.LastMod, frontier.SitemapChild, lm)
	}
}
