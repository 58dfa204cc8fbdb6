package pace

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// The simulations drive a Pacer against a simulated origin on a virtual
// clock: no sleeping, no network, a few milliseconds per run.

// origin answers one request arriving at a virtual instant.
type origin interface {
	serve(at time.Time) (status int, ttfb, retryAfter time.Duration)
	limit() float64 // the sustainable rate, requests per second
}

// bucket is a token bucket: rate tokens per second, burst at most, starting
// full; a request finding less than one token gets 429 with Retry-After
// (whole seconds until the next token, at least 1) and consumes nothing.
type bucket struct {
	rate, burst float64
	tokens      float64
	last        time.Time
	latency     time.Duration
	noise       *rand.Rand
}

func newBucket(rate, burst float64, seed uint64) *bucket {
	return &bucket{rate: rate, burst: burst, tokens: burst, latency: 50 * time.Millisecond,
		noise: rand.New(rand.NewPCG(seed, 1))}
}

func (b *bucket) limit() float64 { return b.rate }

func (b *bucket) serve(at time.Time) (int, time.Duration, time.Duration) {
	if !b.last.IsZero() {
		b.tokens = min(b.burst, b.tokens+at.Sub(b.last).Seconds()*b.rate)
	}
	b.last = at
	ttfb := time.Duration(float64(b.latency) * (0.9 + 0.2*b.noise.Float64()))
	if b.tokens+1e-9 < 1 {
		wait := math.Max(1, math.Ceil((1-b.tokens)/b.rate))
		return 429, ttfb, time.Duration(wait) * time.Second
	}
	b.tokens--
	return 200, ttfb, 0
}

// queue is a server of capacity requests per second whose latency grows
// with its load before it refuses, as a queue's does: the load rho is the
// arrival rate over the last window over capacity, time to first byte is
// base/(1-rho) (the mean response time of an M/M/1 queue), and at rho >= 1
// it answers 503 with Retry-After: 1.
type queue struct {
	capacity float64
	window   time.Duration
	arrivals []time.Time
	latency  time.Duration
	noise    *rand.Rand
}

func newQueue(capacity float64, seed uint64) *queue {
	return &queue{capacity: capacity, window: 10 * time.Second, latency: 50 * time.Millisecond,
		noise: rand.New(rand.NewPCG(seed, 2))}
}

func (q *queue) limit() float64 { return q.capacity }

func (q *queue) serve(at time.Time) (int, time.Duration, time.Duration) {
	q.arrivals = append(q.arrivals, at)
	for len(q.arrivals) > 0 && at.Sub(q.arrivals[0]) >= q.window {
		q.arrivals = q.arrivals[1:]
	}
	rho := float64(len(q.arrivals)) / q.window.Seconds() / q.capacity
	base := time.Duration(float64(q.latency) * (0.9 + 0.2*q.noise.Float64()))
	if rho >= 1 {
		return 503, base, time.Second
	}
	return 200, time.Duration(float64(base) / (1 - rho)), 0
}

// fifo is the project's queueing origin (crawltest): one server of
// capacity requests per second serving in arrival order, each request
// waiting for the backlog ahead of it and then its own service time, and
// 503 (Retry-After: 1) at once when max requests already wait. The first
// request is robots.txt, which the queue does not apply to: a fast answer
// that must not fool the pacer about the pages.
type fifo struct {
	capacity float64
	max      int
	nextFree time.Time
	latency  time.Duration
	noise    *rand.Rand
	served   int
}

func newFIFO(capacity float64, max int, seed uint64) *fifo {
	return &fifo{capacity: capacity, max: max, latency: 5 * time.Millisecond, noise: rand.New(rand.NewPCG(seed, 4))}
}

func (q *fifo) limit() float64 { return q.capacity }

func (q *fifo) serve(at time.Time) (int, time.Duration, time.Duration) {
	service := time.Duration(float64(time.Second) / q.capacity)
	net := time.Duration(float64(q.latency) * (0.9 + 0.2*q.noise.Float64()))
	if q.served++; q.served == 1 {
		return 200, net, 0
	}
	if q.nextFree.Before(at) {
		q.nextFree = at
	}
	inSystem := int((q.nextFree.Sub(at) + service - 1) / service)
	if max(inSystem-1, 0) >= q.max {
		return 503, net, time.Second
	}
	q.nextFree = q.nextFree.Add(service)
	return 200, q.nextFree.Sub(at) + net, 0
}

// simResult is what one simulated crawl measured.
type simResult struct {
	requests, ok, refused int
	elapsed               time.Duration
	firstRefusal          int // request index of the first 429/503, -1 if none
	firstRaise            int // request index of the first raise by latency, -1 if none
	limit                 float64
	ttfbs                 []time.Duration // of successes
}

// goodput is successes per second as a fraction of the origin's limit.
func (r simResult) goodput() float64 {
	return float64(r.ok) / r.elapsed.Seconds() / r.limit
}

// per100 is refusals per 100 requests.
func (r simResult) per100() float64 { return 100 * float64(r.refused) / float64(r.requests) }

// p50 is the median time to first byte of the successes.
func (r simResult) p50() time.Duration {
	s := slices.Clone(r.ttfbs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

func (r simResult) String() string {
	return fmt.Sprintf("goodput %.3f of limit, %.2f refusals/100 (%d of %d), p50 %v, %s",
		r.goodput(), r.per100(), r.refused, r.requests, r.p50().Round(time.Millisecond), r.elapsed.Round(time.Second))
}

// simulate sends n requests through a Pacer to one origin, as fast as the
// Pacer allows with at most inflight requests outstanding, and counts. It
// is a discrete-event simulation: the clock jumps to the next start the
// Pacer allows or the next answer, whichever comes first.
func simulate(cfg Config, o origin, n, inflight int, seed uint64) simResult {
	return simulateUntil(cfg, o, n, inflight, seed, 0)
}

// simulateUntil is simulate that starts no request after win (0: no
// bound).
func simulateUntil(cfg Config, o origin, n, inflight int, seed uint64, win time.Duration) simResult {
	const h = "sim.example"
	type answer struct {
		at          time.Time
		i, status   int
		ttfb, retry time.Duration
	}
	rng := rand.New(rand.NewPCG(seed, 3))
	p := New(cfg, rng.Float64)
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	now := t0
	res := simResult{firstRefusal: -1, firstRaise: -1, limit: o.limit()}
	var pending []answer // sorted by at
	for sent := 0; sent < n || len(pending) > 0; {
		ready := p.Ready(h, now)
		if ready.Before(now) {
			ready = now
		}
		if win > 0 && ready.Sub(t0) >= win {
			n = sent // no more starts: drain what is in flight
		}
		if sent < n && len(pending) < inflight && (len(pending) == 0 || !pending[0].at.Before(ready)) {
			now = ready
			p.Begin(h, now)
			status, ttfb, retry := o.serve(now)
			a := answer{at: now.Add(ttfb), i: sent, status: status, ttfb: ttfb, retry: retry}
			k, _ := slices.BinarySearchFunc(pending, a, func(x, y answer) int { return x.at.Compare(y.at) })
			pending = slices.Insert(pending, k, a)
			sent++
			continue
		}
		a := pending[0]
		pending = pending[1:]
		now = a.at
		v := p.Observe(h, now, Outcome{Status: a.status, TTFB: a.ttfb, RetryAfter: a.retry})
		res.requests++
		if a.status == 200 {
			res.ok++
			res.ttfbs = append(res.ttfbs, a.ttfb)
			if v.Raised && res.firstRaise < 0 {
				res.firstRaise = a.i
			}
		} else {
			res.refused++
			if res.firstRefusal < 0 {
				res.firstRefusal = a.i
			}
		}
		if simTrace {
			fmt.Printf("%4d %8.3fs %d ttfb=%v d=%v %+v\n", a.i, now.Sub(t0).Seconds(), a.status,
				a.ttfb.Round(time.Millisecond), p.Delay(h, now).Round(time.Millisecond), v)
		}
	}
	res.elapsed = now.Sub(t0)
	return res
}

// simTrace prints every simulated request; for tuning by hand.
var simTrace = false

func plainConfig() Config {
	cfg := DefaultConfig()
	cfg.Plain = true
	return cfg
}

// simSeeds are the seeds every simulation runs with: enough to average out
// the jitter, few enough to stay in milliseconds.
var simSeeds = []uint64{1, 2, 3, 4, 5, 6, 7, 8}

// simMean runs one scenario over simSeeds and averages.
func simMean(cfg Config, newOrigin func(seed uint64) origin, n, inflight int) (goodput, per100 float64, all []simResult) {
	for _, seed := range simSeeds {
		r := simulate(cfg, newOrigin(seed), n, inflight, seed)
		goodput += r.goodput() / float64(len(simSeeds))
		per100 += r.per100() / float64(len(simSeeds))
		all = append(all, r)
	}
	return goodput, per100, all
}

func bucketOrigin(seed uint64) origin { return newBucket(1, 1, seed) }
func queueOrigin(seed uint64) origin  { return newQueue(1, seed) }
func fifoOrigin(seed uint64) origin   { return newFIFO(1, 2, seed) }

// TestSimulationTokenBucket: 300 requests to a 1 req/s, burst 1 token
// bucket. The full controller was tuned to >= 0.90 of the limit with <= 2
// 429s per 100 here; the assertion is looser so that a harmless change of
// constants does not fail it, and plain AIMD must do visibly worse.
func TestSimulationTokenBucket(t *testing.T) {
	const n = 300
	full, fullPer100, runs := simMean(DefaultConfig(), bucketOrigin, n, 1)
	plain, plainPer100, _ := simMean(plainConfig(), bucketOrigin, n, 1)
	t.Logf("full: goodput %.3f of limit, %.2f 429/100; plain AIMD: goodput %.3f, %.2f 429/100", full, fullPer100, plain, plainPer100)
	for i, r := range runs {
		if r.goodput() < 0.85 || r.per100() > 2 {
			t.Errorf("seed %d: %v, want goodput >= 0.85 and <= 2 429/100", simSeeds[i], r)
		}
	}
	if full <= plain || fullPer100 >= plainPer100 {
		t.Errorf("full controller (goodput %.3f, %.2f 429/100) is not better than plain AIMD (%.3f, %.2f)",
			full, fullPer100, plain, plainPer100)
	}
}

// TestSimulationQueue: a server whose latency grows with load before it
// refuses. The latency signal must raise the delay before the first
// refusal and keep refusals well under plain AIMD's.
func TestSimulationQueue(t *testing.T) {
	const n = 300
	full, fullPer100, runs := simMean(DefaultConfig(), queueOrigin, n, 1)
	plain, plainPer100, _ := simMean(plainConfig(), queueOrigin, n, 1)
	t.Logf("full: goodput %.3f of capacity, %.2f 503/100; plain AIMD: goodput %.3f, %.2f 503/100", full, fullPer100, plain, plainPer100)
	for i, r := range runs {
		if r.firstRaise < 0 || (r.firstRefusal >= 0 && r.firstRefusal < r.firstRaise) {
			t.Errorf("seed %d: first latency raise at request %d, first refusal at %d: want the raise first",
				simSeeds[i], r.firstRaise, r.firstRefusal)
		}
		if r.per100() > 1 || r.goodput() < 0.4 {
			t.Errorf("seed %d: %v, want <= 1 503/100 and goodput >= 0.4", simSeeds[i], r)
		}
	}
	if fullPer100 >= plainPer100 || full <= plain {
		t.Errorf("full controller (goodput %.3f, %.2f 503/100) is not better than plain AIMD (%.3f, %.2f)",
			full, fullPer100, plain, plainPer100)
	}
}

// TestSimulationFIFO: the project's queueing origin (one server, 1 s of
// service per request, two may wait) with up to four requests in flight,
// as the real benchmark runs it. Latency must stay near the service time
// and refusals rare, where plain AIMD fills the queue.
func TestSimulationFIFO(t *testing.T) {
	const n, inflight = 300, 4
	full, fullPer100, runs := simMean(DefaultConfig(), fifoOrigin, n, inflight)
	plain, plainPer100, _ := simMean(plainConfig(), fifoOrigin, n, inflight)
	t.Logf("full: goodput %.3f of capacity, %.2f 503/100, p50 %v; plain AIMD: goodput %.3f, %.2f 503/100",
		full, fullPer100, runs[0].p50(), plain, plainPer100)
	for i, r := range runs {
		if r.per100() > 1 || r.goodput() < 0.8 || r.p50() > 1500*time.Millisecond {
			t.Errorf("seed %d: %v, want <= 1 503/100, goodput >= 0.8, p50 <= 1.5 s", simSeeds[i], r)
		}
	}
	if fullPer100 >= plainPer100 {
		t.Errorf("full controller (%.2f 503/100) does not refuse less than plain AIMD (%.2f)", fullPer100, plainPer100)
	}
}

// BenchmarkSimulation reports goodput/limit and refusals per 100 requests
// for the full controller and plain AIMD against the simulated origins.
func BenchmarkSimulation(b *testing.B) {
	origins := []struct {
		name     string
		make     func(uint64) origin
		inflight int
	}{
		{"bucket", bucketOrigin, 1},
		{"queue", queueOrigin, 1},
		{"fifo4", fifoOrigin, 4},
	}
	configs := []struct {
		name string
		cfg  Config
	}{
		{"full", DefaultConfig()},
		{"plain", plainConfig()},
	}
	for _, o := range origins {
		for _, c := range configs {
			b.Run(o.name+"/"+c.name, func(b *testing.B) {
				var goodput, per100 float64
				for range b.N {
					goodput, per100, _ = simMean(c.cfg, o.make, 300, o.inflight)
				}
				b.ReportMetric(goodput, "goodput/limit")
				b.ReportMetric(per100, "refusals/100req")
			})
		}
	}
}

// simulateFor sends requests one at a time to a token bucket of limit
// requests per second (burst 1) for win, as fast as the Pacer allows, and
// returns the successes over what the bucket offered (limit x win, plus
// the token it starts with) and the refusals.
func simulateFor(cfg Config, limit float64, win time.Duration, seed uint64) (goodput float64, refused int) {
	r := simulateUntil(cfg, newBucket(limit, 1, seed), math.MaxInt, 1, seed, win)
	return float64(r.ok) / (limit*win.Seconds() + 1), r.refused
}

// BenchmarkSimulationAcrossLimits spreads the token bucket's limit over
// one step of slow start's ladder (start x 0.7^k: gaps from 0.7 s to
// 1.43 s), so that no limit is favoured by where the ladder happens to
// land, and averages goodput and refusals over a 40 s and a 300 s window.
// It is how to judge a change to the start, the ramp or the probing: the
// bench's one 1 req/s origin sits 3% under a rung of the ladder, where
// staying put after the first refusal pays and probing does not.
func BenchmarkSimulationAcrossLimits(b *testing.B) {
	const limits = 12
	for _, win := range []time.Duration{40 * time.Second, 300 * time.Second} {
		b.Run(win.String(), func(b *testing.B) {
			var goodput, refused float64
			for range b.N {
				goodput, refused = 0, 0
				for k := range limits {
					gap := 0.7 * math.Pow(1/0.7, float64(k)/limits) // seconds
					for _, seed := range simSeeds {
						g, r := simulateFor(DefaultConfig(), 1/gap, win, seed)
						goodput += g / limits / float64(len(simSeeds))
						refused += float64(r) / limits / float64(len(simSeeds))
					}
				}
			}
			b.ReportMetric(goodput, "goodput/limit")
			b.ReportMetric(refused, "refusals/run")
		})
	}
}
