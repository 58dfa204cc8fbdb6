package crawl_test

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/report"
	"github.com/polite-crawler/polite/store"
)

// allStates are the frontier states, for listing every entry of a job.
var allStates = []frontier.State{frontier.Queued, frontier.InFlight, frontier.Done, frontier.NotModified,
	frontier.Excluded, frontier.Deferred, frontier.Dead}

// jobEntries returns every frontier entry of job by URL.
func jobEntries(t *testing.T, db *store.DB, job string) map[string]frontier.Entry {
	t.Helper()
	out := map[string]frontier.Entry{}
	for _, s := range allStates {
		es, err := db.Entries(job, s, 100000)
		if err != nil {
			t.Fatalf("entries %s: %v", s, err)
		}
		for _, e := range es {
			out[e.URL] = e
		}
	}
	return out
}

// runBounded runs a crawl, on a fake clock, that must end on its own well
// within limit of the clock's time: a crawl that waited on a hostile
// header would take the clock past it (the clock moves to the end of any
// wait at once), and fails.
func runBounded(t *testing.T, db *store.DB, cfg crawl.Config, limit time.Duration) (*report.Report, error) {
	t.Helper()
	clk := onFakeClock(t, &cfg)
	start := clk.Now()
	rep, err := crawl.Run(context.Background(), db, cfg)
	if took := clk.Since(start); took > limit {
		t.Errorf("the run took %s, want under %s", took.Round(time.Millisecond), limit)
	}
	if rep == nil {
		t.Fatalf("Run returned no report: %v", err)
	}
	return rep, err
}

// hits counts the requests a handler received, by request URI.
type hits struct {
	mu sync.Mutex
	n  map[string]int
}

func (h *hits) add(uri string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.n == nil {
		h.n = map[string]int{}
	}
	h.n[uri]++
}

func (h *hits) get(uri string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.n[uri]
}

func (h *hits) total() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, k := range h.n {
		n += k
	}
	return n
}

// hostileServer serves h on loopback; robots.txt is 404 unless h answers
// it. Every request is counted.
func hostileServer(t *testing.T, h http.HandlerFunc) (*httptest.Server, *hits) {
	t.Helper()
	seen := &hits{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.add(r.RequestURI)
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, seen
}

// rawServer answers each request with the raw bytes for its request URI, then
// closes the connection: for answers net/http would refuse to write.
// robots.txt is 404.
func rawServer(t *testing.T, answers map[string]string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				c.SetDeadline(time.Now().Add(5 * time.Second))
				req, err := http.ReadRequest(bufio.NewReader(c))
				if err != nil {
					return
				}
				a, ok := answers[req.RequestURI]
				if !ok {
					a = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
				}
				c.Write([]byte(a))
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}

// bodyFiles lists the files under an output folder other than the
// manifest and the reports, temporary ones included.
func bodyFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case rel == "manifest.jsonl", rel == "report.json", rel == "report.html",
			strings.HasPrefix(rel, "runs"+string(filepath.Separator)): // the runs' own reports and manifest lines
		default:
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func keys(m map[string]frontier.Entry) []string {
	var out []string
	for k, e := range m {
		out = append(out, k+" "+string(e.State)+" "+e.Reason.String())
	}
	return out
}
