package crawltest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

var t0 = time.Date(2025, time.March, 1, 12, 0, 0, 0, time.UTC)

// fakeClock is a settable clock; sleeps on it are recorded, not taken.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.sleeps = append(c.sleeps, d)
	c.mu.Unlock()
	return ctx.Err()
}

func (c *fakeClock) Sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.sleeps...)
}

// newFake returns an origin on a fake clock starting at t0.
func newFake(cfg Config) (*Origin, *fakeClock) {
	c := &fakeClock{now: t0}
	o := New(cfg)
	o.now, o.sleep = c.Now, c.Sleep
	return o, c
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
		Timeout: 5 * time.Second,
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
		Robots: "User-agent: *\nDisallow: /page/3\n"})
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
