package main

import (
	"context"
	"fmt"
	"time"

	"github.com/polite-crawler/polite/crawl/clock"
	"github.com/polite-crawler/polite/crawl/crawltest"
)

// The scenarios of issue 10: a nightly second run, a cold start over a
// short window, and twenty hosts over a long one.
const (
	nightlyHalfLives = 16               // the nightly run starts this many half-lives after the first ends
	coldWindow       = 40 * time.Second // unscaled window of the cold-start scenario
	longWindowFactor = 3                // the long twenty-host window, in -window
	shortWindow      = 30 * time.Second // unscaled: the twenty hosts' first seconds, judged apart
)

// offsetClock is the real clock moved forward by off: the nightly run
// lives hours after the first without the bench waiting for them. Its
// timers are the real clock's. The origins keep real time (a bucket is
// full after any pause).
type offsetClock struct {
	clock.Real
	off time.Duration
}

func (c offsetClock) Now() time.Time { return c.Real.Now().Add(c.off) }

// nightly crawls a token bucket for a first run, then starts a second run
// of new URLs with the same database nightlyHalfLives half-lives later
// (the backoff long decayed), and judges the second run: its first
// requests and its goodput over the run.
func (b *bench) nightly(ctx context.Context) error {
	cfg := scaled(crawltest.Config{Rate: limitRate, Burst: 1, OmitRetryAfter: true}, b.opts.scale)
	return b.eachPolicy("nightly", b.opts.scale, func(p policy) (row, error) {
		return b.nightlyOnce(ctx, cfg, p)
	})
}

func (b *bench) nightlyOnce(ctx context.Context, cfg crawltest.Config, p policy) (row, error) {
	r := newRow("nightly", p.name)
	sc := b.opts.scale
	dir, db, origins, done, err := scratch(1, cfg)
	if err != nil {
		return r, err
	}
	defer done()
	o := origins[0]
	throttled, err := b.firstRun(ctx, cfg, p, dir, db, o)
	if err != nil {
		return r, err
	}
	// A night refills the origin's bucket; the clock's offset does not.
	time.Sleep(scaleDur(2*time.Second, sc))

	win := b.opts.window(sc)
	second, err := crawlConfig(p, dir, "second", seedURLs(o.srv.URL, "/second/", urlsFor(cfg, win)), 1, win)
	if err != nil {
		return r, err
	}
	second.Clock = offsetClock{off: nightlyHalfLives * p.pace.HalfLife}
	s, err := crawlOnce(ctx, db, second)
	if err != nil {
		return r, err
	}
	t := count(origins, s.end)
	if t.pages < firstN {
		return r, fmt.Errorf("%s: the nightly run made %d page requests, want at least %d", p.name, t.pages, firstN)
	}
	r.goodput, r.per100, r.wall = t.goodput(), t.per100(), s.end.Sub(s.start)
	r.firstN, r.refused = t.firstN, t.refused
	r.note = fmt.Sprintf("first run: %d 429; second %d half-lives later", throttled, nightlyHalfLives)
	return r, nil
}

// coldStart runs every policy against a fresh token bucket over a short
// window: how fast, and with how few refusals, an unknown host's limit is
// found.
func (b *bench) coldStart(ctx context.Context) error {
	sc := b.opts.scale
	cfg := scaled(crawltest.Config{Rate: limitRate, Burst: 1, OmitRetryAfter: true}, sc)
	win := scaleDur(coldWindow, sc)
	name := fmt.Sprintf("cold start (%s)", coldWindow)
	b.progress("%s: %d policies side by side, up to %s", name, len(policies(sc)), win)
	return b.eachPolicy(name, sc, func(p policy) (row, error) {
		return b.measureWith(ctx, name, 1, cfg, 1, p, win, nil)
	})
}

// twentyHostsLong runs polite alone against twenty token buckets over a
// long window, and judges its first 30 s apart.
func (b *bench) twentyHostsLong(ctx context.Context) error {
	sc := b.opts.scale
	cfg := scaled(crawltest.Config{Rate: limitRate, Burst: 1, OmitRetryAfter: true}, sc)
	win := b.opts.window(sc) * longWindowFactor
	name := fmt.Sprintf("%d hosts, %s", manyHosts, b.opts.windowLen*longWindowFactor)
	p := policies(sc)[0]
	b.progress("%s: %s, up to %s", name, p.name, win)
	var short float64
	r, err := b.measureWith(ctx, name, manyHosts, cfg, 1, p, win, func(origins []*origin) {
		short = goodputOver(origins, scaleDur(shortWindow, sc))
	})
	if err != nil {
		return err
	}
	r.note = fmt.Sprintf("first %s: %.3f", shortWindow, short)
	r.short = short
	b.rows = append(b.rows, r)
	return nil
}

// goodputOver is the goodput of the first d after the first page request.
func goodputOver(origins []*origin, d time.Duration) float64 {
	var first time.Time
	for _, o := range origins {
		for _, r := range o.o.Stats().Log {
			if !isRobots(r.Path) && (first.IsZero() || r.At.Before(first)) {
				first = r.At
			}
		}
	}
	if first.IsZero() {
		return 0
	}
	return count(origins, first.Add(d)).goodput()
}
