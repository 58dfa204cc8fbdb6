package crawl

import (
	"net/url"
	"path/filepath"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/fetch"
	"github.com/polite-crawler/polite/crawl/report"
	"github.com/polite-crawler/polite/store"
)

// A breaker trip reaches the report as a pause on the host's timeline,
// with the cooldown as its span; calm answers add none.
func TestBreakerPauseReachesTheReport(t *testing.T) {
	t.Parallel()
	db, err := store.Open(filepath.Join(t.TempDir(), "polite.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	cfg := DefaultConfig()
	cfg.Job = "j"
	cfg.OutDir = filepath.Join(t.TempDir(), "out")
	cfg.Pace.Jitter = 0
	c, err := newCrawler(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.close)
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	sc := c.sc
	sc.start, sc.hosts.start = now, now
	u, _ := url.Parse("https://a.example/x")
	h := sc.hosts.get("a.example", now)
	// As pace's own breaker test: calm answers, then a run of answers just
	// over twice the median (under the latency signal's knee).
	answer := func(ttfb time.Duration) {
		now = now.Add(time.Second)
		if r := sc.pacer.Ready(h.key, now); r.After(now) {
			now = r
		}
		sc.pacer.Begin(h.key, now)
		sc.hosts.observe(h, result{host: h.key, url: u, start: now, resp: fetch.Response{Status: 200, TTFB: ttfb}}, now)
	}
	for range 20 {
		answer(100 * time.Millisecond)
	}
	if len(h.stats.Holds) != 0 {
		t.Fatalf("calm answers left pauses %+v, want none", h.stats.Holds)
	}
	var slowAt time.Time
	for i := range cfg.Pace.BreakerTrips {
		answer(220 * time.Millisecond)
		if i == cfg.Pace.BreakerTrips-1 {
			slowAt = now
		}
	}
	want := report.HoldMark{Kind: report.HoldMarkBreaker, AtS: slowAt.Sub(sc.start).Seconds(), SpanS: cfg.Pace.BreakerCooldown.Seconds()}
	if len(h.stats.Holds) != 1 || h.stats.Holds[0] != want {
		t.Errorf("pauses %+v, want one: %+v", h.stats.Holds, want)
	}
}
