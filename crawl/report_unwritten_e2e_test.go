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
