package crawl_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/crawltest"
	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/store"
)

var errServerGone = errors.New("connection refused: the database server is gone")

// lostStore is a store whose server goes away after its first `after`
// writes of progress: from then on every write and every count fails,
// as a PostgreSQL server stopped mid-run does. What was written stays in
// the DB underneath, which the test reads afterwards.
type lostStore struct {
	*store.DB
	after, records int32
	gone           atomic.Bool
}

func (s *lostStore) Record(job string, added, changed []frontier.Entry, fetches []frontier.Fetch) (int, error) {
	if atomic.AddInt32(&s.records, 1) > s.after {
		s.gone.Store(true)
	}
	if s.gone.Load() {
		return 0, errServerGone
	}
	return s.DB.Record(job, added, changed, fetches)
}

func (s *lostStore) Counts(job string) (map[frontier.State]int, error) {
	if s.gone.Load() {
		return nil, errServerGone
	}
	return s.DB.Counts(job)
}

func (s *lostStore) QueuedHosts(job string) ([]frontier.HostQueue, error) {
	if s.gone.Load() {
		return nil, errServerGone
	}
	return s.DB.QueuedHosts(job)
}

// A run that loses its database mid-run fails with its error, and its
// report counts what waits for the next run as the database holds it
// (the URLs not settled, those the run settled but could not write
// included), not 0.
func TestLostStoreCountsWhatWaits(t *testing.T) {
	t.Parallel()
	var cfg crawl.Config
	clk := onFakeClock(t, &cfg)
	_, srv := serve(t, crawltest.Config{Pages: 40, Links: 3, Clock: clk})
	var seeds []string
	for i := range 40 {
		seeds = append(seeds, fmt.Sprintf("%s/page/%d", srv.URL, i))
	}
	cfg = fastConfig(t, seeds...)
	cfg.Clock = clk
	db := &lostStore{DB: mustOpen(t), after: 10}
	rep, err := crawl.Run(context.Background(), db, cfg)
	if !errors.Is(err, errServerGone) {
		t.Fatalf("Run = %v after %d records (%+v), want the lost server's error", err, db.records, rep.Totals)
	}
	if rep == nil {
		t.Fatal("no report")
	}
	counts, err := db.DB.Counts("test")
	if err != nil {
		t.Fatal(err)
	}
	want := frontier.Waiting(counts)
	if want < 20 || rep.Totals.Waiting != want {
		t.Errorf("report: %d waiting for the next run; the database holds %d waiting (%v)", rep.Totals.Waiting, want, counts)
	}
	var text strings.Builder
	if err := rep.WriteText(&text); err != nil || !strings.Contains(text.String(), fmt.Sprintf(" %d waiting for the next run", want)) {
		t.Errorf("summary (%v):\n%s\nwant %d waiting for the next run", err, text.String(), want)
	}
	if rep.ExitCode != crawl.ExitFailure {
		t.Errorf("exit %d, want %d", rep.ExitCode, crawl.ExitFailure)
	}
}
