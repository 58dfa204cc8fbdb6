package e2etest

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/crawltest"
	"github.com/polite-crawler/polite/crawl/fakeclock"
	"github.com/polite-crawler/polite/store"
)

// fastConfig is a crawl configuration with delays short enough for tests
// (crawl's own tests use the same).
func fastConfig(t *testing.T, seeds ...string) crawl.Config {
	t.Helper()
	cfg := crawl.DefaultConfig()
	cfg.Job = "test"
	cfg.OutDir = filepath.Join(t.TempDir(), "out")
	cfg.UserAgent = "polite-test/1.0"
	cfg.Pace.Floor = 5 * time.Millisecond
	cfg.Pace.Start = 20 * time.Millisecond
	cfg.Pace.Decrease = 5 * time.Millisecond
	cfg.Pace.Ceiling = 2 * time.Second
	cfg.Pace.Jitter = 0
	cfg.Timeout = 5 * time.Second
	cfg.Grace = 2 * time.Second
	cfg.Seeds = crawl.SeedLines("seeds", seeds...)
	return cfg
}

func mustOpen(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "polite.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func serve(t *testing.T, cfg crawltest.Config) (*crawltest.Origin, *httptest.Server) {
	t.Helper()
	o, srv := crawltest.Serve(cfg)
	t.Cleanup(srv.Close)
	return o, srv
}

// sitemapCrawl runs one --sitemaps crawl of the origin's root on a fake
// clock starting at the wall clock's now, and returns its report.
func sitemapCrawl(t *testing.T, db *store.DB, base, out string) *crawl.Report {
	t.Helper()
	cfg := fastConfig(t, base+"/")
	cfg.OutDir = out
	cfg.Sitemaps = true
	clk := fakeclock.New(time.Now())
	cfg.Clock = clk
	t.Cleanup(clk.Auto(5 * time.Millisecond))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	rep, err := crawl.Run(ctx, db, cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return rep
}

func sitemapStats(rep *crawl.Report, path string) *crawl.SitemapStats {
	if rep.Sitemaps == nil {
		return nil
	}
	for _, s := range rep.Sitemaps.Sitemaps {
		if strings.HasSuffix(s.URL, path) {
			return s
		}
	}
	return nil
}
