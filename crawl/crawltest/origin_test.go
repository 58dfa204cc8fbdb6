package crawltest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/clock"
)

var t0 = time.Date(2025, time.March, 1, 12, 0, 0, 0, time.UTC)

// newFake returns an origin on a fake clock at t0, which only the test
// moves. A request the origin holds (latency, queueing, /slow) blocks
// until the clock passes its wait: serve those with newTimed instead.
func newFake(cfg Config) (*Origin, *clock.Fake) {
	c := clock.NewFake(t0)
	cfg.Clock = c
	return New(cfg), c
}

// waitClock is an origin's Config.Clock in the tests where requests
// overlap: the fake clock, each wait of the origin a timer on it, and the
// end of each wait sent on waits once its timer is set. A test learns
// from it, without polling, that a request is held and until when, before
// it moves the clock.
type waitClock struct {
	*clock.Fake
	waits chan time.Time
}

func newWaitClock() waitClock {
	return waitClock{clock.NewFake(t0), make(chan time.Time)}
}

// Hold waits d on the clock, or until ctx is done, as clock.Holder.
func (c waitClock) Hold(ctx context.Context, d time.Duration) bool {
	if d <= 0 || ctx.Err() != nil {
		return ctx.Err() == nil
	}
	end := c.Now().Add(d)
	t := c.NewTimer(d)
	defer t.Stop()
	select {
	case c.waits <- end:
	case <-ctx.Done():
		return false
	}
	select {
	case <-t.C():
		return true
	case <-ctx.Done():
		return false
	}
}

// timed serves requests to an origin on a fake clock as clients that
// overlap would: each in a goroutine of its own, the origin's waits held
// on the clock (a waitClock), which only the test moves. One request
// runs at a time: start returns once the new one is answered or held, and
// advance lets each held request go on, at its time, before the clock
// moves further, so that what the origin reads of the clock is exact.
type timed struct {
	o     *Origin
	clk   waitClock
	ended chan struct{} // a request's handler returned
	due   []time.Time   // the ends of the waits under way
}

// call is one request timed serves.
type call struct {
	w    *httptest.ResponseRecorder
	held time.Duration // how long the origin held it first; 0 when it answered at once
	done chan struct{} // closed once answered
}

// newTimed returns a timed origin for cfg at t0. The requests it still
// holds when the test ends are let go.
func newTimed(t *testing.T, cfg Config) *timed {
	tm := &timed{clk: newWaitClock(), ended: make(chan struct{})}
	cfg.Clock = tm.clk
	tm.o = New(cfg)
	t.Cleanup(tm.finish)
	return tm
}

// start serves r and returns once the origin answered it or holds it.
func (tm *timed) start(r *http.Request) *call {
	c := &call{w: httptest.NewRecorder(), done: make(chan struct{})}
	at := tm.clk.Now()
	go func() {
		tm.o.ServeHTTP(c.w, r)
		close(c.done)
		tm.ended <- struct{}{}
	}()
	if end, held := tm.settle(); held {
		c.held = end.Sub(at)
	}
	return c
}

// get starts a GET of target with header's name-value pairs.
func (tm *timed) get(target string, header ...string) *call {
	r := httptest.NewRequest(http.MethodGet, target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	return tm.start(r)
}

// settle waits until the request running holds (it reports the end of
// its wait) or ends.
func (tm *timed) settle() (time.Time, bool) {
	select {
	case end := <-tm.clk.waits:
		tm.due = append(tm.due, end)
		return end, true
	case <-tm.ended:
		return time.Time{}, false
	}
}

// advance moves the clock d on. Each wait that ends on the way ends at
// its time, and its request runs until it answers or waits again before
// the clock moves further.
func (tm *timed) advance(d time.Duration) {
	to := tm.clk.Now().Add(d)
	for len(tm.due) > 0 {
		next := slices.MinFunc(tm.due, time.Time.Compare)
		if next.After(to) {
			break
		}
		n := len(tm.due)
		tm.due = slices.DeleteFunc(tm.due, next.Equal)
		tm.clk.Advance(next.Sub(tm.clk.Now()))
		for range n - len(tm.due) {
			tm.settle()
		}
	}
	tm.clk.Advance(to.Sub(tm.clk.Now()))
}

// finish moves the clock until no request is held.
func (tm *timed) finish() {
	for len(tm.due) > 0 {
		tm.advance(slices.MaxFunc(tm.due, time.Time.Compare).Sub(tm.clk.Now()))
	}
}

// do serves one GET in memory.
func do(o *Origin, target string, header ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodGet, target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	o.ServeHTTP(w, r)
	return w
}

// rawClient neither follows redirects nor decompresses.
func rawClient() *http.Client {
	return &http.Client{
		Transport: &http.Transport{DisableCompression: true},
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
		// No Timeout: a wall-clock bound fails on a busy machine; a
		// hang ends at go test's own -timeout.
	}
}

func get(t *testing.T, c *http.Client, url string) (*http.Response, []byte) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read %s: %v", url, err)
	}
	return resp, b
}

func TestStatsCountEverything(t *testing.T) {
	o, c := newFake(Config{Robots: "User-agent: *\nDisallow: /private\n"})
	steps := []struct {
		target string
		header []string
		want   int
	}{
		{"/robots.txt", nil, 200},
		{"/a?x=1", nil, 200},
		{"/a?x=1", nil, 200},
		{"/private/1", nil, 200},
		{"/status/500", nil, 500},
		{"/b", []string{"If-None-Match", `"nope"`}, 200},
	}
	for i, s := range steps {
		if got := do(o, s.target, s.header...).Code; got != s.want {
			t.Fatalf("step %d %s: status %d, want %d", i, s.target, got, s.want)
		}
		c.Advance(time.Second)
	}
	got := o.Stats()
	checks := []struct {
		name      string
		got, want int
	}{
		{"Requests", got.Requests, 6},
		{"Robots", got.Robots, 1},
		{"Disallowed", got.Disallowed, 1},
		{"Conditional", got.Conditional, 1},
		{"ByPath /a?x=1", got.ByPath["/a?x=1"], 2},
		{"ByStatus 200", got.ByStatus[200], 5},
		{"ByStatus 500", got.ByStatus[500], 1},
		{"Times", len(got.Times), 6},
	}
	for _, ck := range checks {
		if ck.got != ck.want {
			t.Errorf("%s = %d, want %d", ck.name, ck.got, ck.want)
		}
	}
	if want := t0.Add(2 * time.Second); !got.Times[2].Equal(want) {
		t.Errorf("Times[2] = %v, want %v", got.Times[2], want)
	}
	var bodyBytes int64
	for _, s := range steps {
		bodyBytes += int64(len(o.Body(s.target)))
	}
	if got.BytesServed != bodyBytes {
		t.Errorf("BytesServed = %d, want %d", got.BytesServed, bodyBytes)
	}

	// The copy is a copy.
	got.ByPath["/a?x=1"] = 99
	if again := o.Stats().ByPath["/a?x=1"]; again != 2 {
		t.Errorf("after editing the copy ByPath = %d, want 2", again)
	}

	o.Reset()
	if r := o.Stats(); r.Requests != 0 || len(r.ByPath) != 0 || len(r.Times) != 0 || r.BytesServed != 0 {
		t.Errorf("after Reset: %+v, want zero counters", r)
	}
}

func TestConfigReturned(t *testing.T) {
	cfg := Config{Rate: 3, Burst: 2, Pages: 4}
	if got := New(cfg).Config(); got != cfg {
		t.Errorf("Config() = %+v, want %+v", got, cfg)
	}
}

func TestServeIsLoopback(t *testing.T) {
	o, srv := Serve(Config{})
	defer srv.Close()
	resp, body := get(t, srv.Client(), srv.URL+"/hello")
	if resp.StatusCode != 200 || string(body) != string(Body("/hello")) {
		t.Errorf("GET /hello = %d %q, want 200 %q", resp.StatusCode, body, Body("/hello"))
	}
	host := resp.Request.URL.Hostname()
	if host != "127.0.0.1" && host != "::1" {
		t.Errorf("server host = %s, want loopback", host)
	}
	if got := o.Stats().Requests; got != 1 {
		t.Errorf("Requests = %d, want 1", got)
	}
}

func TestConcurrentUse(t *testing.T) {
	o, srv := Serve(Config{Rate: 50, Burst: 20, RateLimitHeaders: true, Pages: 10, Links: 2,
		Robots: "User-agent: *\nDisallow: /page/3\n", Clock: clock.NewFake(t0)})
	defer srv.Close()
	const workers, each = 6, 20
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			c := srv.Client()
			for i := range each {
				path := fmt.Sprintf("/page/%d", (w+i)%10)
				if i%5 == 0 {
					path = "/robots.txt"
				}
				resp, err := c.Get(srv.URL + path)
				if err != nil {
					t.Errorf("GET %s: %v", path, err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				_ = o.Stats()
			}
		})
	}
	wg.Wait()
	s := o.Stats()
	total := 0
	for _, n := range s.ByStatus {
		total += n
	}
	if s.Requests != workers*each || total != workers*each || len(s.Times) != workers*each {
		t.Errorf("Requests %d, statuses %d, times %d; want %d each", s.Requests, total, len(s.Times), workers*each)
	}
	if s.ByStatus[429] != s.OverLimit {
		t.Errorf("429s = %d, OverLimit = %d; want equal", s.ByStatus[429], s.OverLimit)
	}
	if s.Robots != workers*each/5 {
		t.Errorf("Robots = %d, want %d", s.Robots, workers*each/5)
	}
}

// getAsync gets path from srv in a goroutine and gives the body, or the
// error's text, on the channel it returns.
func getAsync(srv *httptest.Server, path string) <-chan string {
	answered := make(chan string, 1)
	go func() {
		resp, err := srv.Client().Get(srv.URL + path)
		if err != nil {
			answered <- err.Error()
			return
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			answered <- err.Error()
			return
		}
		answered <- string(body)
	}()
	return answered
}
