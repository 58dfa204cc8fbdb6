package main

import (
	"context"
	"fmt"

	"github.com/polite-crawler/polite/crawl/crawltest"
	"github.com/polite-crawler/polite/crawl/hostgroup"
)

// The shared-server scenario (issue 28): one origin process on
// sharedPorts ports, sharing one token bucket of sharedServerRate
// requests per second: one machine behind several sites.
const (
	sharedPorts      = 10
	sharedServerRate = 2.0 // requests per second, all ports together
)

// sharedServerScenario names the scenario's rows.
var sharedServerScenario = fmt.Sprintf("one server on %d ports (%s)", sharedPorts, coldWindow)

// The policies of the scenario's rows: polite paced by ip (one pace for
// the server) and by host (the default: one pace per port).
const (
	policyByIP   = "polite --pace-by ip"
	policyByHost = "polite (by host)"
)

// sharedServer crawls the server's ports from a cold start over the
// cold-start window (time-scaled as the other pacing scenarios are), paced
// by ip, then by host on a fresh server: one after the other, as the
// twenty hosts run, since paced by host ten paces hammer the server at
// once and the crawl's own CPU would be the other run's noise.
func (b *bench) sharedServer(ctx context.Context) error {
	sc := b.opts.scale
	cfg := scaled(crawltest.Config{Rate: sharedServerRate, Burst: 1, OmitRetryAfter: true}, sc)
	for _, by := range []hostgroup.By{hostgroup.ByIP, hostgroup.ByHost} {
		b.progress("%s: paced by %s, up to %s", sharedServerScenario, by, scaleDur(coldWindow, sc))
		r, err := b.sharedServerOnce(ctx, cfg, by)
		if err != nil {
			return err
		}
		b.rows = append(b.rows, r)
	}
	return nil
}

// sharedServerOnce runs polite paced by by against a fresh server on
// sharedPorts ports, every port seeded with more URLs than the whole
// server allows in the window.
func (b *bench) sharedServerOnce(ctx context.Context, cfg crawltest.Config, by hostgroup.By) (row, error) {
	name := policyByHost
	if by == hostgroup.ByIP {
		name = policyByIP
	}
	r := newRow(sharedServerScenario, name)
	dir, db, done, err := scratchDB()
	if err != nil {
		return r, err
	}
	defer done()
	o, srvs := crawltest.ServePorts(cfg, sharedPorts)
	defer func() {
		for _, s := range srvs {
			s.Close()
		}
	}()
	win := scaleDur(coldWindow, b.opts.scale)
	var seeds []string
	for _, s := range srvs {
		seeds = append(seeds, seedURLs(s.URL, "/doc/", urlsFor(cfg, win))...)
	}
	ccfg, err := crawlConfig(policies(b.opts.scale)[0], dir, "bench", seeds, 1, win)
	if err != nil {
		return r, err
	}
	ccfg.PaceBy = by
	s, err := crawlOnce(ctx, db, ccfg)
	if err != nil {
		return r, err
	}
	t := count([]*origin{{cfg: cfg, o: o, srv: srvs[0]}}, s.end)
	if t.pages == 0 { // as in measure: a window too short for the machine's load
		r.wall, r.note = s.end.Sub(s.start), "no page request reached the server in the window"
		return r, nil
	}
	r.goodput, r.per100, r.wall, r.refused = t.goodput(), t.per100(), s.end.Sub(s.start), t.refused
	r.note = fmt.Sprintf("%d ports sharing %g req/s", sharedPorts, sharedServerRate)
	return r, nil
}
