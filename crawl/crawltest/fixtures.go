package crawltest

// The fixtures of crawl's end-to-end tests (crawl's own test package and
// crawl/e2etest): a fast configuration, a migrated database in a temporary
// folder, a test origin closed with the test, and a --sitemaps crawl on a
// fake clock.

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/clock"
	"github.com/polite-crawler/polite/crawl/report"
	"github.com/polite-crawler/polite/crawl/seeds"
	"github.com/polite-crawler/polite/store"
)

// FastConfig is a crawl configuration with delays short enough for tests.
func FastConfig(t testing.TB, urls ...string) crawl.Config {
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
	cfg.Seeds = seeds.Lines("seeds", urls...)
	return cfg
}

// OnClock runs cfg on clk, which moves to the next timer whenever the run
// waits on time alone, so that what would take seconds of pacing,
// Retry-After or --max-duration takes milliseconds.
func OnClock(t testing.TB, cfg *crawl.Config, clk *clock.Fake) {
	t.Helper()
	cfg.Clock = clk
	t.Cleanup(clk.Auto())
}

// OpenDB opens a new database in a temporary folder, closed when the test
// ends.
func OpenDB(t testing.TB) *store.DB {
	t.Helper()
	path := filepath.Join(t.TempDir(), "polite.db")
	if err := os.WriteFile(path, migratedDB(t), 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// migrated holds a new database file at the current schema, made once:
// running the migrations is most of the CPU a small crawl test costs
// under -race, and every OpenDB starts from the same empty database.
var migrated struct {
	once  sync.Once
	bytes []byte
	err   error
}

func migratedDB(t testing.TB) []byte {
	t.Helper()
	migrated.once.Do(func() {
		dir, err := os.MkdirTemp("", "polite-crawl-test-")
		if err != nil {
			migrated.err = err
			return
		}
		defer os.RemoveAll(dir)
		path := filepath.Join(dir, "polite.db")
		db, err := store.Open(path)
		if err != nil {
			migrated.err = err
			return
		}
		if migrated.err = db.Close(); migrated.err != nil {
			return
		}
		if _, err := os.Stat(path + "-wal"); err == nil {
			migrated.err = fmt.Errorf("%s-wal left after close: the file alone is not the database", path)
			return
		}
		migrated.bytes, migrated.err = os.ReadFile(path)
	})
	if migrated.err != nil {
		t.Fatalf("a migrated database to copy: %v", migrated.err)
	}
	return migrated.bytes
}

// Start starts a test origin on loopback, closed when the test ends.
func Start(t testing.TB, cfg Config) (*Origin, *httptest.Server) {
	t.Helper()
	o, srv := Serve(cfg)
	t.Cleanup(srv.Close)
	return o, srv
}

// SitemapCrawl runs one --sitemaps crawl of the origin's root on a fake
// clock starting at t0 (the wall clock's now when zero), and returns its
// report. A pass after another starts after the other's end: the fake
// clock runs ahead of the wall clock whenever the run waits.
func SitemapCrawl(t testing.TB, db *store.DB, base, out string, t0 time.Time) *report.Report {
	t.Helper()
	cfg := FastConfig(t, base+"/")
	cfg.OutDir = out
	cfg.Sitemaps = true
	cfg.SeedTx, cfg.Trim = db.SeedLoads, db
	if t0.IsZero() {
		t0 = time.Now()
	}
	OnClock(t, &cfg, clock.NewFake(t0))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	rep, err := crawl.Run(ctx, db, cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return rep
}

// SitemapStats returns the report's figures of the sitemap whose URL ends
// in path; nil when none does.
func SitemapStats(rep *report.Report, path string) *report.SitemapStats {
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
