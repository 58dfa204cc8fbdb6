package crawl_test

import (
	"testing"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/report"
)

// The report explains each exit code crawl names as the README does
// (report.ExitMeaning knows the codes by number).
func TestExitMeaning(t *testing.T) {
	t.Parallel()
	for code, want := range map[int]string{
		crawl.ExitOK:          "every URL fetched, unchanged, not due or excluded",
		crawl.ExitFailure:     "some URLs failed for good, a host was unreachable all run, its TLS was refused, or it refused polite (401, 403)",
		crawl.ExitUsage:       "usage or input error",
		crawl.ExitLocked:      "another crawl held the database",
		crawl.ExitHangup:      "ended by SIGHUP",
		crawl.ExitInterrupted: "interrupted by SIGINT",
		crawl.ExitBrokenPipe:  "ended by SIGPIPE",
		crawl.ExitTerminated:  "interrupted by SIGTERM",
	} {
		if got := report.ExitMeaning(code); got != want {
			t.Errorf("report.ExitMeaning(%d) = %q, want %q", code, got, want)
		}
	}
}
