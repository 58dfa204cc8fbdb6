package crawltest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestLog(t *testing.T) {
	type step struct {
		at       time.Duration // arrival, after t0
		path     string
		canceled bool // the client has gone before the answer
	}
	cases := []struct {
		name  string
		cfg   Config
		steps []step
		want  []Request
	}{
		{
			name:  "off by default",
			cfg:   Config{Rate: 1, Burst: 1},
			steps: []step{{0, "/a", false}, {0, "/b", false}},
			want:  nil,
		},
		{
			name: "token bucket: status and arrival per request",
			cfg:  Config{Rate: 1, Burst: 1, Log: true, Robots: "User-agent: *\n"},
			steps: []step{
				{0, "/robots.txt", false},
				{0, "/a?x=1", false},
				{100 * time.Millisecond, "/b", false},
				{1100 * time.Millisecond, "/b", false},
			},
			want: []Request{
				{At: t0, Path: "/robots.txt", Status: 200},
				{At: t0, Path: "/a?x=1", Status: 200},
				{At: t0.Add(100 * time.Millisecond), Path: "/b", Status: 429},
				{At: t0.Add(1100 * time.Millisecond), Path: "/b", Status: 200},
			},
		},
		{
			name: "queue: waits are measured, a full queue is 503",
			cfg:  Config{Capacity: 10, QueueMax: 1, Latency: 5 * time.Millisecond, Log: true},
			steps: []step{
				{0, "/a", false},
				{0, "/b", false},
				{0, "/c", false},
				{time.Second, "/d", false},
			},
			want: []Request{
				{At: t0, Path: "/a", Status: 200, Latency: 105 * time.Millisecond},
				{At: t0, Path: "/b", Status: 200, Latency: 205 * time.Millisecond},
				{At: t0, Path: "/c", Status: 503},
				{At: t0.Add(time.Second), Path: "/d", Status: 200, Latency: 105 * time.Millisecond},
			},
		},
		{
			name:  "a client that went away has status 0",
			cfg:   Config{Log: true, Latency: time.Second},
			steps: []step{{0, "/a", true}},
			want:  []Request{{At: t0, Path: "/a", Status: 0}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tm := newTimed(t, tc.cfg)
			for _, s := range tc.steps {
				tm.advance(t0.Add(s.at).Sub(tm.clk.Now()))
				r := httptest.NewRequest(http.MethodGet, s.path, nil)
				if s.canceled {
					ctx, cancel := context.WithCancel(r.Context())
					cancel()
					r = r.WithContext(ctx)
				}
				tm.start(r)
			}
			tm.finish() // the requests held answer
			got := tm.o.Stats().Log
			if len(got) != len(tc.want) {
				t.Fatalf("Log has %d records, want %d: %+v", len(got), len(tc.want), got)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("Log[%d] = %+v, want %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

func TestLogReset(t *testing.T) {
	o, _ := newFake(Config{Log: true})
	do(o, "/a")
	o.Reset()
	do(o, "/b")
	got := o.Stats().Log
	if len(got) != 1 || got[0].Path != "/b" || got[0].Status != 200 {
		t.Errorf("Log after Reset = %+v, want one record of /b with 200", got)
	}
}

func TestOmitRetryAfter(t *testing.T) {
	cases := []struct {
		name       string
		cfg        Config
		paths      []string
		wantStatus int
		wantRA     string
	}{
		{"token bucket sends Retry-After", Config{Rate: 1, Burst: 1}, []string{"/a", "/b"}, 429, "1"},
		{"token bucket omits it", Config{Rate: 1, Burst: 1, OmitRetryAfter: true}, []string{"/a", "/b"}, 429, ""},
		{"queue sends Retry-After", Config{Capacity: 1, QueueMax: 0}, []string{"/a", "/b"}, 503, "1"},
		{"queue omits it", Config{Capacity: 1, QueueMax: 0, OmitRetryAfter: true}, []string{"/a", "/b"}, 503, ""},
		{"status path keeps its own", Config{OmitRetryAfter: true}, []string{"/status/429"}, 429, "1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// The first request holds its place in the queue, held on the
			// clock, as the next arrives.
			tm := newTimed(t, tc.cfg)
			var last *call
			for _, p := range tc.paths {
				last = tm.get(p)
			}
			if last.held != 0 {
				t.Fatalf("last request held %v, want an answer at once", last.held)
			}
			w := last.w
			if w.Code != tc.wantStatus {
				t.Fatalf("last status %d, want %d", w.Code, tc.wantStatus)
			}
			if got := w.Header().Get("Retry-After"); got != tc.wantRA {
				t.Errorf("Retry-After %q, want %q", got, tc.wantRA)
			}
		})
	}
}
