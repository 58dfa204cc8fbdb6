package main

import (
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polite-crawler/polite/crawl/crawltest"
)

// excludeSites serves two origins on loopback: kept, reached by the name
// localhost, and gone, reached by the address 127.0.0.1, which the rule
// "127.0.0.1" excludes (every port of it) and "localhost" does not; and a
// seed file of n pages of each.
func excludeSites(t *testing.T, n int) (kept, gone *crawltest.Origin, keptURL, goneURL, seeds string) {
	t.Helper()
	kept, keptSrv := serve(t, crawltest.Config{})
	gone, goneSrv := serve(t, crawltest.Config{Robots: "User-agent: *\nAllow: /\n"})
	keptURL = strings.Replace(keptSrv.URL, "127.0.0.1", "localhost", 1)
	var s strings.Builder
	for i := range n {
		fmt.Fprintf(&s, "%s/item/%d\n%s/item/%d\n", goneSrv.URL, i, keptURL, i)
	}
	return kept, gone, keptURL, goneSrv.URL, writeFile(t, "seeds.txt", s.String())
}

// checkExcludedRun checks a crawl that ran after `exclude add 127.0.0.1`:
// exit 0, the excluded origin asked nothing, not even robots.txt, the
// other fetched whole, and the summary and status --job say why.
func checkExcludedRun(t *testing.T, db string, r result, kept, gone *crawltest.Origin, n int) {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("crawl exit %d, want 0\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if got := gone.Stats().Requests; got != 0 {
		t.Errorf("the excluded host got %d requests (%v), want none, robots.txt included", got, gone.Stats().ByPath)
	}
	if got := kept.Stats().Requests - kept.Stats().Robots; got != n {
		t.Errorf("the other host got %d page requests, want its %d", got, n)
	}
	if want := fmt.Sprintf("%d done, 0 not modified, %d excluded", n, n); !strings.Contains(r.stdout, want) ||
		!strings.Contains(r.stdout, "stopped (excluded by the operator: 127.0.0.1)") {
		t.Errorf("summary does not say %q and why:\n%s", want, r.stdout)
	}
	st := run(t, "", "status", "--db", db, "--job", "ex", "--json")
	if st.code != 0 || !strings.Contains(st.stdout, fmt.Sprintf(`"excluded": %d`, n)) {
		t.Errorf("status --job: exit %d\n%s%s", st.code, st.stdout, st.stderr)
	}
}

// exclude add HOST, then a crawl: that host gets no request of any kind;
// list and status show the rule; removed, the next run fetches its URLs.
func TestCLIExcludeHostThenCrawl(t *testing.T) {
	const n = 5
	kept, gone, _, goneURL, seeds := excludeSites(t, n)
	db := filepath.Join(t.TempDir(), "polite.db")
	if r := run(t, "", "exclude", "add", "--db", db, "127.0.0.1", "--reason", "asked us to stop"); r.code != 0 ||
		r.stdout != "excluded 127.0.0.1 (host, every port and scheme)\n" {
		t.Fatalf("exclude add: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r := run(t, "", append([]string{"crawl", "--db", db, "--job", "ex", "--out", t.TempDir(), seeds}, fast...)...)
	checkExcludedRun(t, db, r, kept, gone, n)
	for _, args := range [][]string{{"exclude", "list"}, {"status"}} {
		r := run(t, "", append(args, "--db", db)...)
		if r.code != 0 || !strings.Contains(r.stdout, "127.0.0.1") || !strings.Contains(r.stdout, "asked us to stop") {
			t.Errorf("%s does not show the rule: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
		}
	}
	if r := run(t, "", "exclude", "remove", "--db", db, "127.0.0.1"); r.code != 0 {
		t.Fatalf("exclude remove: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = run(t, "", append([]string{"crawl", "--db", db, "--job", "ex", "--out", t.TempDir(), seeds}, fast...)...)
	if got := gone.Stats().ByPath["/item/0"]; r.code != 0 || got != 1 {
		t.Errorf("after exclude remove: exit %d, %s/item/0 asked %d times, want once\n%s%s", r.code, goneURL, got, r.stdout, r.stderr)
	}
}

// excludeWhileCrawling starts a crawl on db of n pages per host, adds
// the rule 127.0.0.1 while the excluded host's page /item/2 is in flight
// (the crawl holds the database), runs during whatever the test wants
// while the crawl is still held, then lets the page go: it is the host's
// last request.
func excludeWhileCrawling(t *testing.T, db string, n int, during func()) {
	t.Helper()
	kept, keptSrv := serve(t, crawltest.Config{})
	gone := crawltest.New(crawltest.Config{Clock: announcer{}})
	gate := holdPath(gone, "/item/2")
	goneSrv := httptest.NewServer(gate)
	t.Cleanup(goneSrv.Close)
	var s strings.Builder
	for i := range n {
		fmt.Fprintf(&s, "%s/item/%d\n%s/item/%d\n", goneSrv.URL, i, strings.Replace(keptSrv.URL, "127.0.0.1", "localhost", 1), i)
	}
	seeds := writeFile(t, "seeds.txt", s.String())
	p := start(t, append([]string{"crawl", "--db", db, "--job", "ex", "--out", t.TempDir(), seeds}, fast...)...)
	<-gate.arrived
	// exclude add needs no crawl lock: it returns while the crawl runs.
	if r := run(t, "", "exclude", "add", "--db", db, "127.0.0.1"); r.code != 0 {
		t.Fatalf("exclude add during the crawl: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	during()
	close(gate.release)
	if code := p.wait(); code != 0 {
		t.Fatalf("crawl exit %d, want 0\n%s%s", code, p.stdout.String(), p.stderr.String())
	}
	byPath := gone.Stats().ByPath
	for i := range n {
		want := 0
		if i <= 2 {
			want = 1
		}
		if got := byPath[fmt.Sprintf("/item/%d", i)]; got != want {
			t.Errorf("/item/%d of the excluded host asked %d times, want %d: /item/2, in flight when the rule came, is its last", i, got, want)
		}
	}
	if got := kept.Stats().Requests - kept.Stats().Robots; got != n {
		t.Errorf("the other host got %d page requests, want its %d", got, n)
	}
	if out := p.stdout.String(); !strings.Contains(out, fmt.Sprintf("%d excluded", n-3)) ||
		!strings.Contains(out, "excluded by the operator: 127.0.0.1") {
		t.Errorf("summary does not say the %d pages left were excluded by the operator:\n%s", n-3, out)
	}
}

// exclude add while a crawl runs on the SQLite file stops its requests to
// the rule from its next dispatch pass on.
func TestCLIExcludeAddDuringCrawl(t *testing.T) {
	excludeWhileCrawling(t, filepath.Join(t.TempDir(), "polite.db"), 8, func() {})
}

// The same on a shared PostgreSQL database (under pgtest.sh): exclude add
// then a crawl sends the host nothing; exclude add during a crawl stops
// the live worker's requests; exclude remove refuses (exit 3) beside it.
func TestCLIPostgresExclude(t *testing.T) {
	t.Run("add then crawl", func(t *testing.T) {
		const n = 5
		db, _ := pgSchema(t)
		kept, gone, _, _, seeds := excludeSites(t, n)
		if r := run(t, "", "exclude", "add", "--db", db, "127.0.0.1"); r.code != 0 {
			t.Fatalf("exclude add: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		r := run(t, "", append([]string{"crawl", "--db", db, "--job", "ex", "--out", t.TempDir(), seeds}, fast...)...)
		checkExcludedRun(t, db, r, kept, gone, n)
	})
	t.Run("add during a crawl, remove beside its worker", func(t *testing.T) {
		db, _ := pgSchema(t)
		excludeWhileCrawling(t, db, 8, func() {
			r := run(t, "", "exclude", "remove", "--db", db, "127.0.0.1")
			if r.code != 3 || !strings.Contains(r.stderr, "crawl worker is live") || !strings.Contains(r.stderr, "run exclude remove when they have ended") {
				t.Errorf("exclude remove beside a live worker: exit %d, stderr %q; want 3 naming it", r.code, r.stderr)
			}
		})
		if r := run(t, "", "exclude", "remove", "--db", db, "127.0.0.1"); r.code != 0 {
			t.Errorf("exclude remove once the crawl ended: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
	})
}
