package cmd

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/report"
	"github.com/polite-crawler/polite/crawl/seeds"
	"github.com/polite-crawler/polite/pace"
	"github.com/polite-crawler/polite/store"
)

func init() {
	// -update rewrites golden files; another test file may define it first.
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the golden files in testdata")
	}
}

// updateGolden reports whether -update was given.
func updateGolden() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

const uxGolden = "../testdata/golden"

// fixedNow is the "now" of the golden outputs and of the fixture database.
var fixedNow = time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)

// buildFixture writes the database the golden tests read: hosts in every
// pacing situation (backoffs, learned limits, holds, half-lives), robots.txt copies of various ages, and three runs
// of two jobs (one never ended).
func buildFixture(path string) error {
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(path + suffix); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	db, err := store.Open(path)
	if err != nil {
		return err
	}
	defer db.Close()
	ago := func(d time.Duration) time.Time { return fixedNow.Add(-d) }
	states := []pace.State{
		{Host: "api.example.org", Delay: 12 * time.Second, SetAt: ago(30 * time.Minute), Baseline: 120 * time.Millisecond,
			CongestionDelay: 4 * time.Second, CongestionAt: ago(31 * time.Minute), LastSignal: "429",
			Floor: 500 * time.Millisecond, FloorSource: pace.FloorDefault},
		{Host: "docs.example.org", Delay: time.Second, SetAt: ago(2 * time.Hour), Baseline: 40 * time.Millisecond,
			Floor: time.Second, FloorSource: pace.FloorCrawlDelay},
		{Host: "slow.example.net", Delay: 90 * time.Second, SetAt: ago(5 * time.Minute), Baseline: 2100 * time.Millisecond,
			CongestionAt: ago(6 * time.Minute), LastSignal: "latency", Floor: 500 * time.Millisecond, FloorSource: pace.FloorDefault},
		{Host: "shop.example.com:8443", Delay: 2 * time.Second, SetAt: ago(76 * time.Hour), Baseline: 800 * time.Microsecond,
			Floor: 2 * time.Second, FloorSource: pace.FloorHost},
		{Host: "rl.example.io", Delay: 5 * time.Second, SetAt: ago(45 * time.Second),
			CongestionAt: ago(50 * time.Second), LastSignal: "503",
			Floor: 1500 * time.Millisecond, FloorSource: pace.FloorRateLimit},
		// Crawled with --half-life 3s: its backoff has long decayed, and
		// the next run starts at what it learned.
		{Host: "learned.example.com", Delay: 4 * time.Second, SetAt: ago(40 * time.Minute), HalfLife: 3 * time.Second,
			Baseline: 90 * time.Millisecond, CongestionDelay: 980 * time.Millisecond, CongestionAt: ago(52 * time.Minute),
			LastSignal: "latency", SignalAt: ago(41 * time.Minute),
			SafeGap: 1020 * time.Millisecond, RefusedGap: 980 * time.Millisecond, LearnedAt: ago(40 * time.Minute), LearnedHalfLife: 7 * 24 * time.Hour,
			Floor: 500 * time.Millisecond, FloorSource: pace.FloorDefault},
		// A Retry-After in the year 9999 stored by an older polite (no
		// reason): shown, and held, at most --max-hold.
		{Host: "held.example.net", Delay: 3 * time.Second, SetAt: ago(10 * time.Minute), HalfLife: 10 * time.Minute,
			CongestionDelay: time.Second, CongestionAt: ago(10 * time.Minute), LastSignal: "429", SignalAt: ago(10 * time.Minute),
			HoldUntil: time.Date(2036, 1, 1, 0, 0, 0, 0, time.UTC), Floor: 500 * time.Millisecond, FloorSource: pace.FloorDefault},
		// A spent quota, until its reset in 40 minutes.
		{Host: "quota.example.io", Delay: 2 * time.Second, SetAt: ago(5 * time.Minute), HalfLife: 10 * time.Minute,
			HoldUntil: fixedNow.Add(40 * time.Minute), HoldReason: pace.HoldQuota,
			SafeGap: 2 * time.Second, LearnedAt: ago(5 * time.Minute), LearnedHalfLife: 7 * 24 * time.Hour,
			Floor: 2 * time.Second, FloorSource: pace.FloorRateLimit},
		// The breaker paused it 10 seconds ago for 30.
		{Host: "breaker.example.com", Delay: 1500 * time.Millisecond, SetAt: ago(10 * time.Second), HalfLife: 10 * time.Minute,
			CongestionDelay: 500 * time.Millisecond, CongestionAt: ago(10 * time.Second), LastSignal: "breaker", SignalAt: ago(10 * time.Second),
			HoldUntil: fixedNow.Add(20 * time.Second), HoldReason: pace.HoldBreaker,
			Floor: 500 * time.Millisecond, FloorSource: pace.FloorDefault},
		// Learned a month ago: aged away, the next run starts cold.
		{Host: "stale.example.org", Delay: 800 * time.Millisecond, SetAt: ago(30 * 24 * time.Hour), HalfLife: 10 * time.Minute,
			SafeGap: 800 * time.Millisecond, RefusedGap: 700 * time.Millisecond, LearnedAt: ago(30 * 24 * time.Hour), LearnedHalfLife: 7 * 24 * time.Hour,
			Floor: 500 * time.Millisecond, FloorSource: pace.FloorDefault},
	}
	if err := db.SaveAll(states); err != nil {
		return err
	}
	for host, age := range map[string]time.Duration{"api.example.org": 30 * time.Minute, "docs.example.org": 2 * time.Hour, "slow.example.net": 25 * time.Hour} {
		c := frontier.RobotsCopy{Host: host, Status: 200, Body: []byte("User-agent: *\nDisallow: /private\n"), FetchedAt: ago(age), Expires: ago(age).Add(24 * time.Hour)}
		if err := db.PutRobots(c); err != nil {
			return err
		}
	}
	for _, r := range fixtureRuns() {
		run, err := db.BeginRun(r.Job, r.Start)
		if err != nil {
			return err
		}
		if r.End.IsZero() {
			continue
		}
		r.RunID = run.ID
		data, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			return err
		}
		t := r.Totals
		sum := fmt.Sprintf("%d done, %d not modified, %d excluded, %d dead, %d waiting", t.Done, t.NotModified, t.Excluded, t.Dead, t.Waiting)
		if err := db.EndRun(run.ID, r.End, r.ExitCode, sum, data); err != nil {
			return err
		}
	}
	return nil
}

// fixtureRuns are the runs of the fixture, oldest first; a zero End is a
// run that never ended.
func fixtureRuns() []*report.Report {
	start1 := fixedNow.Add(-26 * time.Hour)
	first := &report.Report{
		Job: "nightly", Start: start1, End: start1.Add(2*time.Minute + 5*time.Second), DurationS: 125,
		StopReason: "done", OutDir: "/srv/crawl/nightly",
		Totals: report.Totals{Requests: 42, Done: 40, Excluded: 1, Bytes: 512 << 10},
		Hosts: []*report.HostStats{
			{Host: "api.example.org", Requests: 21, S2xx: 21, P50MS: 110, P95MS: 180, MaxMS: 200,
				DelayStartS: 3, DelayEndS: 0.5, StoredEndS: 0.5, DelayMaxS: 3, FloorS: 0.5, FloorSource: "default",
				Robots: "parsed (200)", Stopped: "done"},
			{Host: "docs.example.org", Requests: 21, S2xx: 20, S4xx: 1, Excluded: 1, P50MS: 40, P95MS: 55, MaxMS: 60,
				DelayStartS: 3, DelayEndS: 1, StoredEndS: 1, DelayMaxS: 3, FloorS: 1, FloorSource: "crawl-delay",
				Robots: "parsed (200)", Stopped: "done"},
		},
		Frontier: map[string]int{"done": 40, "excluded": 1, "dead": 1},
	}
	start2 := fixedNow.Add(-2 * time.Hour)
	second := &report.Report{
		Job: "nightly", Start: start2, End: start2.Add(50 * time.Minute), DurationS: 3000, ExitCode: 1,
		StopReason: "stopped by max-duration", BudgetsBound: []frontier.Budget{frontier.BudgetMaxDuration, frontier.BudgetRetry}, OutDir: "/srv/crawl/nightly",
		Totals: report.Totals{Requests: 311, Done: 240, NotModified: 38, Excluded: 1, Dead: 7, Waiting: 25, Retries: 12, Throttled: 9, Bytes: 14 << 20},
		Hosts: []*report.HostStats{
			{Host: "api.example.org", Requests: 130, S2xx: 110, S304: 10, S429: 8, S5xx: 1, S503: 1, Retries: 9, P50MS: 120, P95MS: 480, MaxMS: 950,
				DelayStartS: 0.5, StoredStartS: 0.5, DelayMaxS: 36, DelayEndS: 12, StoredEndS: 12, FloorS: 0.5, FloorSource: "default",
				WaitS: 2900, RetryAfters: 9, Robots: "parsed (200)", Stopped: "done"},
			{Host: "docs.example.org", Requests: 120, S2xx: 90, S304: 28, Excluded: 1, P50MS: 40, P95MS: 60, MaxMS: 70,
				DelayStartS: 1, StoredStartS: 1, DelayMaxS: 1, DelayEndS: 1, StoredEndS: 1, FloorS: 1, FloorSource: "crawl-delay",
				WaitS: 1200, Robots: "parsed (200)", Stopped: "done"},
			{Host: "slow.example.net", Requests: 60, S2xx: 40, Errors: 20, Retries: 3, P50MS: 2100, P95MS: 4000, MaxMS: 4200,
				DelayStartS: 3, DelayMaxS: 90, DelayEndS: 90, StoredEndS: 90, FloorS: 0.5, FloorSource: "default",
				WaitS: 2950, Robots: "no restrictions (404)", Stopped: "run ended with URLs waiting"},
			{Host: "shop.example.com:8443", Requests: 1, S5xx: 1, DelayStartS: 2, DelayMaxS: 2, DelayEndS: 2, StoredEndS: 2,
				FloorS: 2, FloorSource: "floor-host", Robots: "unreachable (500): host waits, retry in 9.5s",
				Stopped: "deferred: Retry-After beyond --max-retry-after"},
		},
		Rejected: []seeds.Rejected{
			{File: "seeds.txt", Line: 4, Text: "ftp://files.example.org/", Reason: `scheme "ftp" is not http or https`},
		},
		Frontier: map[string]int{"done": 240, "not_modified": 38, "excluded": 1, "dead": 7, "queued": 25},
	}
	for i := range 7 {
		second.Dead = append(second.Dead, report.DeadURL{URL: fmt.Sprintf("https://slow.example.net/item/%d", i), Reason: "timeout", Attempts: 5})
	}
	third := &report.Report{Job: "docs", Start: fixedNow.Add(-3 * time.Minute)}
	return []*report.Report{first, second, third}
}

// openFixture opens a copy of the fixture database, built again first
// with -update.
func openFixture(t *testing.T) *store.DB {
	t.Helper()
	src := filepath.Join(uxGolden, "polite.db")
	if updateGolden() {
		if err := os.MkdirAll(uxGolden, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := buildFixture(src); err != nil {
			t.Fatalf("build fixture: %v", err)
		}
	}
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatalf("fixture database (go test -run Golden -update ./cmd/ builds it): %v", err)
	}
	dst := filepath.Join(t.TempDir(), "polite.db")
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(dst)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// checkGolden compares got with the golden file name, or rewrites it with
// -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join(uxGolden, name)
	if updateGolden() {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden file (-update writes it): %v", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (-update rewrites it)\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

func TestGoldenUX(t *testing.T) {
	db := openFixture(t)
	statusOpts := func(host string) *statusOptions {
		def := pace.DefaultConfig()
		return &statusOptions{Host: host, Floor: def.Floor, HalfLife: def.HalfLife, Runs: 5, Now: func() time.Time { return fixedNow }, Loc: time.UTC}
	}
	runsOpts := func(job string) *runsOptions {
		return &runsOptions{Job: job, Limit: 20, Now: func() time.Time { return fixedNow }, Loc: time.UTC}
	}
	tests := []struct {
		golden string
		run    func(w io.Writer) error
	}{
		{"status.txt", func(w io.Writer) error { return runStatus(w, db, statusOpts("")) }},
		{"status-host.txt", func(w io.Writer) error { return runStatus(w, db, statusOpts("example.org")) }},
		{"status.json", func(w io.Writer) error {
			o := statusOpts("")
			o.JSON = true
			return runStatus(w, db, o)
		}},
		{"runs.txt", func(w io.Writer) error { return runRuns(w, db, runsOpts("")) }},
		{"runs-job.txt", func(w io.Writer) error { return runRuns(w, db, runsOpts("docs")) }},
		{"summary.txt", func(w io.Writer) error { return runReport(w, db, &reportOptions{}) }},
		{"summary-run1.txt", func(w io.Writer) error { return runReport(w, db, &reportOptions{Run: "1"}) }},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			var b bytes.Buffer
			if err := tt.run(&b); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tt.golden, b.String())
		})
	}
}

func TestStatusJSON(t *testing.T) {
	db := openFixture(t)
	def := pace.DefaultConfig()
	var b bytes.Buffer
	err := runStatus(&b, db, &statusOptions{JSON: true, Floor: def.Floor, HalfLife: def.HalfLife, Runs: 2, Now: func() time.Time { return fixedNow }})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Hosts []hostStatus `json:"hosts"`
		Runs  []runRow     `json:"runs"`
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("status --json: %v\n%s", err, b.String())
	}
	byHost := map[string]hostStatus{}
	for i, h := range got.Hosts {
		byHost[h.Host] = h
		if i > 0 && h.NextDelayS > got.Hosts[i-1].NextDelayS {
			t.Errorf("host %s (%.2fs) after %s (%.2fs): want the slowest first", h.Host, h.NextDelayS, got.Hosts[i-1].Host, got.Hosts[i-1].NextDelayS)
		}
	}
	tests := []struct {
		host       string
		next, aged float64
		from       pace.Basis
		halfLife   float64
	}{
		{"api.example.org", 1.5, 1.5, pace.BasisBackoff, 600},    // 12s aged 30m with a 10m half-life
		{"learned.example.com", 1.02, 0.5, pace.BasisLearned, 3}, // 4s aged 40m with a 3s half-life: decayed
		{"stale.example.org", 3, 0.5, pace.BasisStart, 600},      // learned a month ago: cold start
	}
	for _, tt := range tests {
		h := byHost[tt.host]
		if h.NextDelayS != tt.next || h.AgedDelayS != tt.aged || h.NextFrom != tt.from || h.HalfLifeS != tt.halfLife {
			t.Errorf("%s: next %.3fs (%s) aged %.3fs half-life %gs; want %.3fs (%s), %.3fs, %gs",
				tt.host, h.NextDelayS, h.NextFrom, h.AgedDelayS, h.HalfLifeS, tt.next, tt.from, tt.aged, tt.halfLife)
		}
	}
	if l := byHost["learned.example.com"].Learned; l == nil || l.SafeGapS != 1.02 || l.AgeS != 2400 || l.AgedAway {
		t.Errorf("learned.example.com learned = %+v; want 1.02s, 40m old", l)
	}
	if h := byHost["held.example.net"].Hold; h == nil || !h.Until.Equal(fixedNow.Add(def.MaxHold)) || h.Reason != pace.HoldRetryAfter {
		t.Errorf("held.example.net hold = %+v; want until now+%v (--max-hold), retry-after", h, def.MaxHold)
	}
	if h := byHost["quota.example.io"].Hold; h == nil || !h.Until.Equal(fixedNow.Add(40*time.Minute)) || h.Reason != pace.HoldQuota {
		t.Errorf("quota.example.io hold = %+v; want until now+40m, quota", h)
	}
	if h := byHost["docs.example.org"].Hold; h != nil {
		t.Errorf("docs.example.org hold = %+v; want none", h)
	}
	if len(got.Runs) != 2 || got.Runs[0].ID != 3 || !got.Runs[0].Ended.IsZero() || got.Runs[1].DurationS != 3000 {
		t.Errorf("runs %+v; want runs 3 (not ended) and 2 (3000 s)", got.Runs)
	}
}
