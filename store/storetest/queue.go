package storetest

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
)

func testPrepare(t *testing.T, v *env) {
	refreshBefore := T0.Add(-24 * time.Hour)
	old, recent := T0.Add(-48*time.Hour), T0.Add(-time.Hour)
	tests := []struct {
		name         string
		state        frontier.State
		fetchedAt    time.Time
		refresh      time.Time
		want         frontier.State
		wantAttempts int
	}{
		{"in flight becomes queued", frontier.InFlight, time.Time{}, refreshBefore, frontier.Queued, 2},
		{"deferred becomes queued", frontier.Deferred, time.Time{}, refreshBefore, frontier.Queued, 2},
		{"excluded becomes queued", frontier.Excluded, old, refreshBefore, frontier.Queued, 2},
		{"old done is refreshed", frontier.Done, old, refreshBefore, frontier.Queued, 0},
		{"old not-modified is refreshed", frontier.NotModified, old, refreshBefore, frontier.Queued, 0},
		{"recent done stays", frontier.Done, recent, refreshBefore, frontier.Done, 2},
		{"recent not-modified stays", frontier.NotModified, recent, refreshBefore, frontier.NotModified, 2},
		{"done without refresh stays", frontier.Done, old, time.Time{}, frontier.Done, 2},
		{"dead stays dead", frontier.Dead, old, refreshBefore, frontier.Dead, 2},
		{"queued stays queued", frontier.Queued, time.Time{}, refreshBefore, frontier.Queued, 2},
	}
	for i, tt := range tests {
		// Each case is a job of its own; "other" is left alone.
		job := fmt.Sprintf("j%d", i)
		e := entry("a.example", "/", 0)
		e.State, e.FetchedAt, e.Attempts = tt.state, tt.fetchedAt, 2
		e.ETag, e.LastModified = `"v1"`, "Sun, 29 Nov 2026 10:00:00 GMT"
		mustEnqueue(t, v.db, job, e)
		mustEnqueue(t, v.db, "other"+job, e)

		if err := v.db.Prepare(job, tt.refresh, time.Time{}); err != nil {
			t.Fatalf("%s: Prepare: %v", tt.name, err)
		}
		got, err := v.db.Get(job, e.URL)
		if err != nil {
			t.Fatalf("%s: Get: %v", tt.name, err)
		}
		if got.State != tt.want || got.Attempts != tt.wantAttempts {
			t.Errorf("%s: after Prepare: state %s, attempts %d; want %s, %d", tt.name, got.State, got.Attempts, tt.want, tt.wantAttempts)
		}
		if got.ETag != e.ETag || got.LastModified != e.LastModified {
			t.Errorf("%s: validators = %q, %q; want kept %q, %q", tt.name, got.ETag, got.LastModified, e.ETag, e.LastModified)
		}
		if other, err := v.db.Get("other"+job, e.URL); err != nil || other.State != tt.state {
			t.Errorf("%s: other job's entry = %s, %v; want left %s", tt.name, other.State, err, tt.state)
		}
	}
}

// Takers at once on one handle never get the same entry, and readers go
// on beside them.
func testConcurrentTake(t *testing.T, v *env) {
	const total, workers = 400, 4
	es := make([]frontier.Entry, total)
	for i := range es {
		es[i] = entry("h.example", fmt.Sprintf("/page/%d", i), i%4)
	}
	mustEnqueue(t, v.db, "j", es...)
	taken := make(chan []frontier.Entry, workers)
	errs := make(chan error, workers)
	for range workers {
		go func() {
			var mine []frontier.Entry
			for {
				es, err := v.db.Take("j", "h.example", T0, 7)
				if err != nil {
					errs <- err
					return
				}
				if len(es) == 0 {
					taken <- mine
					return
				}
				mine = append(mine, es...)
				if _, err := v.db.Counts("j"); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	seen := make(map[int64]bool)
	for range workers {
		select {
		case err := <-errs:
			t.Fatalf("Take: %v", err)
		case es := <-taken:
			for _, e := range es {
				if seen[e.ID] {
					t.Errorf("entry %d (%s) taken twice", e.ID, e.URL)
				}
				seen[e.ID] = true
			}
		}
	}
	if len(seen) != total {
		t.Errorf("took %d entries in all, want %d", len(seen), total)
	}
}

func testRecord(t *testing.T, v *env) {
	db := v.db
	run, err := db.BeginRun("j", T0)
	if err != nil {
		t.Fatal(err)
	}
	mustEnqueue(t, db, "j", entry("a.example", "/1", 0), entry("a.example", "/2", 0))
	taken, err := db.Take("j", "a.example", T0, 2)
	if err != nil || len(taken) != 2 {
		t.Fatalf("Take = %v, %v; want 2 entries", taken, err)
	}
	done := taken[0]
	done.State, done.LastStatus, done.FetchedAt, done.File = frontier.Done, 200, T0, "a.example/1.html"
	added := []frontier.Entry{entry("a.example", "/3", 0), entry("b.example", "/", 0), entry("a.example", "/1", 0)}
	fetch := frontier.Fetch{RunID: run.ID, URL: done.URL, Host: done.Host, Status: 200, FetchedAt: T0, Attempts: 1}

	n, err := db.Record("j", added, []frontier.Entry{done}, []frontier.Fetch{fetch})
	if err != nil {
		t.Fatalf("Record: %v", err)
	}
	if n != 2 {
		t.Errorf("Record added %d entries, want 2 (one was already there)", n)
	}
	got, err := db.Get("j", done.URL)
	if err != nil {
		t.Fatalf("Get(%s): %v", done.URL, err)
	}
	assertEntryEqual(t, got, done)
	fs, err := db.Fetches(run.ID)
	if err != nil || len(fs) != 1 || fs[0].URL != done.URL {
		t.Errorf("Fetches = %+v, %v; want the one fetch", fs, err)
	}

	// A batch with an unknown entry writes nothing at all.
	ghost := done
	ghost.ID, ghost.URL = 0, "https://a.example/ghost"
	_, err = db.Record("j", []frontier.Entry{entry("c.example", "/", 0)}, []frontier.Entry{ghost}, []frontier.Fetch{fetch})
	if !errors.Is(err, v.cfg.NotFound) {
		t.Fatalf("Record with an unknown entry: err = %v, want NotFound", err)
	}
	if _, err := db.Get("j", "https://c.example/"); !errors.Is(err, v.cfg.NotFound) {
		t.Errorf("the failed batch's new entry was written: Get err = %v", err)
	}
	if fs, _ := db.Fetches(run.ID); len(fs) != 1 {
		t.Errorf("the failed batch's fetch was written: %d fetches, want 1", len(fs))
	}
}

// BoundWait moves only the waiting entries of the host that are due after
// the bound; done entries, other hosts and earlier waits keep theirs.
func testBoundWait(t *testing.T, v *env) {
	db := v.db
	far := T0.Add(10 * 365 * 24 * time.Hour)
	bound := T0.Add(30 * 24 * time.Hour)
	soon := T0.Add(time.Hour)
	es := []frontier.Entry{
		{URL: "https://a.example/far", Host: "a.example", State: frontier.Queued, NextAt: far},
		{URL: "https://a.example/deferred", Host: "a.example", State: frontier.Deferred, NextAt: far},
		{URL: "https://a.example/soon", Host: "a.example", State: frontier.Queued, NextAt: soon},
		{URL: "https://a.example/done", Host: "a.example", State: frontier.Done, NextAt: far},
		{URL: "https://b.example/far", Host: "b.example", State: frontier.Queued, NextAt: far},
	}
	mustEnqueue(t, db, "j", es...)
	if n, err := db.BoundWait("j", "a.example", bound); err != nil || n != 2 {
		t.Fatalf("BoundWait = %d, %v; want 2 moved", n, err)
	}
	want := []time.Time{bound, bound, soon, far, far}
	for i, e := range es {
		got, err := db.Get("j", e.URL)
		if err != nil || !got.NextAt.Equal(want[i]) {
			t.Errorf("%s: next_at = %v, %v; want %v", e.URL, got.NextAt, err, want[i])
		}
	}
	hs, err := db.QueuedHosts("j")
	if err != nil || len(hs) != 2 || hs[1].Host != "b.example" || !hs[1].NextAt.Equal(far) {
		t.Errorf("QueuedHosts = %+v, %v; want b.example still waiting until %v", hs, err, far)
	}
	if n, err := db.BoundWait("j", "a.example", bound); err != nil || n != 0 {
		t.Errorf("BoundWait again = %d, %v; want nothing left to move", n, err)
	}
}

// testPrepareDue: a pass refreshes a done entry only when its revisit is
// due (a zero dueBy, --revisit always: every one), and a gone page (dead,
// with a due time) when it is due; a dead entry without one stays dead.
func testPrepareDue(t *testing.T, v *env) {
	refreshBefore, dueBy := T0.Add(time.Nanosecond), T0
	gone := frontier.Revisit{Every: 7 * 24 * time.Hour, DueAt: T0.Add(-time.Hour), Fetches: 2, Changes: 1,
		Change: frontier.ChangeGone}
	tests := []struct {
		name  string
		state frontier.State
		due   time.Time // the revisit's due time; zero: never learned
		dueBy time.Time
		want  frontier.State
	}{
		{"due is refreshed", frontier.Done, T0.Add(-time.Minute), dueBy, frontier.Queued},
		{"due at the instant is refreshed", frontier.NotModified, T0, dueBy, frontier.Queued},
		{"not due stays", frontier.Done, T0.Add(time.Minute), dueBy, frontier.Done},
		{"not due, not-modified, stays", frontier.NotModified, T0.Add(48 * time.Hour), dueBy, frontier.NotModified},
		{"never learned is due", frontier.Done, time.Time{}, dueBy, frontier.Queued},
		{"always: not due is refreshed", frontier.Done, T0.Add(48 * time.Hour), time.Time{}, frontier.Queued},
		{"gone and due is asked again", frontier.Dead, gone.DueAt, dueBy, frontier.Queued},
		{"gone, not due, stays", frontier.Dead, T0.Add(time.Hour), dueBy, frontier.Dead},
		{"dead without a due time stays", frontier.Dead, time.Time{}, dueBy, frontier.Dead},
	}
	for i, tt := range tests {
		job := fmt.Sprintf("due%d", i)
		e := entry("a.example", "/", 0)
		mustEnqueue(t, v.db, job, e)
		e.Job, e.State, e.FetchedAt, e.SHA256 = job, tt.state, T0.Add(-24*time.Hour), "aa"
		if !tt.due.IsZero() {
			e.Revisit = frontier.Revisit{Every: 24 * time.Hour, DueAt: tt.due, Fetches: 2, Change: frontier.ChangeUnchanged}
			if tt.state == frontier.Dead {
				e.Revisit = gone
				e.Revisit.DueAt = tt.due
			}
		}
		if err := v.db.Update([]frontier.Entry{e}); err != nil {
			t.Fatalf("%s: Update: %v", tt.name, err)
		}
		if err := v.db.Prepare(job, refreshBefore, tt.dueBy); err != nil {
			t.Fatalf("%s: Prepare: %v", tt.name, err)
		}
		got, err := v.db.Get(job, e.URL)
		if err != nil {
			t.Fatalf("%s: Get: %v", tt.name, err)
		}
		if got.State != tt.want {
			t.Errorf("%s: after Prepare: state %s, want %s", tt.name, got.State, tt.want)
		}
		if got.Revisit.Fetches != e.Revisit.Fetches || !got.Revisit.DueAt.Equal(e.Revisit.DueAt) {
			t.Errorf("%s: revisit %+v, want kept %+v", tt.name, got.Revisit, e.Revisit)
		}
	}
}

// testLastModRequeues: a sitemap's new lastmod after a page's last fetch
// queues the page again, though its revisit is not due; one before it,
// or the same again, leaves it alone.
func testLastModRequeues(t *testing.T, v *env) {
	fetched := T0.Add(-48 * time.Hour)
	for i, tt := range []struct {
		name    string
		lastMod time.Time
		want    frontier.State
	}{
		{"changed after the fetch", T0.Add(-24 * time.Hour), frontier.Queued},
		{"changed before the fetch", T0.Add(-72 * time.Hour), frontier.Done},
	} {
		job := fmt.Sprintf("lastmod%d", i)
		e := entry("a.example", "/p", 0)
		mustEnqueue(t, v.db, job, e)
		e.Job, e.State, e.FetchedAt, e.Attempts, e.SHA256 = job, frontier.Done, fetched, 1, "aa"
		e.Revisit = frontier.Revisit{Every: 96 * time.Hour, DueAt: T0.Add(48 * time.Hour), Fetches: 3}
		if err := v.db.Update([]frontier.Entry{e}); err != nil {
			t.Fatalf("%s: Update: %v", tt.name, err)
		}
		listed := entry("a.example", "/p", 0)
		listed.LastMod = tt.lastMod
		mustEnqueue(t, v.db, job, listed)
		got, err := v.db.Get(job, e.URL)
		if err != nil {
			t.Fatal(err)
		}
		wantAttempts := 1
		if tt.want == frontier.Queued {
			wantAttempts = 0
		}
		if got.State != tt.want || got.Attempts != wantAttempts || !got.LastMod.Equal(tt.lastMod) {
			t.Errorf("%s: state %s attempts %d lastmod %s; want %s, %d, %s", tt.name, got.State, got.Attempts, got.LastMod, tt.want, wantAttempts, tt.lastMod)
		}
		if tt.want == frontier.Queued {
			// The same lastmod again, once the page was fetched: left alone.
			got.State, got.FetchedAt = frontier.Done, T0
			if err := v.db.Update([]frontier.Entry{got}); err != nil {
				t.Fatal(err)
			}
			mustEnqueue(t, v.db, job, listed)
			if again, _ := v.db.Get(job, e.URL); again.State != frontier.Done {
				t.Errorf("%s: the same lastmod again queued it: %s", tt.name, again.State)
			}
		}
	}
}

// TakeHosts takes as Take does for each host, in the order Take gives;
// a host with nothing due is left out, and what it took is in flight.
func testTakeHosts(t *testing.T, v *env) {
	db := v.db
	later := entry("c.example", "/later", 9)
	later.NextAt = T0.Add(time.Hour)
	mustEnqueue(t, db, "j",
		entry("a.example", "/low", 0), entry("a.example", "/high", 5), entry("a.example", "/mid", 1),
		entry("b.example", "/only", 0), later)
	mustEnqueue(t, db, "other", entry("a.example", "/other-job", 9))
	taken, err := db.TakeHosts("j", []string{"a.example", "b.example", "c.example", "d.example"}, T0, 2)
	if err != nil {
		t.Fatalf("TakeHosts: %v", err)
	}
	want := map[string][]string{
		"a.example": {"https://a.example/high", "https://a.example/mid"},
		"b.example": {"https://b.example/only"},
	}
	got := map[string][]string{}
	for host, es := range taken {
		got[host] = urls(es)
		for _, e := range es {
			if stored, err := db.Get("j", e.URL); err != nil || e.State != frontier.InFlight || stored.State != frontier.InFlight {
				t.Errorf("taken %s: state %s, stored %s (%v); want %s", e.URL, e.State, stored.State, err, frontier.InFlight)
			}
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("TakeHosts = %v, want %v", got, want)
	}
	if again, err := db.TakeHosts("j", []string{"a.example", "b.example"}, T0, 10); err != nil || !reflect.DeepEqual(urls(again["a.example"]), []string{"https://a.example/low"}) || len(again["b.example"]) != 0 {
		t.Errorf("TakeHosts again = %v, %v; want a.example's last entry only", again, err)
	}
	if none, err := db.TakeHosts("j", nil, T0, 10); err != nil || len(none) != 0 {
		t.Errorf("TakeHosts of no host = %v, %v; want none", none, err)
	}
}
