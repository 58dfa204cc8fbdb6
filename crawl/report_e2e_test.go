package crawl_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/crawltest"
	"github.com/polite-crawler/polite/crawl/report"
	"github.com/polite-crawler/polite/crawl/report/reporttest"
)

// TestReportMatchesOrigins crawls a calm origin with every kind of answer,
// then crawls it again (now answered 304) together with a throttling
// origin, and checks report.json figure by figure against what the origins
// themselves counted, then checks report.html.
func TestReportMatchesOrigins(t *testing.T) {
	t.Parallel()
	robotsTxt := "User-agent: *\nDisallow: /private\n"
	// The runs and the origins' buckets keep the same fake time: the
	// busy origin's Retry-After second passes at once. Each request
	// takes the web's 1 ms, the latency the report's percentiles see.
	web := newFakeWeb(t)
	busy, busySrv := web.origin("busy.example", crawltest.Config{Robots: robotsTxt, Rate: 2, Burst: 1, RetryAfter: time.Second})
	mixed, mixedSrv := web.origin("mixed.example", crawltest.Config{Robots: robotsTxt})
	mixedSeeds := []string{mixedSrv.URL + "/doc/a", mixedSrv.URL + "/doc/b", mixedSrv.URL + "/status/404", mixedSrv.URL + "/status/501",
		mixedSrv.URL + "/redirect/1?to=/doc/c", mixedSrv.URL + "/private/b", mixedSrv.URL + "/private/c"}
	busySeeds := []string{busySrv.URL + "/doc/0", busySrv.URL + "/doc/1", busySrv.URL + "/private/a"}
	db := mustOpen(t)
	outDir := filepath.Join(t.TempDir(), "out")

	origins := []struct {
		name     string
		srv      *fakeSite
		o        *crawltest.Origin
		excluded int
	}{{"busy", busySrv, busy, 1}, {"mixed", mixedSrv, mixed, 2}}

	runs := []struct {
		seeds                  []string
		done, notModified, exc int
	}{
		// The pages, the redirect's two hops and its target; 404 and 501 dead.
		{seeds: mixedSeeds, done: 5, exc: 2},
		// The busy origin's two pages; the calm one's pages unchanged.
		{seeds: append(mixedSeeds, busySeeds...), done: 4, notModified: 3, exc: 3},
	}
	for i, want := range runs {
		run := i + 1
		busy.Reset()
		mixed.Reset()
		cfg := fastConfig(t, want.seeds...)
		cfg.OutDir = outDir
		web.use(&cfg)
		cfg.Pace.Start = 5 * time.Millisecond // the second page comes too soon for the busy origin's 2/s
		rep, err := crawl.Run(context.Background(), db, cfg)
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		if run == 2 && busy.Stats().ByStatus[429] == 0 {
			t.Fatalf("the busy origin never answered 429; the test does not test throttling")
		}
		byHost := map[string]*report.HostStats{}
		for _, h := range rep.Hosts {
			byHost[h.Host] = h
		}
		var total report.Totals
		for _, o := range origins {
			st := o.o.Stats()
			h := byHost[o.srv.key()]
			if h == nil && st.Requests == 0 {
				continue
			}
			if h == nil {
				t.Fatalf("run %d: no report for the %s origin", run, o.name)
			}
			in := func(lo, hi int, except ...int) int {
				n := 0
				for code, c := range st.ByStatus {
					if code >= lo && code <= hi && !containsInt(except, code) {
						n += c
					}
				}
				return n
			}
			retries := 0
			for p, n := range st.ByPath {
				if !strings.HasPrefix(p, "/robots") {
					retries += n - 1
				}
			}
			figures := []struct {
				name      string
				got, want int
			}{
				{"requests", h.Requests, st.Requests},
				{"2xx", h.S2xx, in(200, 299)},
				{"304", h.S304, st.NotModified},
				{"3xx", h.S3xx, in(300, 399, 304)},
				{"4xx", h.S4xx, in(400, 499, 429)},
				{"429", h.S429, st.ByStatus[429]},
				{"5xx", h.S5xx, in(500, 599)},
				{"503", h.S503, st.ByStatus[503]},
				{"Retry-After waits", h.RetryAfters, st.ByStatus[429] + st.ByStatus[503]},
				{"retries", h.Retries, retries},
				{"errors", h.Errors, 0},
				{"excluded by robots", h.Excluded, o.excluded},
				{"requests to disallowed paths", st.Disallowed, 0},
				{"bytes", int(h.Bytes), int(st.BytesServed)},
				{"timeline points", len(h.Timeline), st.Requests},
			}
			for _, f := range figures {
				if f.got != f.want {
					t.Errorf("run %d, %s origin: report says %s = %d, the origin counted %d", run, o.name, f.name, f.got, f.want)
				}
			}
			if h.P50MS <= 0 || h.P95MS < h.P50MS || h.MaxMS < h.P95MS {
				t.Errorf("run %d, %s origin: latencies p50 %.3f p95 %.3f max %.3f ms, want 0 < p50 <= p95 <= max", run, o.name, h.P50MS, h.P95MS, h.MaxMS)
			}
			total.Requests += st.Requests
			total.Throttled += st.ByStatus[429] + st.ByStatus[503]
			total.Bytes += st.BytesServed
			total.Retries += retries
		}
		if rep.Totals.Requests != total.Requests || rep.Totals.Throttled != total.Throttled ||
			rep.Totals.Bytes != total.Bytes || rep.Totals.Retries != total.Retries {
			t.Errorf("run %d: totals %+v; the origins counted %d requests, %d throttled, %d bytes, %d retries",
				run, rep.Totals, total.Requests, total.Throttled, total.Bytes, total.Retries)
		}
		if rep.Totals.Done != want.done || rep.Totals.NotModified != want.notModified || rep.Totals.Excluded != want.exc {
			t.Errorf("run %d: totals %+v; want %d done, %d not modified, %d excluded", run, rep.Totals, want.done, want.notModified, want.exc)
		}
		if run == 1 && (rep.Totals.Dead != 2 || len(rep.Dead) != 2 || rep.ExitCode != 1) {
			t.Errorf("run 1: %d dead, %d listed, exit %d; want 2 dead (404, 501), exit 1", rep.Totals.Dead, len(rep.Dead), rep.ExitCode)
		}
		checkReportFiles(t, cfg.OutDir, rep)
	}
}

// checkReportFiles checks that report.json holds the report Run returned
// and that report.html is well-formed, self-contained and draws each host.
func checkReportFiles(t *testing.T, dir string, rep *report.Report) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var onDisk report.Report
	if err := json.Unmarshal(data, &onDisk); err != nil {
		t.Fatalf("report.json: %v", err)
	}
	want, _ := json.Marshal(rep)
	got, _ := json.Marshal(&onDisk)
	if string(got) != string(want) {
		t.Errorf("report.json differs from the report Run returned:\n got %s\nwant %s", got, want)
	}
	// Written as a stream, it reads as the report indented whole would.
	if indented, _ := json.MarshalIndent(rep, "", "  "); string(data) != string(indented)+"\n" {
		t.Errorf("report.json is not the report indented by two spaces and a newline:\n%s", data)
	}
	if abs, _ := filepath.Abs(dir); onDisk.OutDir != abs {
		t.Errorf("report.json out_dir = %q, want %q", onDisk.OutDir, abs)
	}
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	var hosts []string
	for _, h := range rep.Hosts {
		hosts = append(hosts, h.Host)
	}
	reporttest.CheckReportHTML(t, page, hosts)
}

func containsInt(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
