package e2etest

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/clock"
	"github.com/polite-crawler/polite/crawl/crawltest"
	"github.com/polite-crawler/polite/crawl/warc/warciotest"
	"github.com/polite-crawler/polite/store"
)

// rerunOrigin is the test origin, and on its second run (second.Load())
// a site whose /page/1 ignores validators (a 200 of the same bytes) and
// whose /page/2 changed.
func rerunOrigin(t *testing.T, second *atomic.Bool) *httptest.Server {
	t.Helper()
	o := crawltest.New(crawltest.Config{Pages: 3, Robots: "User-agent: *\nAllow: /\n"})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case second.Load() && r.URL.Path == "/page/1":
			r.Header.Del("If-None-Match")
			r.Header.Del("If-Modified-Since")
		case second.Load() && r.URL.Path == "/page/2":
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<html><body>page 2, changed</body></html>"))
			return
		}
		o.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func warcFiles(t *testing.T, out string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(out, "warc", "*.warc.gz"))
	if err != nil || len(files) == 0 {
		t.Fatalf("WARC files under %s: %v, %v", out, files, err)
	}
	slices.Sort(files)
	return files
}

// A crawl with Warc keeps every fetch, robots.txt included, as WARC
// records that warcio.js reads; its conditional re-run writes revisits
// for a 304 and for an unchanged 200, and a new response for a changed
// page; a body over the limit is recorded cut, a gzip body as sent. Both
// runs pace on one fake clock, from the wall's now (the HTTP client notes
// when a request left on the wall's clock).
func TestWarcCrawlAndRerun(t *testing.T) {
	t.Parallel() // its own origin, database, output folder and warcio.js processes
	if os.Getenv("POLITE_WARCIO_DIR") == "" {
		t.Skip("POLITE_WARCIO_DIR is not set: install warcio.js with `npm install --prefix DIR warcio@2.4` and set it to DIR (.ci/run does)")
	}
	var second atomic.Bool
	srv := rerunOrigin(t, &second)
	pages := []string{srv.URL + "/page/0", srv.URL + "/page/1", srv.URL + "/page/2"}
	cfg := fastConfig(t, append(pages, srv.URL+"/big/5000", srv.URL+"/gzipbomb/3000")...)
	cfg.Warc, cfg.MaxBody, cfg.Software = true, 4000, "polite/test"
	crawltest.OnClock(t, &cfg, clock.NewFake(time.Now()))
	db := mustOpen(t)

	if _, err := crawl.Run(context.Background(), db, cfg); err != nil {
		t.Fatalf("first run: %v", err)
	}
	first := warcFiles(t, cfg.OutDir)
	c := warciotest.Check(t, first...)
	want := map[string]int{"warcinfo": 1, "request": 6, "response": 6}
	for typ, n := range want {
		if c.Counts[typ] != n {
			t.Errorf("first run: %d %s records, want %d (counts %v)", c.Counts[typ], typ, n, c.Counts)
		}
	}
	byURI := map[string]int{}
	for i, r := range c.Records {
		if r.Type != "response" {
			continue
		}
		byURI[strings.TrimPrefix(r.URI, srv.URL)] = i
		if r.IP != "127.0.0.1" {
			t.Errorf("%s: WARC-IP-Address %q, want 127.0.0.1", r.URI, r.IP)
		}
		if r.Status == nil || *r.Status != 200 {
			t.Errorf("%s: status %v, want 200", r.URI, r.Status)
		}
	}
	for _, p := range []string{"/robots.txt", "/page/0", "/page/1", "/page/2", "/big/5000", "/gzipbomb/3000"} {
		if _, ok := byURI[p]; !ok {
			t.Errorf("first run: no response record of %s", p)
		}
	}
	if r := c.Records[byURI["/big/5000"]]; r.Truncated == nil || *r.Truncated != "length" {
		t.Errorf("/big/5000 over --max-body: WARC-Truncated %v, want length", r.Truncated)
	}
	gz := c.Records[byURI["/gzipbomb/3000"]]
	head, _ := base64.StdEncoding.DecodeString(gz.Head)
	if !strings.Contains(strings.ToLower(string(head)), "content-encoding: gzip") || gz.ContentLength-int64(len(head)) >= 3000 {
		t.Errorf("/gzipbomb/3000: head %q, block %d bytes; want the gzip bytes as sent, with Content-Encoding", head, gz.ContentLength)
	}
	e, err := db.Get(cfg.Job, pages[0])
	if err != nil || e.WarcID != c.Records[byURI["/page/0"]].ID || e.WarcDigest != c.Records[byURI["/page/0"]].PayloadDigest {
		t.Errorf("stored capture of /page/0 = %q %q, %v; want the response record's id and digest", e.WarcID, e.WarcDigest, err)
	}

	second.Store(true)
	if _, err := crawl.Run(context.Background(), db, cfg); err != nil {
		t.Fatalf("second run: %v", err)
	}
	all := warcFiles(t, cfg.OutDir)
	if len(all) <= len(first) {
		t.Fatalf("second run wrote no new file: %v", all)
	}
	c2 := warciotest.Check(t, all...)
	checkRerun(t, c2, srv.URL, first)
	body, err := os.ReadFile(filepath.Join(cfg.OutDir, strings.TrimPrefix(mustBodyPath(t, db, cfg.Job, pages[2]), "/")))
	if err != nil || !strings.Contains(string(body), "changed") {
		t.Errorf("plain file of /page/2 = %q, %v; want the changed page", body, err)
	}
}

// checkRerun checks the second run's records among all of them.
func checkRerun(t *testing.T, c warciotest.Checked, base string, first []string) {
	t.Helper()
	type got struct{ typ, profile string }
	want := map[string]got{
		"/page/0": {"revisit", "http://netpreserve.org/warc/1.1/revisit/server-not-modified"},
		"/page/1": {"revisit", "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"},
		"/page/2": {"response", ""},
	}
	firstNames := map[string]bool{}
	for _, f := range first {
		firstNames[filepath.Base(f)] = true
	}
	seen := map[string]bool{}
	var firstDigest2, secondDigest2 string
	for _, r := range c.Records {
		p := strings.TrimPrefix(r.URI, base)
		if p == "/page/2" && r.Type == "response" {
			if firstNames[r.File] {
				firstDigest2 = r.PayloadDigest
			} else {
				secondDigest2 = r.PayloadDigest
			}
		}
		w, ok := want[p]
		if !ok || firstNames[r.File] || r.Type == "request" {
			continue
		}
		seen[p] = true
		if r.Type != w.typ || r.Profile != w.profile {
			t.Errorf("second run %s: %s %q, want %s %q", p, r.Type, r.Profile, w.typ, w.profile)
		}
		if r.Type == "revisit" && !(r.RefersToFound && r.RefersToDigest && r.RefersToURIDate) {
			t.Errorf("second run %s: revisit refers to %s (%s %s), not found with the same digest, URI and date", p, r.RefersTo, r.RefersToURI, r.RefersToDate)
		}
	}
	for p := range want {
		if !seen[p] {
			t.Errorf("second run: no record of %s", p)
		}
	}
	if firstDigest2 == "" || secondDigest2 == "" || firstDigest2 == secondDigest2 {
		t.Errorf("/page/2 payload digests %q then %q, want two different captures", firstDigest2, secondDigest2)
	}
}

func mustBodyPath(t *testing.T, db *store.DB, job, u string) string {
	t.Helper()
	e, err := db.Get(job, u)
	if err != nil || e.File == "" {
		t.Fatalf("entry %s: %+v, %v", u, e, err)
	}
	return e.File
}

// A run interrupted by a signal closes its WARC file and writes its index;
// the run that resumes the job writes a new file, and warcio.js reads
// both, every fetch that finished a request and a response. The runs and
// the origin share a fake clock: the first run is interrupted as
// /slow/300 arrives, and the grace ends long before its 300 ms do.
func TestWarcInterruptedAndResumed(t *testing.T) {
	t.Parallel() // its own origin, database, output folder and warcio.js processes
	if os.Getenv("POLITE_WARCIO_DIR") == "" {
		t.Skip("POLITE_WARCIO_DIR is not set: install warcio.js with `npm install --prefix DIR warcio@2.4` and set it to DIR (.ci/run does)")
	}
	clk := clock.NewFake(time.Now())
	o := crawltest.New(crawltest.Config{Clock: clk})
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow/300" && ctx.Err() == nil {
			// The signal wakes the first run's loop: the clock must not
			// move on before the loop has seen it and waits again. The
			// loop checks for a signal before it says it waits; one it
			// said so before, this says it woke.
			cancel(&crawl.Interrupted{Signal: "SIGTERM", Code: 143})
			clk.Waiting(false)
		}
		o.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	seeds := []string{srv.URL + "/first", srv.URL + "/slow/300", srv.URL + "/later/1", srv.URL + "/later/2"}
	cfg := fastConfig(t, seeds...)
	cfg.Warc, cfg.Grace = true, 10*time.Millisecond
	crawltest.OnClock(t, &cfg, clk)
	db := mustOpen(t)
	if _, err := crawl.Run(ctx, db, cfg); err == nil {
		t.Fatal("interrupted run: no error")
	}
	first := warcFiles(t, cfg.OutDir)
	if len(first) != 1 {
		t.Fatalf("interrupted run wrote %v, want one file", first)
	}
	if _, err := os.Stat(strings.TrimSuffix(first[0], ".warc.gz") + ".cdxj"); err != nil {
		t.Errorf("index of the interrupted run's file: %v", err)
	}
	c := warciotest.Check(t, first...)
	if c.Counts["warcinfo"] != 1 || c.Counts["response"] != 2 || c.Counts["request"] != 2 {
		var uris []string
		for _, r := range c.Records {
			uris = append(uris, r.Type+" "+r.URI)
		}
		t.Errorf("interrupted run: counts %v (%s), want a warcinfo and robots.txt and /first each a request and a response", c.Counts, strings.Join(uris, ", "))
	}

	cfg.Grace = 2 * time.Second
	if _, err := crawl.Run(context.Background(), db, cfg); err != nil {
		t.Fatalf("resumed run: %v", err)
	}
	all := warcFiles(t, cfg.OutDir)
	if len(all) != 2 {
		t.Fatalf("after the resumed run: %v, want a second file", all)
	}
	c = warciotest.Check(t, all...)
	if c.Counts["warcinfo"] != 2 || c.Counts["response"] != 5 {
		t.Errorf("both runs: counts %v, want two warcinfo, and responses of robots.txt, /first, /slow/300 and /later/1 and 2", c.Counts)
	}
}

// With --warc --sitemaps every request that got an answer is in the WARC
// files: robots.txt, the sitemap index, its sitemaps and the pages, as
// many response records as the origin answered requests.
func TestWarcRecordsSitemaps(t *testing.T) {
	t.Parallel()
	if os.Getenv("POLITE_WARCIO_DIR") == "" {
		t.Skip("POLITE_WARCIO_DIR is not set: install warcio.js with `npm install --prefix DIR warcio@2.4` and set it to DIR (.ci/run does)")
	}
	robots := "User-agent: *\nAllow: /\n" // the origin adds its Sitemap line
	o := crawltest.New(crawltest.Config{Sitemap: &crawltest.SitemapConfig{Pages: 3}, Robots: robots})
	var asked atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		o.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	cfg := fastConfig(t, srv.URL+"/")
	cfg.Warc, cfg.Sitemaps = true, true
	crawltest.OnClock(t, &cfg, clock.NewFake(time.Now()))
	if _, err := crawl.Run(context.Background(), mustOpen(t), cfg); err != nil {
		t.Fatal(err)
	}
	c := warciotest.Check(t, warcFiles(t, cfg.OutDir)...)
	var sitemaps []string
	for _, r := range c.Records {
		if r.Type == "response" && strings.Contains(r.URI, "sitemap") {
			sitemaps = append(sitemaps, r.URI)
		}
	}
	if n := int(asked.Load()); c.Counts["response"] != n || c.Counts["request"] != n || len(sitemaps) == 0 {
		t.Errorf("%d requests answered; %d request and %d response records, sitemaps among them %v; want one each per request",
			n, c.Counts["request"], c.Counts["response"], sitemaps)
	}
}
