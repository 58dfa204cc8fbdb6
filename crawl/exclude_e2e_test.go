package crawl_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/urls"
	"github.com/polite-crawler/polite/store"
)

// asked is how many requests the site got, robots.txt included.
func (l *hitLog) asked() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.hits)
}

// paths lists every path the site was asked for, robots.txt included.
func (l *hitLog) paths() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var ps []string
	for _, h := range l.hits {
		ps = append(ps, h.path)
	}
	return ps
}

// staticPages answers every path with a small HTML page; body gives some paths
// their own.
func staticPages(body map[string]string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><body>%s %s</body></html>", r.URL.Path, body[r.URL.Path])
	})
}

func mustExclude(t *testing.T, db *store.DB, rules ...string) {
	t.Helper()
	for _, r := range rules {
		if _, err := db.AddExclusion(frontier.Exclusion{Rule: r}); err != nil {
			t.Fatal(err)
		}
	}
}

// The operator's rules keep every request of any kind away from what they
// cover: a host rule its robots.txt, seeds, links, redirects into it and
// a robots.txt redirect into it; a domain rule its names; a prefix rule,
// under both schemes, the URLs it covers and no other URL of the host.
// What they kept away is reported as excluded by the operator, with the
// rule, and the run exits 0.
func TestExclusionListKeepsEveryRequestAway(t *testing.T) {
	t.Parallel()
	web := newFakeWeb(t)
	a := web.add("a.example", staticPages(map[string]string{
		"/links": `<a href="http://b.example/linked">b</a> <a href="/private/5">p</a> <a href="/2">2</a>
			<a href="http://sub.d.example/linked">d</a>`,
	}))
	aMux := a.h
	a.h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/to-b" {
			http.Redirect(w, r, "http://b.example/target", http.StatusFound)
			return
		}
		aMux.ServeHTTP(w, r)
	})
	b := web.add("b.example", staticPages(nil))
	d := web.add("www.d.example", staticPages(nil))
	// r.example's robots.txt redirects into b.example: not followed, so
	// robots.txt counts as unavailable and r.example's pages are fetched.
	rr := web.add("r.example", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.Redirect(w, r, "http://b.example/robots.txt", http.StatusMovedPermanently)
			return
		}
		fmt.Fprint(w, "r")
	}))
	cfg := fastConfig(t, a.URL+"/1", a.URL+"/private/3", a.URL+"/to-b", a.URL+"/links",
		b.URL+"/seed", d.URL+"/seed", rr.URL+"/page")
	cfg.Depth, cfg.Scope = 1, urls.ScopeAny
	web.use(&cfg)
	db := mustOpen(t)
	mustExclude(t, db, "b.example", ".d.example", "https://a.example/private/")

	rep, err := crawl.Run(context.Background(), db, cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if n := b.asked(); n != 0 {
		t.Errorf("b.example got %d requests (%v), want none: not even robots.txt", n, b.paths())
	}
	if n := d.asked(); n != 0 {
		t.Errorf("www.d.example got %d requests (%v), want none", n, d.paths())
	}
	for _, p := range []string{"/private/3", "/private/5"} {
		if n := a.count(p); n != 0 {
			t.Errorf("a.example%s requested %d times, want never", p, n)
		}
	}
	for _, p := range []string{"/1", "/2", "/to-b", "/links"} {
		if n := a.count(p); n != 1 {
			t.Errorf("a.example%s requested %d times, want once: a prefix rule leaves the host's other URLs alone", p, n)
		}
	}
	if n := rr.count("/page"); n != 1 {
		t.Errorf("r.example/page requested %d times, want once (robots.txt unavailable: its redirect is not followed)", n)
	}
	want := map[string]string{
		a.URL + "/private/3":          "https://a.example/private/",
		a.URL + "/private/5":          "https://a.example/private/",
		b.URL + "/seed":               "b.example",
		b.URL + "/target":             "b.example",
		b.URL + "/linked":             "b.example",
		d.URL + "/seed":               ".d.example",
		"http://sub.d.example/linked": ".d.example",
	}
	for u, rule := range want {
		e := mustGet(t, db, cfg.Job, u)
		if e.State != frontier.Excluded || e.Reason != frontier.ExcludedBy(rule) {
			t.Errorf("%s: %s %q, want excluded, %q", u, e.State, e.Reason, frontier.ExcludedBy(rule))
		}
	}
	if rep.ExitCode != 0 || rep.Totals.Excluded != len(want) {
		t.Errorf("exit %d, %d excluded; want exit 0 and the %d URLs the rules cover", rep.ExitCode, rep.Totals.Excluded, len(want))
	}
	stopped := map[string]frontier.Stop{}
	for _, h := range rep.Hosts {
		stopped[h.Host] = h.Stopped
		if h.Stopped == frontier.StopOperator && h.Requests != 0 {
			t.Errorf("host %s excluded by the operator counts %d requests", h.Host, h.Requests)
		}
	}
	for _, h := range []string{"b.example", "www.d.example", "sub.d.example"} {
		if stopped[h] != frontier.StopOperator {
			t.Errorf("host %s stopped %q, want %q", h, stopped[h], frontier.StopOperator)
		}
	}
	wantBy := `[{.d.example [sub.d.example www.d.example] 0} {b.example [b.example] 0} {https://a.example/private/ [] 2}]`
	if got := fmt.Sprint(rep.ExcludedBy); got != wantBy {
		t.Errorf("excluded_by_operator = %s, want %s", got, wantBy)
	}
	var text bytes.Buffer
	rep.WriteText(&text)
	for _, s := range []string{"2 URLs excluded by the operator: https://a.example/private/",
		"stopped (excluded by the operator: b.example): b.example"} {
		if !strings.Contains(text.String(), s) {
			t.Errorf("summary does not say %q:\n%s", s, text.String())
		}
	}
}

// A rule added while a crawl runs stops its requests from the next
// dispatch pass on: the request in flight when it was added is the
// host's last; another host goes on to its end. Removed, the rule lets
// the next run fetch what it had kept away.
func TestExclusionAddedWhileTheCrawlRuns(t *testing.T) {
	t.Parallel()
	web := newFakeWeb(t)
	db := mustOpen(t)
	var once sync.Once
	a := web.add("a.example", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/5" {
			// The operator adds the rule while this request is in flight.
			once.Do(func() {
				if _, err := db.AddExclusion(frontier.Exclusion{Rule: "a.example"}); err != nil {
					t.Error(err) // not Fatal: this is the fetching goroutine
				}
			})
		}
		fmt.Fprint(w, r.URL.Path)
	}))
	c := web.add("c.example", staticPages(nil))
	var seeds []string
	for i := range 20 {
		seeds = append(seeds, fmt.Sprintf("%s/%d", a.URL, i), fmt.Sprintf("%s/%d", c.URL, i))
	}
	cfg := fastConfig(t, seeds...)
	web.use(&cfg)
	rep, err := crawl.Run(context.Background(), db, cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	got := a.paths()
	if last := got[len(got)-1]; last != "/5" || a.count("/5") != 1 {
		t.Errorf("a.example was asked %v; want /5, in flight when the rule came, to be its last", got)
	}
	if n := len(c.log()); n != 20 {
		t.Errorf("c.example got %d of its 20 URLs, want all: the rule is a.example's", n)
	}
	if e := mustGet(t, db, cfg.Job, a.URL+"/19"); e.State != frontier.Excluded || e.Reason != frontier.ExcludedBy("a.example") {
		t.Errorf("a.example/19: %s %q, want excluded by the operator: a.example", e.State, e.Reason)
	}
	if rep.ExitCode != 0 || rep.Totals.Excluded != 14 || rep.Totals.Done != 26 {
		t.Errorf("exit %d, %d done, %d excluded; want 0, 26 and 14", rep.ExitCode, rep.Totals.Done, rep.Totals.Excluded)
	}

	// The rule removed, the next run fetches what it kept away.
	if ok, err := db.RemoveExclusion("a.example"); !ok || err != nil {
		t.Fatalf("RemoveExclusion = %v, %v", ok, err)
	}
	before := len(a.log())
	if _, err := crawl.Run(context.Background(), db, cfg); err != nil {
		t.Fatalf("second Run: %v", err)
	}
	if n := len(a.log()) - before; n < 14 {
		t.Errorf("the run after the removal asked a.example for %d URLs, want at least the 14 kept away", n)
	}
	if e := mustGet(t, db, cfg.Job, a.URL+"/19"); e.State != frontier.Done {
		t.Errorf("a.example/19 after the removal: %s, want done", e.State)
	}
}
