package crawl_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/report"
	"github.com/polite-crawler/polite/crawl/revisit"
)

// nightlySite is a site whose pages change at their own rates, night by
// night: /static/N never (it answers If-None-Match with 304), /daily
// every night, /gone until night goneFrom, then 404.
type nightlySite struct {
	mu    sync.Mutex
	night int
	hits  map[string]int // requests per path this night
}

const (
	goneFrom       = 3 // the night /gone answers 404 from
	nightlySiteURL = "http://site.example"
)

func (s *nightlySite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hits[r.URL.Path]++
	switch p := r.URL.Path; {
	case p == "/robots.txt":
		http.NotFound(w, r)
	case p == "/daily":
		fmt.Fprintf(w, "news of night %d", s.night)
	case p == "/gone" && s.night >= goneFrom:
		http.NotFound(w, r)
	case p == "/gone":
		fmt.Fprint(w, "here for now")
	case strings.HasPrefix(p, "/static/"):
		w.Header().Set("ETag", `"same"`)
		if r.Header.Get("If-None-Match") == `"same"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		fmt.Fprint(w, "the same page, every night")
	default:
		http.NotFound(w, r)
	}
}

// nextNight starts night n: its requests counted afresh.
func (s *nightlySite) nextNight(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.night, s.hits = n, map[string]int{}
}

func (s *nightlySite) count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

// TestRevisitNightAfterNight is a cron job's ten nights on the crawl's
// clock: unchanged pages are asked for less and less often (and left as
// "not due" in between), the page that changes every night every night,
// a page that disappears is reported gone (exit 0) and asked again at
// --revisit-max; every run's report and manifest say what changed.
func TestRevisitNightAfterNight(t *testing.T) {
	t.Parallel()
	const site, statics, nights = nightlySiteURL, 5, 10
	seedURLs := []string{site + "/daily", site + "/gone"}
	for i := range statics {
		seedURLs = append(seedURLs, fmt.Sprintf("%s/static/%d", site, i))
	}
	cfg := fastConfig(t, seedURLs...)
	cfg.Revisit = revisit.Policy{Mode: revisit.Adaptive, Max: 4 * 24 * time.Hour}
	f, clk := newFetcher(t, &cfg)
	origin := &nightlySite{}
	f.Handler = origin
	db := mustOpen(t)

	staticFetched, dailyFetched := 0, 0
	var staticNights []int
	for n := range nights {
		origin.nextNight(n)
		rep, err := crawl.Run(context.Background(), db, cfg)
		if err != nil || rep.ExitCode != 0 {
			t.Fatalf("night %d: exit %d, %v (dead %v)", n, rep.ExitCode, err, rep.Dead)
		}
		asked := origin.count("/static/0")
		for i := range statics {
			if got := origin.count(fmt.Sprintf("/static/%d", i)); got != asked {
				t.Errorf("night %d: /static/%d asked %d times, /static/0 %d: pages with one history share one schedule", n, i, got, asked)
			}
		}
		if asked > 0 {
			staticNights = append(staticNights, n)
		}
		staticFetched += asked * statics
		dailyFetched += origin.count("/daily")
		if origin.count("/daily") != 1 {
			t.Errorf("night %d: the daily page asked %d times, want every night once", n, origin.count("/daily"))
		}
		checkNight(t, n, rep, asked, statics)
		// /gone keeps the static pages' schedule while it is there, and
		// is asked again --revisit-max (4 days) after it went.
		wantGone := n == 0 || n == 1 || n == goneFrom || n == goneFrom+4
		if got := origin.count("/gone") == 1; got != wantGone {
			t.Errorf("night %d: /gone asked %d times, want asked %v", n, origin.count("/gone"), wantGone)
		}
		clk.Advance(24 * time.Hour)
	}
	// Nights 0 and 1 learn the first interval (a day); then 1.5 days,
	// then 3 (from the 2 days it stayed the same), then --revisit-max's
	// 4: nights 0, 1, 3, 6 (each due a tenth of its interval early).
	if want := []int{0, 1, 3, 6}; fmt.Sprint(staticNights) != fmt.Sprint(want) {
		t.Errorf("static pages asked on nights %v, want %v", staticNights, want)
	}
	always := nights * statics
	t.Logf("static pages: %d requests in %d nights, %d with --revisit always; daily page: %d", staticFetched, nights, always, dailyFetched)
	if staticFetched*2 > always {
		t.Errorf("static pages asked %d times in %d nights, want at most half of --revisit always's %d", staticFetched, nights, always)
	}
	e, err := db.Get(cfg.Job, site+"/static/0")
	if err != nil || e.Revisit.Fetches != len(staticNights) || e.Revisit.Changes != 0 || e.Revisit.Every.Round(time.Minute) != 96*time.Hour {
		t.Errorf("stored history of /static/0: %+v, %v; want %d fetches, no change, a 4 day interval", e.Revisit, err, len(staticNights))
	}
}

// TestRevisitAlwaysAndNotDue: a URL not due is skipped and counted as
// such, never as a failure; --revisit always (as a run of URLs named on
// the command line is) asks for it all the same.
func TestRevisitAlwaysAndNotDue(t *testing.T) {
	t.Parallel()
	const site = "http://site.example"
	cfg := fastConfig(t, site+"/static/0", site+"/static/1")
	f, clk := newFetcher(t, &cfg)
	origin := &nightlySite{}
	f.Handler = origin
	db := mustOpen(t)
	for n, tt := range []struct {
		name      string
		mode      revisit.Mode
		wantAsked int
		notDue    int
	}{
		{"first night", revisit.Adaptive, 1, 0},
		{"second night: due, the first interval learned", revisit.Adaptive, 1, 0},
		{"third night: not due", revisit.Adaptive, 0, 2},
		{"fourth night, --revisit always", revisit.Always, 1, 0},
	} {
		origin.nextNight(n)
		cfg.Revisit.Mode = tt.mode
		rep, err := crawl.Run(context.Background(), db, cfg)
		if err != nil || rep.ExitCode != 0 || rep.Totals.Dead != 0 {
			t.Fatalf("%s: exit %d, %v, %d dead", tt.name, rep.ExitCode, err, rep.Totals.Dead)
		}
		if got := origin.count("/static/1"); got != tt.wantAsked {
			t.Errorf("%s: asked %d times, want %d", tt.name, got, tt.wantAsked)
		}
		notDue := 0
		if rep.Changes != nil {
			notDue = rep.Changes.NotDue
		}
		if notDue != tt.notDue {
			t.Errorf("%s: %d not due, want %d", tt.name, notDue, tt.notDue)
		}
		clk.Advance(24 * time.Hour)
	}
}

// checkNight checks what night n's report says changed: every page new
// on night 0, the daily page changed every night after, the static pages
// unchanged when asked for and not due when not; and, the night /gone
// went, the summary and the manifest naming it.
func checkNight(t *testing.T, n int, rep *report.Report, asked, statics int) {
	t.Helper()
	const site = nightlySiteURL
	ch := rep.Changes
	if ch == nil {
		t.Fatalf("night %d: the report says nothing of changes", n)
	}
	switch {
	case n == 0 && ch.New != statics+2:
		t.Errorf("night 0: %d new, want %d", ch.New, statics+2)
	case n > 0 && (ch.Changed != 1 || ch.ChangedURLs[0] != site+"/daily"):
		t.Errorf("night %d: changed %d %v, want the daily page", n, ch.Changed, ch.ChangedURLs)
	case n > 0 && asked == 0 && ch.NotDue < statics:
		t.Errorf("night %d: %d not due, want at least the %d static pages", n, ch.NotDue, statics)
	case n > 0 && asked > 0 && ch.Unchanged < statics:
		t.Errorf("night %d: %d unchanged, want the %d static pages", n, ch.Unchanged, statics)
	}
	if n == goneFrom {
		if ch.Gone != 1 || len(ch.GoneURLs) != 1 || ch.GoneURLs[0] != site+"/gone" || len(rep.Dead) != 0 {
			t.Errorf("night %d: gone %d %v, dead %v; want /gone gone and no dead letter", n, ch.Gone, ch.GoneURLs, rep.Dead)
		}
		var text strings.Builder
		rep.WriteText(&text)
		for _, want := range []string{"changes: 1 changed, ", "changed: " + site + "/daily\n", "gone: " + site + "/gone\n"} {
			if !strings.Contains(text.String(), want) {
				t.Errorf("night %d: summary lacks %q:\n%s", n, want, text.String())
			}
		}
		checkManifestChanges(t, rep, map[string]frontier.Change{site + "/daily": frontier.ChangeChanged, site + "/gone": frontier.ChangeGone})
	}
}

// checkManifestChanges reads the run's own manifest lines and checks the
// change of the URLs named.
func checkManifestChanges(t *testing.T, rep *report.Report, want map[string]frontier.Change) {
	t.Helper()
	f, err := os.Open(filepath.Join(rep.RunDir, "manifest.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got := map[string]frontier.Change{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l struct {
			URL    string          `json:"url"`
			Change frontier.Change `json:"change"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("manifest line %s: %v", sc.Bytes(), err)
		}
		got[l.URL] = l.Change
	}
	for u, c := range want {
		if got[u] != c {
			t.Errorf("manifest: %s change %q, want %q", u, got[u], c)
		}
	}
}
