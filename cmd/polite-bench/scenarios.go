package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/polite-crawler/polite/crawl/crawltest"
	"github.com/polite-crawler/polite/store"
)

// eachPolicy runs fn for every policy at once, each against its own
// origins and database, and appends the rows in policy order. Running them
// side by side puts every policy under the same load of the machine; the
// pacing runs themselves need little CPU.
func (b *bench) eachPolicy(scenario string, scale float64, fn func(policy) (row, error)) error {
	ps := policies(scale)
	b.progress("%s: %d policies side by side, up to %s", scenario, len(ps), b.opts.window(scale))
	rows := make([]row, len(ps))
	errs := make([]error, len(ps))
	var wg sync.WaitGroup
	for i, p := range ps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rows[i], errs[i] = fn(p)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	b.rows = append(b.rows, rows...)
	return nil
}

// perPolicy runs every policy through one scenario of n origins.
func (b *bench) perPolicy(ctx context.Context, scenario string, n int, cfg crawltest.Config, perHost int, scale float64) error {
	return b.eachPolicy(scenario, scale, func(p policy) (row, error) {
		return b.measure(ctx, scenario, n, cfg, perHost, scale, p)
	})
}

func (b *bench) tokenBucket(ctx context.Context) error {
	sc := b.opts.scale
	cfg := scaled(crawltest.Config{Rate: limitRate, Burst: 1, OmitRetryAfter: true}, sc)
	// Beside the three policies, polite against the origin's own
	// Retry-After: at least 1 s, which the time scale turns into scale
	// seconds of the unscaled crawl.
	withRA := cfg
	withRA.OmitRetryAfter = false
	extra := make(chan error, 1)
	var extraRow row
	go func() {
		var err error
		extraRow, err = b.measure(ctx, "token bucket, Retry-After sent", 1, withRA, 1, sc, policies(sc)[0])
		extra <- err
	}()
	err := b.perPolicy(ctx, "token bucket", 1, cfg, 1, sc)
	if err := errors.Join(err, <-extra); err != nil {
		return err
	}
	b.rows = append(b.rows, extraRow)
	return nil
}

func (b *bench) queueing(ctx context.Context) error {
	cfg := scaled(crawltest.Config{Capacity: limitRate, QueueMax: queueMax, OmitRetryAfter: true}, b.opts.scale)
	return b.perPolicy(ctx, "queueing", 1, cfg, queuePerHost, b.opts.scale)
}

// rateLimit runs at its own, smaller scale: RateLimit-Reset is whole
// seconds, rounded up, and the time scale would make that rounding a
// scale times larger share of the reset.
func (b *bench) rateLimit(ctx context.Context) error {
	sc := b.opts.quotaScale()
	cfg := scaled(crawltest.Config{Rate: limitRate, Burst: quotaBurst, RateLimitHeaders: true, OmitRetryAfter: true}, sc)
	return b.perPolicy(ctx, b.opts.quotaScenario(), 1, cfg, 1, sc)
}

// quotaScale is the time scale of the RateLimit scenario.
func (o options) quotaScale() float64 { return min(o.scale, o.quotaScaleMax) }

func (o options) quotaScenario() string {
	return fmt.Sprintf("RateLimit headers (1:%g)", o.quotaScale())
}

// twentyHosts runs its policies one after the other: at 20 hosts the
// crawl's own CPU matters.
func (b *bench) twentyHosts(ctx context.Context) error {
	sc := b.opts.scale
	cfg := scaled(crawltest.Config{Rate: limitRate, Burst: 1, OmitRetryAfter: true}, sc)
	name := fmt.Sprintf("%d hosts at once", manyHosts)
	for _, p := range policies(sc) {
		b.progress("%s: %s, up to %s", name, p.name, b.opts.window(sc))
		r, err := b.measure(ctx, name, manyHosts, cfg, 1, sc, p)
		if err != nil {
			return err
		}
		b.rows = append(b.rows, r)
	}
	return nil
}

// firstRun crawls o, a token bucket, for the first share of the window
// with p, then resets the origin's counters; it returns the 429s the run
// earned. The second-run scenarios start from what it left in db.
func (b *bench) firstRun(ctx context.Context, cfg crawltest.Config, p policy, dir string, db *store.DB, o *origin) (int, error) {
	firstWin := time.Duration(float64(b.opts.window(b.opts.scale)) * firstRunShare)
	first, err := crawlConfig(p, dir, "first", seedURLs(o.srv.URL, "/first/", urlsFor(cfg, firstWin)), 1, firstWin)
	if err != nil {
		return 0, err
	}
	if _, err := crawlOnce(ctx, db, first); err != nil {
		return 0, err
	}
	throttled := o.o.Stats().ByStatus[http.StatusTooManyRequests]
	o.o.Reset()
	return throttled, nil
}

// secondRun crawls a token bucket long enough to be throttled, then at once
// starts a second run of new URLs with the same database against the same
// origin (whose bucket is as the first run left it), and judges the second
// run's first requests.
func (b *bench) secondRun(ctx context.Context) error {
	cfg := scaled(crawltest.Config{Rate: limitRate, Burst: 1, OmitRetryAfter: true}, b.opts.scale)
	return b.eachPolicy("second run", b.opts.scale, func(p policy) (row, error) {
		return b.secondRunOnce(ctx, cfg, p)
	})
}

func (b *bench) secondRunOnce(ctx context.Context, cfg crawltest.Config, p policy) (row, error) {
	r := newRow("second run", p.name)
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

	// Long enough for the fixed delay to reach the end of the URLs.
	bound := max(b.opts.window(sc), scaleDur(fixedDelay*secondURLs*3/2, sc))
	second, err := crawlConfig(p, dir, "second", seedURLs(o.srv.URL, "/second/", secondURLs), 1, bound)
	if err != nil {
		return r, err
	}
	s, err := crawlOnce(ctx, db, second)
	if err != nil {
		return r, err
	}
	t := count(origins, s.end)
	if t.pages < firstN {
		return r, fmt.Errorf("%s: the second run made %d page requests, want at least %d", p.name, t.pages, firstN)
	}
	r.goodput, r.per100, r.wall = t.goodput(), t.per100(), s.end.Sub(s.start)
	r.firstN, r.refused = t.firstN, t.refused
	r.note = fmt.Sprintf("first run: %d 429", throttled)
	return r, nil
}
