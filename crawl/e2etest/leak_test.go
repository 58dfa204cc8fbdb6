package e2etest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/clock"
	"github.com/polite-crawler/polite/crawl/crawltest"
	"github.com/polite-crawler/polite/store"
)

// openFDs counts this process's open file descriptors (Linux).
func openFDs(t *testing.T) int {
	t.Helper()
	es, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatalf("count open files: %v", err)
	}
	return len(es)
}

// TestNoLeaksAfterRun runs crawls that end in different ways and checks
// that, once Run has returned and the test has closed its servers and
// database, no goroutine of the crawl is left and every file and
// connection it opened is closed. Each crawl runs on a fake clock (from
// the wall's now, as the HTTP client notes when a request left on the
// wall's clock), its origin on the same one unless it must keep the
// wall's.
func TestNoLeaksAfterRun(t *testing.T) {
	// Not parallel: it counts the process's goroutines and open files, which the parallel tests would share.
	tests := []struct {
		name  string
		cfg   crawltest.Config
		paths []string
		tune  func(cfg *crawl.Config, srv *httptest.Server, o *crawltest.Origin)
		// wallOrigin keeps the origin on the wall's clock.
		wallOrigin bool
		// interruptAt interrupts the run (SIGINT) as the origin receives
		// its interruptAt-th request; 0 never.
		interruptAt int
	}{
		{
			name:  "a crawl that follows links",
			cfg:   crawltest.Config{Pages: 12, Links: 3, Robots: "User-agent: *\nDisallow: /page/7\n"},
			paths: []string{"/page/0"},
			tune:  func(c *crawl.Config, _ *httptest.Server, _ *crawltest.Origin) { c.Depth = 5 },
		},
		{
			name: "hostile answers: too large, a bomb, a trickle, throttling",
			// The trickle (a byte every 100 ms of the origin's clock) is cut
			// by the request's timeout, which goes by the wall's.
			wallOrigin: true,
			cfg:        crawltest.Config{Rate: 50, Burst: 2},
			paths:      []string{"/big/3000000", "/gzipbomb/2097152", "/trickle/100", "/status/503", "/redirect/3?to=/end", "/loop/a", "/weird-headers"},
			tune: func(c *crawl.Config, _ *httptest.Server, _ *crawltest.Origin) {
				c.MaxBody, c.Timeout, c.MaxAttempts = 1<<20, 300*time.Millisecond, 1
				c.Concurrency, c.PerHost = 4, 4
			},
		},
		{
			name:  "a crawl interrupted with requests in flight",
			cfg:   crawltest.Config{Latency: 100 * time.Millisecond},
			paths: []string{"/a", "/b", "/c", "/d", "/e", "/f", "/g", "/h"},
			tune: func(c *crawl.Config, _ *httptest.Server, _ *crawltest.Origin) {
				c.Concurrency, c.PerHost, c.Grace = 4, 4, 20*time.Millisecond
			},
			interruptAt: 3, // robots.txt and two pages, held 100 ms each
		},
		{
			name:  "a crawl stopped by a write failure",
			cfg:   crawltest.Config{},
			paths: []string{"/a", "/b", "/c"},
			tune: func(c *crawl.Config, srv *httptest.Server, _ *crawltest.Origin) {
				host := strings.ReplaceAll(srv.Listener.Addr().String(), ":", "_")
				os.MkdirAll(c.OutDir, 0o755)
				os.WriteFile(filepath.Join(c.OutDir, host), []byte("a file where the host folder goes"), 0o644)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ignore := goleak.IgnoreCurrent()
			fds := openFDs(t)

			clk := clock.NewFake(time.Now())
			if !tt.wallOrigin {
				tt.cfg.Clock = clk
			}
			o := crawltest.New(tt.cfg)
			ctx, cancel := context.WithCancelCause(context.Background())
			var arrived atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if n := arrived.Add(1); tt.interruptAt > 0 && int(n) == tt.interruptAt {
					// The signal wakes the loop: the clock must not move
					// on before the loop has seen it and waits again.
					cancel(&crawl.Interrupted{Signal: "SIGINT", Code: 130})
					clk.Waiting(false)
				}
				o.ServeHTTP(w, r)
			}))
			var seeds []string
			for _, p := range tt.paths {
				seeds = append(seeds, srv.URL+p)
			}
			cfg := fastConfig(t, seeds...)
			crawltest.OnClock(t, &cfg, clk)
			if tt.tune != nil {
				tt.tune(&cfg, srv, o)
			}
			db, err := store.Open(filepath.Join(t.TempDir(), "polite.db"))
			if err != nil {
				t.Fatal(err)
			}
			rep, err := crawl.Run(ctx, db, cfg)
			cancel(nil)
			if rep == nil {
				t.Fatalf("Run returned no report: %v", err)
			}
			// Before the test closes anything: what is left besides the
			// origin's listener, its connections (which end when the
			// client's do) and the database's pool was left by the crawl,
			// an idle keep-alive connection's goroutines included.
			if err := goleak.Find(ignore,
				goleak.IgnoreAnyFunction("net/http/httptest.(*Server).goServe.func1"),
				goleak.IgnoreAnyFunction("database/sql.(*DB).connectionOpener"),
			); err != nil {
				t.Errorf("goroutines outlive the crawl: %v", err)
			}
			srv.Close()
			if err := db.Close(); err != nil {
				t.Errorf("close db: %v", err)
			}
			if err := goleak.Find(ignore); err != nil {
				t.Errorf("goroutines outlive the crawl, its origin and its database: %v", err)
			}
			// No goroutine is left to close a file late.
			if got := openFDs(t); got > fds {
				t.Errorf("%d files open after the crawl, %d before: %s", got, fds, fdList(t))
			}
		})
	}
}

func fdList(t *testing.T) string {
	t.Helper()
	es, _ := os.ReadDir("/proc/self/fd")
	var out []string
	for _, e := range es {
		target, _ := os.Readlink(filepath.Join("/proc/self/fd", e.Name()))
		out = append(out, fmt.Sprintf("%s->%s", e.Name(), target))
	}
	return strings.Join(out, " ")
}
