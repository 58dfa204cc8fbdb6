package crawl_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/revisit"
	"github.com/polite-crawler/polite/crawl/usage"
)

// A body an earlier run kept is not kept once the site refuses it to the
// declared purpose: refused before fetching (a robots.txt path rule), by
// a 200's header, or by the header of a 304 to a conditional request, the
// file goes from the output folder and the entry keeps no file and no
// validators. A URL nothing refuses keeps its body.
func TestUsageRefusedNowDropsEarlierBody(t *testing.T) {
	t.Parallel()
	var refuse atomic.Bool
	web := newFakeWeb(t)
	s := web.add("later.example", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		no := refuse.Load()
		switch r.URL.Path {
		case "/robots.txt":
			if no {
				w.Write([]byte("User-agent: *\nAllow: /\nContent-Usage: /nomine/ train-ai=n\n"))
			}
		case "/cond":
			w.Header().Set("ETag", `"v1"`)
			if no {
				w.Header().Set("Content-Usage", "train-ai=n")
			}
			if r.Header.Get("If-None-Match") == `"v1"` {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			w.Write([]byte("conditional body"))
		case "/header":
			if no {
				w.Header().Set("Content-Usage", "train-ai=n")
			}
			w.Write([]byte("header body"))
		default:
			w.Write([]byte("body of " + r.URL.Path))
		}
	}))
	cfg := fastConfig(t, s.URL+"/cond", s.URL+"/header", s.URL+"/nomine/x", s.URL+"/ok")
	cfg.Revisit.Mode = revisit.Always
	cfg.Usage = usage.NewPolicy([]usage.Purpose{usage.TrainAI}, crawl.RobotsAgent(cfg))
	web.use(&cfg)
	db := mustOpen(t)
	if _, err := crawl.Run(context.Background(), db, cfg); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, p := range []string{"/cond", "/header", "/nomine/x", "/ok"} {
		e := mustGet(t, db, cfg.Job, s.URL+p)
		if e.State != frontier.Done || e.File == "" {
			t.Fatalf("first run: %s %s file %q, want done with a body", p, e.State, e.File)
		}
		files[p] = filepath.Join(cfg.OutDir, e.File)
	}

	refuse.Store(true)
	web.clk.Advance(cfg.RobotsTTL + 1) // robots.txt (and tdmrep.json) read again
	cfg.Usage = usage.NewPolicy([]usage.Purpose{usage.TrainAI}, crawl.RobotsAgent(cfg))
	if _, err := crawl.Run(context.Background(), db, cfg); err != nil {
		t.Fatal(err)
	}
	for p, rule := range map[string]string{
		"/cond":     "train-ai refused by Content-Usage: train-ai=n",
		"/header":   "train-ai refused by Content-Usage: train-ai=n",
		"/nomine/x": "train-ai refused by robots.txt line 3: Content-Usage: /nomine/ train-ai=n",
	} {
		e := mustGet(t, db, cfg.Job, s.URL+p)
		if e.State != frontier.Excluded || e.Reason != frontier.UsageRefused(rule) || e.File != "" || e.SHA256 != "" || e.ETag != "" {
			t.Errorf("%s: %s %q file %q sha %q etag %q; want excluded by %q, no body kept", p, e.State, e.Reason, e.File, e.SHA256, e.ETag, rule)
		}
		if _, err := os.Stat(files[p]); !os.IsNotExist(err) {
			t.Errorf("%s: the first run's body %s is still there (%v)", p, files[p], err)
		}
	}
	if e := mustGet(t, db, cfg.Job, s.URL+"/ok"); e.State != frontier.Done || e.File == "" {
		t.Errorf("/ok: %s file %q, want done and kept", e.State, e.File)
	}
	if _, err := os.Stat(files["/ok"]); err != nil {
		t.Errorf("/ok's body: %v", err)
	}
	var condAsked, condConditional int
	for _, h := range s.log() {
		if h.path == "/cond" {
			condAsked++
			if h.conditional {
				condConditional++
			}
		}
	}
	if condAsked != 2 || condConditional != 1 || s.count("/nomine/x") != 1 {
		t.Errorf("/cond asked %d times (%d conditional), /nomine/x %d; want 2 (1), 1", condAsked, condConditional, s.count("/nomine/x"))
	}
	reasons := manifestReasons(t, cfg.OutDir)
	for _, p := range []string{"/cond", "/header"} {
		if r := reasons[s.URL+p]; !frontier.Reason(r).Usage() {
			t.Errorf("manifest %s: reason %q, want its usage rule", p, r)
		}
	}
}
