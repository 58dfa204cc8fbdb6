package crawl_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/frontier"
)

// A wait an older polite stored in the frontier (a Retry-After to 2036) is
// bounded by --max-hold on the next run, once and for good: that run
// leaves the host alone and logs the cut, the entries keep now+max-hold,
// a run after the bound fetches them.
func TestStoredWaitBoundedByMaxHold(t *testing.T) {
	t.Parallel()
	web := newFakeWeb(t)
	s, srv := answeringSite(web, "held.example", func(string, int) (int, string) { return 200, "" })
	cfg := fastConfig(t, srv.URL+"/p1", srv.URL+"/p2")
	cfg.Pace.MaxHold = 2 * time.Hour
	cfg.Pace.MaxRetryAfter = time.Minute
	var logs bytes.Buffer
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	web.use(&cfg)
	clk := web.clk
	db := mustOpen(t)
	far := time.Date(2036, 1, 1, 0, 0, 0, 0, time.UTC)
	host := srv.key()
	var es []frontier.Entry
	for _, sd := range cfg.Seeds.Lines {
		es = append(es, frontier.Entry{URL: mustNormalize(t, sd), Host: host, State: frontier.Deferred, NextAt: far})
	}
	if _, err := db.Enqueue(cfg.Job, es); err != nil {
		t.Fatal(err)
	}

	t0 := clk.Now()
	rep, err := crawl.Run(context.Background(), db, cfg)
	if err != nil {
		t.Fatalf("first run: %v", err)
	}
	if n := s.total(); n != 0 {
		t.Errorf("first run made %d requests to a host held by a stored wait; want 0", n)
	}
	if len(rep.Hosts) != 1 || !strings.HasPrefix(rep.Hosts[0].Stopped.String(), "deferred") {
		t.Errorf("first run: hosts %+v, want one deferred", rep.Hosts)
	}
	if got := strings.Count(logs.String(), "stored hold cut"); got != 1 {
		t.Errorf("log says %q %d times, want once:\n%s", "stored hold cut", got, logs.String())
	}
	for _, sd := range cfg.Seeds.Lines {
		e := mustGet(t, db, cfg.Job, sd)
		if lo, hi := t0.Add(2*time.Hour), clk.Now().Add(2*time.Hour); e.NextAt.Before(lo) || e.NextAt.After(hi) {
			t.Errorf("%s next_at %v, want within --max-hold of the run: %v..%v", sd, e.NextAt, lo, hi)
		}
	}
	st, ok, err := db.Load(host)
	if err != nil || !ok || st.HoldUntil.After(clk.Now().Add(2*time.Hour)) || st.HoldUntil.Before(t0.Add(2*time.Hour)) {
		t.Errorf("pace state hold %v (%v, %v), want the bound, so that status shows it", st.HoldUntil, ok, err)
	}

	// Within the bound, a run still leaves the host alone, and cuts nothing more.
	clk.Advance(time.Hour)
	logs.Reset()
	if _, err := crawl.Run(context.Background(), db, cfg); err != nil {
		t.Fatalf("second run: %v", err)
	}
	if n := s.total(); n != 0 || strings.Contains(logs.String(), "stored hold cut") {
		t.Errorf("second run, within the bound: %d requests, log:\n%s\nwant 0 requests and no cut", n, logs.String())
	}

	// Past the bound, the URLs are fetched.
	clk.Advance(time.Hour + time.Minute)
	rep, err = crawl.Run(context.Background(), db, cfg)
	if err != nil {
		t.Fatalf("third run: %v", err)
	}
	if s.count("/p1") != 1 || s.count("/p2") != 1 || rep.Totals.Done != 2 {
		t.Errorf("third run, past the bound: /p1 %d, /p2 %d requests, %d done; want 1, 1, 2", s.count("/p1"), s.count("/p2"), rep.Totals.Done)
	}
}
