package crawl_test

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/clock"
	"github.com/polite-crawler/polite/crawl/crawltest"
	"github.com/polite-crawler/polite/crawl/frontier"
)

// TestClosedPortGivesUpAfterThreeTries: a host whose port is closed is
// tried 3 times, the run ends within 30 s of the first refusal with the
// default flags, the host is named as giving nothing, and its URLs wait
// for the next run instead of going dead. The other host is crawled.
func TestClosedPortGivesUpAfterThreeTries(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	const down, up = "http://down.example", "http://up.example"
	cfg := crawl.DefaultConfig()
	base := fastConfig(t, down+"/a", down+"/b", up+"/")
	cfg.Job, cfg.OutDir, cfg.UserAgent, cfg.Seeds = base.Job, base.OutDir, base.UserAgent, base.Seeds
	cfg.Fetcher = &crawltest.Fetcher{Clock: clk, Handler: crawltest.New(crawltest.Config{Clock: clk}),
		Latency: time.Millisecond, Refuse: func(u *url.URL) bool { return u.Host == "down.example" }}
	crawltest.OnClock(t, &cfg, clk)
	db := mustOpen(t)

	start := clk.Now()
	rep, err := crawl.Run(context.Background(), db, cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	var tries []time.Time
	for _, r := range cfg.Fetcher.(*crawltest.Fetcher).Requests() {
		if u, _ := url.Parse(r.URL); u.Host == "down.example" {
			tries = append(tries, r.At)
		}
	}
	if len(tries) != 3 {
		t.Fatalf("the closed port was tried %d times, want 3", len(tries))
	}
	if el := clk.Since(tries[0]); el > 30*time.Second {
		t.Errorf("the run ended %s after the first refusal (%s after its start), want at most 30s", el, tries[0].Sub(start))
	}
	h := hostReport(t, rep, "down.example")
	if h.Stopped != frontier.StopUnreachable || !h.GaveNothing() || rep.ExitCode != crawl.ExitFailure {
		t.Errorf("down host stopped %q (gave nothing %v), exit %d; want unreachable, true, 1", h.Stopped, h.GaveNothing(), rep.ExitCode)
	}
	for _, u := range []string{down + "/a", down + "/b"} {
		if e := mustGet(t, db, cfg.Job, u); e.State == frontier.Dead {
			t.Errorf("%s is dead after the host refused connections, want it kept for the next run", u)
		}
	}
	if e := mustGet(t, db, cfg.Job, up+"/"); e.State != frontier.Done {
		t.Errorf("%s: %s, want done", up+"/", e.State)
	}
	if ns := rep.Attention(false); len(ns) != 1 || ns[0].Msg != "host gave no page all run" {
		t.Errorf("attention %+v, want the down host alone", ns)
	}
}
