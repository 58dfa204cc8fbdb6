package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/report"
	"github.com/polite-crawler/polite/pace"
	"github.com/polite-crawler/polite/store"
)

// storyDB builds, in a fresh database, a host with a story: throttled in
// run 1 (a cold start, a latency rise, a 429 with Retry-After, a network
// error, a breaker pause, a robots.txt retry wait), held now, with a
// learned limit and a Crawl-delay floor; run 2, newer, never touched it.
func storyDB(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "polite.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ago := func(d time.Duration) time.Time { return fixedNow.Add(-d) }
	states := []pace.State{
		{Host: "bucket.example.org", Delay: 2150 * time.Millisecond, SetAt: ago(20 * time.Minute), HalfLife: 3 * time.Minute,
			Baseline: 85 * time.Millisecond, CongestionDelay: 700 * time.Millisecond, CongestionAt: ago(21 * time.Minute),
			LastSignal: "429", SignalAt: ago(21 * time.Minute),
			SafeGap: 1020 * time.Millisecond, RefusedGap: 700 * time.Millisecond, LearnedAt: ago(21 * time.Minute), LearnedHalfLife: 7 * 24 * time.Hour,
			Floor: time.Second, FloorSource: pace.FloorCrawlDelay,
			HoldUntil: fixedNow.Add(25 * time.Minute), HoldReason: pace.HoldRetryAfter},
		{Host: "bucket.example.org.mirror.example", Delay: time.Second, SetAt: ago(time.Hour), Floor: 500 * time.Millisecond, FloorSource: pace.FloorDefault},
		{Host: "calm.example.net", Delay: 500 * time.Millisecond, SetAt: ago(time.Hour), Floor: 500 * time.Millisecond, FloorSource: pace.FloorDefault},
	}
	if err := db.SaveAll(states); err != nil {
		t.Fatal(err)
	}
	c := frontier.RobotsCopy{Host: "bucket.example.org", Status: 200, Body: []byte("User-agent: *\nCrawl-delay: 1\nDisallow: /private\n"),
		FetchedAt: ago(40 * time.Minute), Expires: ago(40 * time.Minute).Add(24 * time.Hour)}
	if err := db.PutRobots(c); err != nil {
		t.Fatal(err)
	}
	revisitsDB(t, db)
	start := ago(40 * time.Minute)
	h := &report.HostStats{Host: "bucket.example.org", Requests: 9, S2xx: 6, S429: 1, Errors: 1,
		DelayStartS: 3, DelayMaxS: 2.15, DelayEndS: 2.15, FloorS: 1, FloorSource: "crawl-delay", Robots: "parsed (200)", Stopped: "deferred: Retry-After beyond --max-retry-after",
		Timeline: []report.Point{
			{AtS: 6, DelayS: 1, LatencyMS: 80, Status: 200},
			{AtS: 7, DelayS: 1, LatencyMS: 85, Status: 200},
			{AtS: 8.2, DelayS: 1.5, LatencyMS: 400, Status: 200},
			{AtS: 9.8, DelayS: 1.4, LatencyMS: 90, Status: 200},
			{AtS: 11.2, DelayS: 2.15, LatencyMS: 60, Status: 429, RetryAfterS: 3600},
			{AtS: 13.4, DelayS: 2.15, Status: 0},
			{AtS: 15.6, DelayS: 2.1, LatencyMS: 90, Status: 200},
		},
		Holds: []report.HoldMark{{Kind: report.HoldMarkRobotsRetry, AtS: 0.1, SpanS: 5.5}, {Kind: report.HoldMarkBreaker, AtS: 8.2, SpanS: 30}},
	}
	calm := &report.HostStats{Host: "calm.example.net", Requests: 3, S2xx: 3, DelayStartS: 0.5, DelayMaxS: 0.5, DelayEndS: 0.5, Stopped: "done"}
	for _, r := range []*report.Report{
		{Job: "nightly", Start: start, End: start.Add(20 * time.Second), DurationS: 20, StopReason: "done", Hosts: []*report.HostStats{h}},
		{Job: "calm", Start: ago(10 * time.Minute), End: ago(9 * time.Minute), DurationS: 60, StopReason: "done", Hosts: []*report.HostStats{calm}},
	} {
		run, err := db.BeginRun(r.Job, r.Start)
		if err != nil {
			t.Fatal(err)
		}
		r.RunID = run.ID
		data, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if err := db.EndRun(run.ID, r.End, 0, "done", data); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// revisitsDB gives bucket.example.org four URLs in a job: one due now,
// one due within 24 h, one in days, one never fetched (waiting).
func revisitsDB(t *testing.T, db *store.DB) {
	t.Helper()
	const h = time.Hour
	for _, u := range []struct {
		path  string
		state frontier.State
		every time.Duration
		due   time.Duration // from now
	}{
		{"/a", frontier.Done, 24 * h, -h},
		{"/b", frontier.NotModified, 36 * h, 6 * h},
		{"/c", frontier.Done, 7 * 24 * h, 5 * 24 * h},
		{"/d", frontier.Queued, 0, 0},
	} {
		e := frontier.Entry{URL: "https://bucket.example.org" + u.path, Host: "bucket.example.org"}
		if _, err := db.Enqueue("nightly", []frontier.Entry{e}); err != nil {
			t.Fatal(err)
		}
		if u.state == frontier.Queued {
			continue
		}
		e.Job, e.State, e.FetchedAt, e.SHA256 = "nightly", u.state, fixedNow.Add(-20*h), "aa"
		e.Revisit = frontier.Revisit{Every: u.every, DueAt: fixedNow.Add(u.due), Fetches: 3, Change: frontier.ChangeUnchanged}
		if err := db.Update([]frontier.Entry{e}); err != nil {
			t.Fatal(err)
		}
	}
}

func storyOpts(host string, asJSON bool) *statusOptions {
	def := pace.DefaultConfig()
	return &statusOptions{Host: host, JSON: asJSON, Floor: def.Floor, HalfLife: def.HalfLife, Runs: 5,
		Now: func() time.Time { return fixedNow }, Loc: time.UTC}
}

func TestGoldenStatusHostStory(t *testing.T) {
	db := storyDB(t)
	tests := []struct {
		golden, host string
		json         bool
	}{
		{"status-host-story.txt", "bucket.example.org", false},
		{"status-host-story.json", "bucket.example.org", true},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			var b bytes.Buffer
			if err := runStatus(&b, db, storyOpts(tt.host, tt.json)); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tt.golden, b.String())
		})
	}
}

// --host tells a story for an exact name or the only match, lists the
// table when the text matches several hosts, and fails (exit 1) naming
// the text when it matches none.
func TestStatusHostStoryOrTable(t *testing.T) {
	db := storyDB(t)
	tests := []struct {
		name, host string
		story      string // the story's first line; "" for the table
	}{
		{"exact name, though a longer one contains it", "bucket.example.org", "bucket.example.org\n"},
		{"text only one host contains", "calm", "calm.example.net\n"},
		{"text several hosts contain", "bucket", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := runStatus(&b, db, storyOpts(tt.host, false)); err != nil {
				t.Fatal(err)
			}
			got := b.String()
			isStory := strings.Contains(got, "\n  next delay ")
			if isStory != (tt.story != "") || tt.story != "" && !strings.HasPrefix(got, tt.story) {
				t.Errorf("--host %q printed:\n%s\nwant the story of %q (empty: the table)", tt.host, got, strings.TrimSpace(tt.story))
			}
		})
	}
	var b bytes.Buffer
	if err := runStatus(&b, db, storyOpts("nowhere", false)); err == nil || !strings.Contains(err.Error(), `"nowhere"`) {
		t.Errorf("--host nowhere: %v, want an error naming it", err)
	}
}

// The host table fits a narrow terminal by leaving out its last columns,
// and says which; --wide (Width 0) keeps them all.
func TestStatusFitsTheTerminal(t *testing.T) {
	db := storyDB(t)
	for _, width := range []int{0, 100, 120} {
		o := storyOpts("", false)
		o.Width = width
		var b bytes.Buffer
		if err := runStatus(&b, db, o); err != nil {
			t.Fatal(err)
		}
		table, _, _ := strings.Cut(b.String(), "\n\nRUN ")
		longest := 0
		for _, line := range strings.Split(table, "\n") {
			longest = max(longest, len([]rune(line)))
		}
		note := strings.Contains(table, fmt.Sprintf("not shown in %d columns: ", width))
		switch {
		case width == 0 && (note || !strings.Contains(table, "ROBOTS.TXT") || longest <= 100):
			t.Errorf("--wide: want every column, no note:\n%s", table)
		case width > 0 && (!note || longest > width):
			t.Errorf("width %d: longest line %d, note %v:\n%s", width, longest, note, b.String())
		}
	}
}

// The JSON story holds the numbers, enums and RFC 3339 times a script
// needs: the signals in time order, from the last run that touched the
// host, not the newest run.
func TestStatusHostStoryJSON(t *testing.T) {
	db := storyDB(t)
	var b bytes.Buffer
	if err := runStatus(&b, db, storyOpts("bucket.example.org", true)); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Host      string     `json:"host"`
		NextFrom  pace.Basis `json:"next_delay_from"`
		NextDelay float64    `json:"next_delay_s"`
		Hold      struct {
			Until  time.Time       `json:"until"`
			Reason pace.HoldReason `json:"reason"`
		} `json:"hold"`
		Robots struct {
			Access      string  `json:"access"`
			CrawlDelayS float64 `json:"crawl_delay_s"`
		} `json:"robots_txt"`
		LastRun struct {
			ID      int64 `json:"id"`
			Signals []struct {
				At   time.Time  `json:"at"`
				Kind SignalKind `json:"kind"`
			} `json:"signals"`
		} `json:"last_run"`
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("status --host --json: %v\n%s", err, b.String())
	}
	if got.NextFrom != pace.BasisLearned || got.NextDelay != 1.02 {
		t.Errorf("next delay %gs from %s, want 1.02s from learned (the 3m half-life backoff decayed)", got.NextDelay, got.NextFrom)
	}
	if !got.Hold.Until.Equal(fixedNow.Add(25*time.Minute)) || got.Hold.Reason != pace.HoldRetryAfter {
		t.Errorf("hold %+v, want retry-after until now+25m", got.Hold)
	}
	if got.Robots.Access != "parsed" || got.Robots.CrawlDelayS != 1 {
		t.Errorf("robots.txt %+v, want parsed with Crawl-delay 1s", got.Robots)
	}
	if got.LastRun.ID != 1 {
		t.Errorf("last run %d, want 1 (run 2 never touched the host)", got.LastRun.ID)
	}
	var kinds []SignalKind
	for i, s := range got.LastRun.Signals {
		kinds = append(kinds, s.Kind)
		if i > 0 && s.At.Before(got.LastRun.Signals[i-1].At) {
			t.Errorf("signal %d at %v before signal %d: want time order", i, s.At, i-1)
		}
	}
	want := []SignalKind{SignalRobotsRetry, SignalRaised, SignalBreaker, SignalThrottled, SignalNetError}
	if strings.Join(kindStrings(kinds), ",") != strings.Join(kindStrings(want), ",") {
		t.Errorf("signals %v, want %v", kinds, want)
	}
}

func kindStrings(ks []SignalKind) []string {
	var s []string
	for _, k := range ks {
		s = append(s, string(k))
	}
	return s
}

// A run that saved no report (it died, or still runs) tells its part from
// its fetch records.
func TestStatusHostStoryFromFetches(t *testing.T) {
	db := storyDB(t)
	run, err := db.BeginRun("calm", fixedNow.Add(-5*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	at := func(d time.Duration) time.Time { return run.StartedAt.Add(d) }
	fs := []frontier.Fetch{
		{RunID: run.ID, URL: "https://calm.example.net/a", Host: "calm.example.net", Status: 200, FetchedAt: at(time.Second), Delay: 500 * time.Millisecond},
		{RunID: run.ID, URL: "https://calm.example.net/b", Host: "calm.example.net", Status: 503, FetchedAt: at(2 * time.Second), Delay: 500 * time.Millisecond},
		{RunID: run.ID, URL: "https://calm.example.net/c", Host: "calm.example.net", Status: 0, Reason: "timeout", FetchedAt: at(4 * time.Second), Delay: 1500 * time.Millisecond},
		{RunID: run.ID, URL: "https://other.example/x", Host: "other.example", Status: 429, FetchedAt: at(3 * time.Second)},
	}
	if err := db.AddFetches(fs); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := runStatus(&b, db, storyOpts("calm.example.net", true)); err != nil {
		t.Fatal(err)
	}
	var got hostStory
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("status --host --json: %v\n%s", err, b.String())
	}
	r := got.LastRun
	if r == nil || r.ID != run.ID || r.From != "fetches" || r.Requests != 3 || r.S503 != 1 || r.Errors != 1 {
		t.Fatalf("last run %+v, want run %d from its fetches: 3 requests, one 503, one error", r, run.ID)
	}
	want := []SignalKind{SignalThrottled, SignalNetError}
	var kinds []SignalKind
	for _, s := range r.Signals {
		kinds = append(kinds, s.Kind)
	}
	if strings.Join(kindStrings(kinds), ",") != strings.Join(kindStrings(want), ",") || !r.Signals[0].At.Equal(at(2*time.Second)) {
		t.Errorf("signals %+v, want a 503 at %v then a network error", r.Signals, at(2*time.Second))
	}
	b.Reset()
	if err := runStatus(&b, db, storyOpts("calm.example.net", false)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "from its fetch records") {
		t.Errorf("story does not say where its run's signals come from:\n%s", b.String())
	}
}

// TestRevisitText: a host with no URL, one whose URLs learned no
// interval yet, and one with intervals from minutes to days.
func TestRevisitText(t *testing.T) {
	for _, tt := range []struct {
		r    revisitStory
		want string
	}{
		{revisitStory{}, "no URL with this host in any job"},
		{revisitStory{URLs: 1, DueNow: 1}, "1 of 1 URL due now, 0 more within 24h; no interval learned yet (a URL learns one at its second fetch)"},
		{revisitStory{URLs: 9, Waiting: 2, DueNow: 3, DueSoon: 1, Learned: 7, MinEveryS: 45, MedianEveryS: 90 * 60, MaxEveryS: 2.5 * 86400},
			"3 of 9 URLs due now (and 2 waiting), 1 more within 24h; intervals 45.0s / 1h30m / 2.5d (least / median / greatest of 7 learned)"},
	} {
		if got := revisitText(tt.r); got != tt.want {
			t.Errorf("%+v:\n got %q\nwant %q", tt.r, got, tt.want)
		}
	}
}
