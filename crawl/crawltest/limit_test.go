package crawltest

import (
	"net/http"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
)

func TestTokenBucket(t *testing.T) {
	type step struct {
		after      time.Duration // clock advance before the request
		path       string
		want       int
		retryAfter string // for a 429
	}
	cases := []struct {
		name          string
		cfg           Config
		steps         []step
		wantOverLimit int
	}{
		{
			name: "burst then 429 until a token",
			cfg:  Config{Rate: 1, Burst: 3},
			steps: []step{
				{0, "/a", 200, ""},
				{0, "/b", 200, ""},
				{0, "/c", 200, ""},
				{0, "/d", 429, "1"},
				{400 * time.Millisecond, "/d", 429, "1"},
				{600 * time.Millisecond, "/d", 200, ""},
				{0, "/e", 429, "1"},
			},
			wantOverLimit: 3,
		},
		{
			name: "slow rate gives a longer Retry-After",
			cfg:  Config{Rate: 0.25, Burst: 1},
			steps: []step{
				{0, "/a", 200, ""},
				{0, "/b", 429, "4"},
				{1500 * time.Millisecond, "/b", 429, "3"},
				{2500 * time.Millisecond, "/b", 200, ""},
			},
			wantOverLimit: 2,
		},
		{
			name: "configured Retry-After rounds up",
			cfg:  Config{Rate: 10, Burst: 1, RetryAfter: 2500 * time.Millisecond},
			steps: []step{
				{0, "/a", 200, ""},
				{0, "/b", 429, "3"},
			},
			wantOverLimit: 1,
		},
		{
			name: "burst 0 counts as 1",
			cfg:  Config{Rate: 1},
			steps: []step{
				{0, "/a", 200, ""},
				{0, "/b", 429, "1"},
			},
			wantOverLimit: 1,
		},
		{
			name: "robots.txt is exempt",
			cfg:  Config{Rate: 1, Burst: 1, Robots: "User-agent: *\n"},
			steps: []step{
				{0, "/a", 200, ""},
				{0, "/robots.txt", 200, ""},
				{0, "/robots.txt", 200, ""},
				{0, "/b", 429, "1"},
			},
			wantOverLimit: 1,
		},
		{
			name: "unlimited",
			cfg:  Config{},
			steps: []step{
				{0, "/a", 200, ""}, {0, "/a", 200, ""}, {0, "/a", 200, ""}, {0, "/a", 200, ""},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o, c := newFake(tc.cfg)
			for i, s := range tc.steps {
				c.Advance(s.after)
				w := do(o, s.path)
				if w.Code != s.want {
					t.Fatalf("step %d %s: status %d, want %d", i, s.path, w.Code, s.want)
				}
				if got := w.Header().Get("Retry-After"); got != s.retryAfter {
					t.Errorf("step %d %s: Retry-After %q, want %q", i, s.path, got, s.retryAfter)
				}
			}
			if got := o.Stats().OverLimit; got != tc.wantOverLimit {
				t.Errorf("OverLimit = %d, want %d", got, tc.wantOverLimit)
			}
			if got := o.Stats().ByStatus[429]; got != tc.wantOverLimit {
				t.Errorf("ByStatus[429] = %d, want %d", got, tc.wantOverLimit)
			}
		})
	}
}

func TestRateLimitHeaders(t *testing.T) {
	o, c := newFake(Config{Rate: 2, Burst: 4, RateLimitHeaders: true})
	steps := []struct {
		after                   time.Duration
		status                  int
		limit, remaining, reset int
	}{
		{0, 200, 4, 3, 1},
		{0, 200, 4, 2, 1},
		{0, 200, 4, 1, 2},
		{0, 200, 4, 0, 2},
		{0, 429, 4, 0, 2},
		{500 * time.Millisecond, 200, 4, 0, 2},
		{10 * time.Second, 200, 4, 3, 1},
	}
	for i, s := range steps {
		c.Advance(s.after)
		w := do(o, "/x")
		h := w.Header()
		if w.Code != s.status {
			t.Fatalf("step %d: status %d, want %d", i, w.Code, s.status)
		}
		want := map[string]string{
			"RateLimit-Limit":       strconv.Itoa(s.limit),
			"RateLimit-Remaining":   strconv.Itoa(s.remaining),
			"RateLimit-Reset":       strconv.Itoa(s.reset),
			"X-RateLimit-Limit":     strconv.Itoa(s.limit),
			"X-RateLimit-Remaining": strconv.Itoa(s.remaining),
			"X-RateLimit-Reset":     strconv.FormatInt(c.Now().Unix()+int64(s.reset), 10),
			"RateLimit":             `"bucket";r=` + strconv.Itoa(s.remaining) + ";t=" + strconv.Itoa(s.reset),
			"RateLimit-Policy":      `"bucket";q=4;w=2`,
		}
		for k, v := range want {
			if got := h.Get(k); got != v {
				t.Errorf("step %d: %s = %q, want %q", i, k, got, v)
			}
		}
	}

	// Consistency: after Reset seconds the bucket holds Limit tokens again.
	o2, c2 := newFake(Config{Rate: 3, Burst: 5, RateLimitHeaders: true, Robots: "User-agent: *\n"})
	for i := range 7 {
		h := do(o2, "/y").Header()
		reset, _ := strconv.Atoi(h.Get("RateLimit-Reset"))
		c2.Advance(time.Duration(reset) * time.Second)
		// robots.txt takes no token, so it shows the refilled bucket.
		after := do(o2, "/robots.txt").Header()
		if got, want := after.Get("RateLimit-Remaining"), h.Get("RateLimit-Limit"); got != want {
			t.Errorf("request %d: Remaining %s after waiting Reset %ds, want Limit %s", i, got, reset, want)
		}
		if got := after.Get("RateLimit-Reset"); got != "0" {
			t.Errorf("request %d: full bucket Reset = %s, want 0", i, got)
		}
	}

	// Off unless asked, and meaningless without a bucket.
	for _, cfg := range []Config{{Rate: 2, Burst: 2}, {RateLimitHeaders: true}} {
		if got := do(New(cfg), "/z").Header().Get("RateLimit-Limit"); got != "" {
			t.Errorf("config %+v: RateLimit-Limit = %q, want none", cfg, got)
		}
	}
}

func TestQueueModel(t *testing.T) {
	// Capacity 10/s: 100 ms of service each; room for 2 waiting.
	tm := newTimed(t, Config{Capacity: 10, QueueMax: 2})
	steps := []struct {
		after  time.Duration
		status int
		wait   time.Duration // the latency the request is held for
	}{
		{0, 200, 100 * time.Millisecond},
		{0, 200, 200 * time.Millisecond},
		{0, 200, 300 * time.Millisecond},
		{0, 503, 0},
		{150 * time.Millisecond, 200, 250 * time.Millisecond},
		{0, 503, 0},
		{time.Second, 200, 100 * time.Millisecond},
	}
	calls := make([]*call, len(steps))
	for i, s := range steps {
		tm.advance(s.after)
		c := tm.get("/q")
		calls[i] = c
		if c.held != s.wait {
			t.Errorf("step %d: held %v, want %v", i, c.held, s.wait)
		}
		if s.status != 503 || c.held != 0 {
			continue
		}
		if c.w.Code != s.status {
			t.Fatalf("step %d: status %d, want %d", i, c.w.Code, s.status)
		}
		if got := c.w.Header().Get("Retry-After"); got != "1" {
			t.Errorf("step %d: Retry-After %q, want 1", i, got)
		}
	}
	tm.finish()
	for i, s := range steps {
		if s.status == 200 && calls[i].w.Code != 200 {
			t.Errorf("step %d: status %d once held, want 200", i, calls[i].w.Code)
		}
	}
	if got := tm.o.Stats().QueueFull; got != 2 {
		t.Errorf("QueueFull = %d, want 2", got)
	}
}

func TestQueueOnLoopback(t *testing.T) {
	// 200 ms of service per request and room for 1 waiting: of 6 requests
	// at once, 2 are served, the second 200 ms after the first, and 4 get
	// 503 at once. The origin's clock is fake: it stands still until the
	// test moves it, once every request is answered or held.
	clk := newWaitClock()
	o, srv := Serve(Config{Capacity: 5, QueueMax: 1, Clock: clk})
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 10}}
	defer client.CloseIdleConnections()
	statuses := make(chan int, 6)
	var ready, wg sync.WaitGroup
	start := make(chan struct{})
	for range 6 {
		ready.Add(1)
		wg.Go(func() {
			// Open the connection first on robots.txt, which skips the queue.
			if resp, err := client.Get(srv.URL + "/robots.txt"); err == nil {
				resp.Body.Close()
			}
			ready.Done()
			<-start
			resp, err := client.Get(srv.URL + "/q")
			if err != nil {
				t.Errorf("GET: %v", err)
				statuses <- 0
				return
			}
			resp.Body.Close()
			statuses <- resp.StatusCode
		})
	}
	ready.Wait()
	close(start)
	var ends []time.Time
	refused := 0
	for len(ends)+refused < 6 {
		select {
		case end := <-clk.waits:
			ends = append(ends, end)
		case s := <-statuses:
			if s != http.StatusServiceUnavailable {
				t.Fatalf("status %d before the clock moved, want 503 or a request held", s)
			}
			refused++
		}
	}
	slices.SortFunc(ends, time.Time.Compare)
	if want := []time.Time{t0.Add(200 * time.Millisecond), t0.Add(400 * time.Millisecond)}; !slices.Equal(ends, want) {
		t.Fatalf("requests held until %v, want %v (200 ms of service, then 200 ms of queueing and service)", ends, want)
	}
	for i, end := range ends {
		clk.Advance(end.Sub(clk.Now()))
		if s := <-statuses; s != http.StatusOK {
			t.Errorf("answer %d at %v: status %d, want 200", i, clk.Since(t0), s)
		}
		select {
		case s := <-statuses:
			t.Errorf("another answer (%d) at %v, before its time", s, clk.Since(t0))
		default:
		}
	}
	wg.Wait()
	if s := o.Stats(); s.ByStatus[503] != 4 || s.QueueFull != 4 {
		t.Errorf("ByStatus[503] = %d, QueueFull = %d; want 4, 4", s.ByStatus[503], s.QueueFull)
	}
}

func TestLatencyAdded(t *testing.T) {
	tm := newTimed(t, Config{Latency: 40 * time.Millisecond})
	for _, p := range []string{"/a", "/robots.txt"} {
		c := tm.get(p)
		if c.held != 40*time.Millisecond {
			t.Errorf("%s held %v, want 40ms before its answer", p, c.held)
		}
		tm.advance(40 * time.Millisecond)
		select {
		case <-c.done:
		default:
			t.Errorf("%s not answered after its 40ms", p)
		}
	}

	// On loopback: the answer comes once the origin's clock has moved on
	// 40ms, not before.
	clk := newWaitClock()
	_, srv := Serve(Config{Latency: 40 * time.Millisecond, Clock: clk})
	defer srv.Close()
	answered := getAsync(srv, "/a")
	if end := <-clk.waits; !end.Equal(t0.Add(40 * time.Millisecond)) {
		t.Errorf("held %v, want 40ms", end.Sub(t0))
	}
	select {
	case <-answered:
		t.Error("answered before its latency")
	default:
	}
	clk.Advance(40 * time.Millisecond)
	if body := <-answered; body != string(Body("/a")) {
		t.Errorf("answer %q, want the body %q", body, Body("/a"))
	}
}
