package robotscache

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/polite-crawler/polite/crawl/clock"
	"github.com/polite-crawler/polite/crawl/fetch"
	"github.com/polite-crawler/polite/crawl/urls"
	"github.com/polite-crawler/polite/crawl/usage"
	"github.com/polite-crawler/polite/pace"
	"github.com/polite-crawler/polite/robots"
)

// Options are what For needs of a crawl's settings.
type Options struct {
	Fetch      fetch.Options
	Pace       pace.Config
	Rand       func() float64           // jitter; nil for the pacer's own
	FloorHosts map[string]time.Duration // --floor-host
	TTL        time.Duration            // how long a copy is kept without Cache-Control
	Clock      clock.Clock              // nil: clock.Real
	// Usage, when it declares a purpose, is given the origin's
	// tdmrep.json too: the one kept with the copy, or fetched after
	// robots.txt as a crawl does (Chain.WithUsage).
	Usage *usage.Policy
}

// Source says where the rules For returned came from.
type Source struct {
	Host string // host key: the lower-cased host and any non-default port
	URL  string // the robots.txt asked for (or that the cached copy stands for)

	// How is what happened, as the run report words it: "cached", the
	// final status ("200", "404", "301" when redirects ran out), or
	// "unreachable (503)", "unreachable (timeout); using the copy of
	// 2025-01-02T03:04:05Z".
	How string

	Cached      bool // a fresh copy from the database: no request was made
	Unreachable bool // no usable answer and no usable copy: everything disallowed for now
	Stale       bool // unreachable, and an older copy stands in
	Requests    int  // robots.txt requests made, redirects included

	// TDMRep is how the origin's tdmrep.json was got for Options.Usage:
	// "cached", the answer's status ("404"), a failure ("timeout"), or
	// "not read" (robots.txt unreachable); "" when no purpose asks for it.
	TDMRep string

	FetchedAt time.Time // when the copy in use was fetched; zero when Unreachable
	Expires   time.Time // when it is fetched again; zero when not cached
}

// For returns the robots.txt rules of u's host the way a crawl with o gets
// them: a cached copy that has not expired, else a fetch of /robots.txt
// over u's scheme, redirects followed and paced, the answer interpreted by
// RFC 9309 and a fresh copy cached for o.TTL (or a shorter Cache-Control
// max-age).
//
// u counts as a seed: its host may be a loopback or private address. A
// host that is unreachable (5xx, 429, a network error or timeout) is not
// an error: an older copy younger than robots.MaxStale stands in if there
// is one, and otherwise the rules disallow everything and the source says
// Unreachable. The error is for a failing database or a cancelled ctx. db
// may be nil: nothing is cached then.
//
// Nothing is learned about the host's pacing: For reads the stored pace
// state but never writes it.
func For(ctx context.Context, db Cache, o Options, u *url.URL) (*robots.Robots, Source, error) {
	clk := o.Clock
	if clk == nil {
		clk = clock.Real{}
	}
	key := urls.Host(u)
	ru := &url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/robots.txt"}
	src := Source{Host: key, URL: ru.String()}
	now := clk.Now()
	f, err := fetch.New(o.Fetch, clk.Now) // a --ca-file that cannot be used is refused, cached copy or not
	if err != nil {
		return nil, src, err
	}
	defer f.Close()

	asked := o.Usage.NeedsTDMRep(key)
	rb, cached, err := CachedFor(db, key, now, o.Usage)
	if err != nil {
		return nil, src, err
	}
	if asked && !o.Usage.NeedsTDMRep(key) {
		src.TDMRep = "cached"
	}
	if rb != nil {
		src.How, src.Cached, src.FetchedAt, src.Expires = "cached", true, cached.FetchedAt, cached.Expires
		return rb, src, nil
	}
	p := pace.New(o.Pace, o.Rand)
	if db != nil {
		if st, ok, err := db.Load(key); err != nil {
			return nil, src, err
		} else if ok {
			p.Restore(st, now)
		}
	}
	for h, d := range o.FloorHosts {
		p.SetFloor(h, d, pace.FloorHost)
	}

	p.Begin(key, now)
	ch := fetchPaced(fetch.WithPrivateOK(ctx, true), f, p, clk, NewChain(ru).WithUsage(o.Usage))
	if err := ctx.Err(); err != nil {
		return nil, src, fmt.Errorf("fetch %s: %w", ru, err)
	}
	src.Requests = ch.Hops + 1
	switch t := ch.TDMRep; {
	case t != nil:
		src.TDMRep = describeStatus(t.Status, t.Reason)
	case asked && src.TDMRep == "":
		src.TDMRep = "not read"
	}
	now = clk.Now()
	rb, how, fresh, err := ch.Settle(db, key, cached, o.TTL, now)
	if err != nil {
		return nil, src, err
	}
	src.How = how
	switch {
	case fresh != nil:
		src.FetchedAt, src.Expires = fresh.FetchedAt, fresh.Expires
	case rb != nil:
		src.Stale, src.FetchedAt = true, cached.FetchedAt
	default:
		src.Unreachable = true
		rb = robots.FromResponse(ch.Status, ch.Body)
	}
	return rb, src, nil
}

// fetchPaced runs ch to its end in this goroutine, waiting on clk for p
// to allow each later request's host (the first request's pacing is the
// caller's).
func fetchPaced(ctx context.Context, f *fetch.Client, p *pace.Pacer, clk clock.Clock, ch *Chain) *Chain {
	for u := ch.URL(); ; {
		next := ch.Add(f.GetRobots(ctx, u))
		if next == nil {
			return ch
		}
		hk := urls.Host(next)
		for {
			wait := p.Ready(hk, clk.Now()).Sub(clk.Now())
			if wait <= 0 || !clock.Sleep(ctx, clk, wait) {
				break
			}
		}
		if ctx.Err() != nil {
			return ch
		}
		p.Begin(hk, clk.Now())
		u = next
	}
}
