package crawl_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/usage"
)

// usageSite says what may be done with its pages every way the specs
// allow: a robots.txt Content-Usage path rule, a Content-Usage header, a
// tdm-reservation header and an HTML meta; /ok says only search=n.
func usageSite(web *fakeWeb) *fakeSite {
	return web.add("use.example", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			w.Write([]byte("User-agent: *\nAllow: /\nContent-Usage: /nomine/ train-ai=n\n"))
		case "/header":
			w.Header().Set("Content-Usage", "train-ai=n, future-use=y")
			w.Write([]byte("secret: header"))
		case "/tdm":
			w.Header().Set("Tdm-Reservation", "1")
			w.Header().Set("Tdm-Policy", "https://use.example/policy.json")
			w.Write([]byte("secret: tdm header"))
		case "/meta":
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte(`<html><head><meta name="tdm-reservation" content="1"></head><body>secret: meta</body></html>`))
		case "/.well-known/tdmrep.json":
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`[{"location": "/tdmpath/*", "tdm-reservation": 1}, {"location": "/*", "tdm-reservation": 0}]`))
		case "/nomine/x", "/tdmpath/x":
			w.Write([]byte("secret: path rule"))
		default:
			w.Header().Set("Content-Usage", "search=n")
			w.Write([]byte("fine"))
		}
	}))
}

func usageSeeds(s *fakeSite) []string {
	var out []string
	for _, p := range []string{"/header", "/tdm", "/meta", "/nomine/x", "/tdmpath/x", "/ok"} {
		out = append(out, s.URL+p)
	}
	return out
}

// A crawl declaring train-ai keeps nothing the site refuses to it, never
// asks for a URL a robots.txt path rule refuses, and reports each
// exclusion with its rule, in the frontier, the manifest and the report.
func TestUsageRefusesDeclaredPurpose(t *testing.T) {
	t.Parallel()
	web := newFakeWeb(t)
	s := usageSite(web)
	cfg := fastConfig(t, usageSeeds(s)...)
	cfg.Usage = usage.NewPolicy([]usage.Purpose{usage.TrainAI}, crawl.RobotsAgent(cfg))
	web.use(&cfg)
	db := mustOpen(t)
	rep, err := crawl.Run(context.Background(), db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/nomine/x", "/tdmpath/x"} {
		if n := s.count(p); n != 0 {
			t.Errorf("%s requested %d times; want 0: a path rule refuses it before fetching", p, n)
		}
	}
	if n := s.count("/.well-known/tdmrep.json"); n != 1 {
		t.Errorf("tdmrep.json requested %d times; want once", n)
	}
	if got := s.paths(); len(got) < 2 || got[0] != "/robots.txt" || got[1] != "/.well-known/tdmrep.json" {
		t.Errorf("requests %q; want robots.txt, then tdmrep.json, before any page", got)
	}
	if rep.Totals.Done != 1 || rep.Totals.Excluded != 5 || rep.ExitCode != crawl.ExitOK {
		t.Errorf("done %d, excluded %d, exit %d; want 1, 5, 0", rep.Totals.Done, rep.Totals.Excluded, rep.ExitCode)
	}
	want := map[string]string{
		"/header":    "train-ai refused by Content-Usage: train-ai=n, future-use=y; read as train-ai=n, future-use=y (unknown category)",
		"/tdm":       "train-ai refused by tdm-reservation header: tdm-reservation=1 tdm-policy=https://use.example/policy.json",
		"/meta":      "train-ai refused by tdm-reservation meta: tdm-reservation=1",
		"/nomine/x":  "train-ai refused by robots.txt line 3: Content-Usage: /nomine/ train-ai=n",
		"/tdmpath/x": "train-ai refused by tdmrep.json: tdm-reservation=1 (rule 0, location /tdmpath/*)",
	}
	for p, rule := range want {
		e := mustGet(t, db, cfg.Job, s.URL+p)
		if e.State != frontier.Excluded || e.Reason != frontier.UsageRefused(rule) || e.File != "" {
			t.Errorf("%s: %s %q file %q; want excluded by %q, no file", p, e.State, e.Reason, e.File, rule)
		}
	}
	// No refused body anywhere under --out.
	filepath.WalkDir(cfg.OutDir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(path); strings.Contains(string(b), "secret: ") && filepath.Base(path) != "manifest.jsonl" {
				t.Errorf("%s keeps a refused body", path)
			}
		}
		return nil
	})
	// The manifest names the rule of each fetched and refused URL.
	reasons := manifestReasons(t, cfg.OutDir)
	for _, p := range []string{"/header", "/tdm", "/meta"} {
		if r := reasons[s.URL+p]; !strings.HasPrefix(r, "excluded by usage: train-ai refused by ") {
			t.Errorf("manifest %s reason %q, want its usage rule", p, r)
		}
	}
	if len(rep.Usage) != 1 || len(rep.Usage[0].Excluded) != 5 {
		t.Fatalf("report usage %+v, want use.example with 5 excluding rules", rep.Usage)
	}

	// Another job's run within --robots-ttl: robots.txt and tdmrep.json
	// come from the copy the first run kept, and tdmrep.json's path rule
	// still keeps /tdmpath/x from being asked for. Past --robots-ttl, both
	// are asked for again, once.
	for _, run := range []struct {
		job   string
		after time.Duration // the clock moved before the run
		want  int           // requests for each of robots.txt and tdmrep.json, all runs
	}{{"again", time.Hour, 1}, {"later", cfg.RobotsTTL, 2}} {
		web.clk.Advance(run.after)
		cfg.Job = run.job
		cfg.Usage = usage.NewPolicy([]usage.Purpose{usage.TrainAI}, crawl.RobotsAgent(cfg)) // a policy serves one run
		if _, err := crawl.Run(context.Background(), db, cfg); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, p := range s.paths() {
			if p == "/robots.txt" {
				n++
			}
		}
		if m := s.count("/.well-known/tdmrep.json"); n != run.want || m != run.want {
			t.Errorf("after job %s: robots.txt %d, tdmrep.json %d requests; want %d and %d", run.job, n, m, run.want, run.want)
		}
		if n := s.count("/tdmpath/x"); n != 0 {
			t.Errorf("job %s asked for /tdmpath/x (%d), which tdmrep.json refuses", run.job, n)
		}
		if e := mustGet(t, db, run.job, s.URL+"/tdmpath/x"); e.Reason != frontier.UsageRefused(want["/tdmpath/x"]) {
			t.Errorf("job %s: /tdmpath/x %s %q, want excluded by %q", run.job, e.State, e.Reason, want["/tdmpath/x"])
		}
	}
	shown := strings.Join(rep.Usage[0].Signals, "\n")
	for _, w := range []string{"search=n", "future-use=y (unknown category)", "robots.txt line 3"} {
		if !strings.Contains(shown, w) {
			t.Errorf("report signals %q lack %q", shown, w)
		}
	}
}

// Without --purpose the same site's preferences are recorded and shown,
// and nothing is excluded.
func TestUsageWithoutPurposeRecordsOnly(t *testing.T) {
	t.Parallel()
	web := newFakeWeb(t)
	s := usageSite(web)
	cfg := fastConfig(t, usageSeeds(s)...)
	cfg.Usage = usage.NewPolicy(nil, crawl.RobotsAgent(cfg))
	web.use(&cfg)
	rep, err := crawl.Run(context.Background(), mustOpen(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Totals.Done != 6 || rep.Totals.Excluded != 0 || s.count("/.well-known/tdmrep.json") != 0 {
		t.Errorf("done %d, excluded %d, tdmrep.json %d; want 6, 0, 0", rep.Totals.Done, rep.Totals.Excluded, s.count("/.well-known/tdmrep.json"))
	}
	if len(rep.Usage) != 1 || len(rep.Usage[0].Signals) < 5 || rep.Usage[0].Excluded != nil {
		t.Errorf("report usage %+v, want every signal recorded and nothing excluded", rep.Usage)
	}
	// Each kept URL's manifest line names what the site said of it.
	lines := usageLines(t, cfg.OutDir)
	for p, want := range map[string]string{
		"/header":   "Content-Usage: train-ai=n, future-use=y; read as train-ai=n, future-use=y (unknown category)",
		"/tdm":      "tdm-reservation header: tdm-reservation=1 tdm-policy=https://use.example/policy.json",
		"/meta":     "tdm-reservation meta: tdm-reservation=1",
		"/nomine/x": "robots.txt line 3: Content-Usage: /nomine/ train-ai=n",
		"/ok":       "Content-Usage: search=n",
	} {
		if l := lines[s.URL+p]; l.Reason != "" || !slices.Contains(l.Usage, want) {
			t.Errorf("manifest %s: reason %q, usage %q; want no reason and %q among its usage", p, l.Reason, l.Usage, want)
		}
	}
	if l := lines[s.URL+"/tdmpath/x"]; l.Usage != nil { // tdmrep.json is not read without a purpose
		t.Errorf("manifest /tdmpath/x: usage %q, want none", l.Usage)
	}
}

func manifestReasons(t *testing.T, out string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for u, l := range usageLines(t, out) {
		m[u] = l.Reason
	}
	return m
}

// usageLine is what the usage tests read of a manifest line.
type usageLine struct {
	URL, Reason string
	Usage       []string
}

func usageLines(t *testing.T, out string) map[string]usageLine {
	t.Helper()
	f, err := os.Open(filepath.Join(out, "manifest.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := map[string]usageLine{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l usageLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		m[l.URL] = l
	}
	return m
}

// tdmrep.json is budgeted like robots.txt: --max-requests 3 with a
// purpose is robots.txt, tdmrep.json and one page.
func TestUsageTDMRepCountsInBudget(t *testing.T) {
	t.Parallel()
	web := newFakeWeb(t)
	s := usageSite(web)
	cfg := fastConfig(t, s.URL+"/ok", s.URL+"/a", s.URL+"/b")
	cfg.MaxRequests = 3
	cfg.Usage = usage.NewPolicy([]usage.Purpose{usage.Archive}, crawl.RobotsAgent(cfg))
	web.use(&cfg)
	rep, err := crawl.Run(context.Background(), mustOpen(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.paths(); len(got) != 3 || got[0] != "/robots.txt" || got[1] != "/.well-known/tdmrep.json" {
		t.Errorf("requests %q; want robots.txt, tdmrep.json and one page", got)
	}
	if rep.Totals.Requests != 3 {
		t.Errorf("report counts %d requests, want 3", rep.Totals.Requests)
	}
}
