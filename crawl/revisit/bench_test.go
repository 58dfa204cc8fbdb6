package revisit

import (
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// nightsResult is what a simulation of nightly runs counts.
type nightsResult struct {
	requests, changes, caughtSame, caughtTwo int
}

// simulateNights runs pages nightly crawls of a site whose pages change
// at mixed rates (5% every night, 15% once a week on average, the rest
// never), each night's changes drawn from a fixed seed, and counts the
// requests p asks for and the changes caught the night they happened and
// within two nights. Only the schedule is simulated: no HTTP.
func simulateNights(p Policy, pages, nights int) nightsResult {
	rng := rand.New(rand.NewSource(1))
	t0 := time.Date(2026, 3, 1, 2, 0, 0, 0, time.UTC)
	rate := make([]float64, pages)
	for i := range rate {
		switch {
		case i < pages*5/100:
			rate[i] = 1
		case i < pages*20/100:
			rate[i] = 1.0 / 7
		}
	}
	entries := make([]frontier.Entry, pages)
	version := make([]int, pages)
	pending := make([]int, pages) // the night of the oldest change not yet fetched, -1 if none
	var res nightsResult
	for i := range pending {
		pending[i] = -1
	}
	for n := range nights {
		now := t0.Add(time.Duration(n) * 24 * time.Hour)
		_, dueBy := p.DueBy(now)
		for i := range entries {
			if n > 0 && rng.Float64() < rate[i] {
				version[i]++
				res.changes++
				if pending[i] < 0 {
					pending[i] = n
				}
			}
			e := &entries[i]
			if n > 0 && !dueBy.IsZero() && e.Revisit.DueAt.After(dueBy) {
				continue
			}
			res.requests++
			if pending[i] >= 0 {
				switch {
				case pending[i] == n:
					res.caughtSame++
					res.caughtTwo++
				case pending[i] == n-1:
					res.caughtTwo++
				}
				pending[i] = -1
			}
			sha := fmt.Sprint(version[i])
			e.Revisit = p.Observe(*e, 200, sha, now)
			e.FetchedAt, e.SHA256, e.LastStatus = now, sha, 200
		}
	}
	return res
}

// BenchmarkTenNights: requests over ten nights of a 500-page site against
// --revisit always, and the share of changes caught the night they
// happened and within two nights. The targets: at most 0.4 of
// the requests, at least 95% caught within two nights (with sitemap
// lastmod, which this simulation leaves out, every listed change the same
// night).
func BenchmarkTenNights(b *testing.B) {
	const pages, nights = 500, 10
	var adaptive, always nightsResult
	for range b.N {
		adaptive = simulateNights(Policy{Mode: Adaptive, Max: DefaultMax}, pages, nights)
		always = simulateNights(Policy{Mode: Always}, pages, nights)
	}
	b.ReportMetric(float64(adaptive.requests)/float64(always.requests), "requests/always")
	b.ReportMetric(float64(adaptive.caughtSame)/float64(max(adaptive.changes, 1)), "caught-same-night")
	b.ReportMetric(float64(adaptive.caughtTwo)/float64(max(adaptive.changes, 1)), "caught-within-2-nights")
}
