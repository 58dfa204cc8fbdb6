package crawl_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/crawltest"
)

// A run whose report.json cannot be written (here a folder stands in its
// place; a full disk does the same) fails with the error, and its summary
// does not point at the reports it did not write.
func TestSummaryNamesNoUnwrittenReport(t *testing.T) {
	t.Parallel()
	var cfg crawl.Config
	clk := onFakeClock(t, &cfg)
	_, srv := serve(t, crawltest.Config{Pages: 2, Clock: clk})
	cfg = fastConfig(t, srv.URL+"/page/0")
	cfg.Clock = clk
	if err := os.MkdirAll(filepath.Join(cfg.OutDir, "report.json", "in-the-way"), 0o755); err != nil {
		t.Fatal(err)
	}
	rep, err := crawl.Run(context.Background(), mustOpen(t), cfg)
	if err == nil || rep == nil {
		t.Fatalf("Run = %v, %v; want a report and the error of report.json", rep, err)
	}
	var text strings.Builder
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if s := text.String(); strings.Contains(s, "(report.html, report.json") || !strings.Contains(s, "report.json and report.html could not be written") {
		t.Errorf("summary:\n%s\nwant it to say the reports could not be written, and point at none", s)
	}
}

// The WARC file whose index a run could not write (its disk filled, or
// it was killed) gets it from the next run: the same index, read back
// from the file.
func TestNextRunIndexesTheWarcFileLeftWithout(t *testing.T) {
	t.Parallel()
	var cfg crawl.Config
	clk := onFakeClock(t, &cfg)
	_, srv := serve(t, crawltest.Config{Pages: 3, Links: 2, Clock: clk})
	cfg = fastConfig(t, srv.URL+"/page/0")
	cfg.Clock, cfg.Warc, cfg.Depth = clk, true, 5
	db := mustOpen(t)
	if _, err := crawl.Run(context.Background(), db, cfg); err != nil {
		t.Fatal(err)
	}
	indexes, _ := filepath.Glob(filepath.Join(cfg.OutDir, "warc", "*.cdxj"))
	if len(indexes) != 1 {
		t.Fatalf("run 1 left indexes %v, want 1", indexes)
	}
	want, err := os.ReadFile(indexes[0])
	if err != nil || len(want) == 0 {
		t.Fatalf("run 1's index: %q, %v", want, err)
	}
	if err := os.Remove(indexes[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := crawl.Run(context.Background(), db, cfg); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(indexes[0]); err != nil || string(got) != string(want) {
		t.Errorf("run 1's index after run 2 (%v):\n%s\nwant as run 1 wrote it:\n%s", err, got, want)
	}
}
