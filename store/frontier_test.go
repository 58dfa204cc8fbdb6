package store_test

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/polite-crawler/polite/store"
)

// entry is a queued entry of host with a path and priority.
func entry(host, path string, prio int) store.Entry {
	return store.Entry{URL: "https://" + host + path, Host: host, Priority: prio}
}

func urls(es []store.Entry) []string {
	var us []string
	for _, e := range es {
		us = append(us, e.URL)
	}
	return us
}

func mustEnqueue(t *testing.T, db *store.DB, job string, es ...store.Entry) {
	t.Helper()
	if _, err := db.Enqueue(job, es); err != nil {
		t.Fatalf("Enqueue: %v", err)
	}
}

func TestEnqueueDedup(t *testing.T) {
	db := mustOpen(t)
	tests := []struct {
		name string
		job  string
		es   []store.Entry
		want int
	}{
		{"new", "j", []store.Entry{entry("a.example", "/1", 0), entry("a.example", "/2", 0)}, 2},
		{"same url twice in one batch", "j", []store.Entry{entry("a.example", "/3", 0), entry("a.example", "/3", 5)}, 1},
		{"already known", "j", []store.Entry{entry("a.example", "/1", 9), entry("a.example", "/4", 0)}, 1},
		{"same url in another job", "k", []store.Entry{entry("a.example", "/1", 0)}, 1},
		{"nothing", "j", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := db.Enqueue(tt.job, tt.es)
			if err != nil {
				t.Fatalf("Enqueue: %v", err)
			}
			if got != tt.want {
				t.Errorf("Enqueue = %d new, want %d", got, tt.want)
			}
		})
	}
	e, err := db.Get("j", "https://a.example/1")
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if e.Priority != 0 || e.State != store.Queued || e.Job != "j" {
		t.Errorf("re-enqueued entry = %+v, want the first one left as it was (priority 0, queued)", e)
	}
	counts, err := db.Counts("j")
	if err != nil {
		t.Fatalf("Counts: %v", err)
	}
	if want := map[store.State]int{store.Queued: 4}; !reflect.DeepEqual(counts, want) {
		t.Errorf("Counts = %v, want %v", counts, want)
	}
}

func TestEnqueueRefuses(t *testing.T) {
	tests := []struct {
		name string
		job  string
		e    store.Entry
	}{
		{"no job", "", entry("a.example", "/", 0)},
		{"no url", "j", store.Entry{Host: "a.example"}},
		{"no host", "j", store.Entry{URL: "https://a.example/"}},
		{"host not lowercased", "j", store.Entry{URL: "https://A.example/", Host: "A.example"}},
		{"unknown state", "j", store.Entry{URL: "https://a.example/", Host: "a.example", State: "lost"}},
	}
	db := mustOpen(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if n, err := db.Enqueue(tt.job, []store.Entry{entry("ok.example", "/"+tt.name, 0), tt.e}); err == nil {
				t.Errorf("Enqueue = %d, nil; want an error", n)
			}
		})
	}
	if counts, err := db.Counts("j"); err != nil || len(counts) != 0 {
		t.Errorf("Counts after refused batches = %v, %v; want none written", counts, err)
	}
}

func TestTakeOrder(t *testing.T) {
	db := mustOpen(t)
	mustEnqueue(t, db, "j",
		entry("a.example", "/low1", 0),
		entry("a.example", "/high1", 5),
		entry("b.example", "/other", 9),
		entry("a.example", "/low2", 0),
		entry("a.example", "/high2", 5),
		entry("a.example", "/mid", 1),
	)
	tests := []struct {
		name string
		host string
		n    int
		want []string
	}{
		{"first two", "a.example", 2, []string{"https://a.example/high1", "https://a.example/high2"}},
		{"next three", "a.example", 3, []string{"https://a.example/mid", "https://a.example/low1", "https://a.example/low2"}},
		{"none left", "a.example", 3, nil},
		{"other host", "b.example", 10, []string{"https://b.example/other"}},
		{"unknown host", "c.example", 10, nil},
		{"zero n", "a.example", 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			es, err := db.Take("j", tt.host, t0, tt.n)
			if err != nil {
				t.Fatalf("Take: %v", err)
			}
			if got := urls(es); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Take(%s, %d) = %v, want %v", tt.host, tt.n, got, tt.want)
			}
			for _, e := range es {
				if e.State != store.InFlight {
					t.Errorf("taken %s state = %s, want %s", e.URL, e.State, store.InFlight)
				}
				stored, err := db.Get("j", e.URL)
				if err != nil || stored.State != store.InFlight {
					t.Errorf("stored %s = %s, %v; want %s", e.URL, stored.State, err, store.InFlight)
				}
			}
		})
	}
}

func TestTakeRespectsNextAt(t *testing.T) {
	db := mustOpen(t)
	later := entry("a.example", "/later", 9)
	later.NextAt = t0.Add(time.Minute)
	mustEnqueue(t, db, "j", later, entry("a.example", "/now", 0))

	hs, err := db.QueuedHosts("j")
	if err != nil {
		t.Fatalf("QueuedHosts: %v", err)
	}
	if len(hs) != 1 || hs[0].Host != "a.example" || hs[0].Queued != 2 || !hs[0].NextAt.IsZero() {
		t.Errorf("QueuedHosts = %+v, want a.example with 2 queued, earliest zero", hs)
	}

	steps := []struct {
		name string
		now  time.Time
		want []string
	}{
		{"only the eligible one", t0, []string{"https://a.example/now"}},
		{"not yet", t0.Add(59 * time.Second), nil},
		{"exactly at next_at", t0.Add(time.Minute), []string{"https://a.example/later"}},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			es, err := db.Take("j", "a.example", s.now, 10)
			if err != nil {
				t.Fatalf("Take: %v", err)
			}
			if got := urls(es); !reflect.DeepEqual(got, s.want) {
				t.Errorf("Take at %v = %v, want %v", s.now, got, s.want)
			}
		})
	}
}

func TestQueuedHosts(t *testing.T) {
	db := mustOpen(t)
	b1 := entry("b.example", "/1", 0)
	b1.NextAt = t0.Add(time.Hour)
	b2 := entry("b.example", "/2", 0)
	b2.NextAt = t0.Add(time.Minute)
	done := entry("c.example", "/", 0)
	done.State = store.Done
	mustEnqueue(t, db, "j", entry("a.example", "/", 0), b1, b2, done)
	mustEnqueue(t, db, "other", entry("d.example", "/", 0))

	got, err := db.QueuedHosts("j")
	if err != nil {
		t.Fatalf("QueuedHosts: %v", err)
	}
	want := []store.HostQueue{
		{Host: "a.example", Queued: 1},
		{Host: "b.example", Queued: 2, NextAt: t0.Add(time.Minute)},
	}
	if len(got) != len(want) {
		t.Fatalf("QueuedHosts = %+v, want %+v", got, want)
	}
	for i := range got {
		if got[i].Host != want[i].Host || got[i].Queued != want[i].Queued || !got[i].NextAt.Equal(want[i].NextAt) {
			t.Errorf("QueuedHosts[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestUpdateWritesEverything(t *testing.T) {
	db := mustOpen(t)
	mustEnqueue(t, db, "j", entry("a.example", "/page", 3))
	es, err := db.Take("j", "a.example", t0, 1)
	if err != nil || len(es) != 1 {
		t.Fatalf("Take = %v, %v; want one entry", es, err)
	}
	e := es[0]
	e.State = store.Done
	e.Attempts = 2
	e.NextAt = t0.Add(time.Hour)
	e.Priority = 7
	e.Depth = 1
	e.Hops = 2
	e.Parent = "https://a.example/"
	e.ETag = `"v1"`
	e.LastModified = "Mon, 30 Nov 2026 10:00:00 GMT"
	e.LastStatus = 200
	e.Reason = "retried-timeout"
	e.FetchedAt = t0.Add(3 * time.Second)
	e.File = "a.example/page"
	e.SHA256 = "deadbeef"
	e.Bytes = 4096

	tests := []struct {
		name string
		e    store.Entry
	}{
		{"by id", e},
		{"by job and url", func() store.Entry { e := e; e.ID = 0; e.State = store.NotModified; e.LastStatus = 304; return e }()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := db.Update([]store.Entry{tt.e}); err != nil {
				t.Fatalf("Update: %v", err)
			}
			got, err := db.Get("j", e.URL)
			if err != nil {
				t.Fatalf("Get: %v", err)
			}
			assertEntryEqual(t, got, tt.e)
		})
	}

	t.Run("unknown entry", func(t *testing.T) {
		ghost := entry("a.example", "/ghost", 0)
		ghost.Job = "j"
		ghost.State = store.Done
		first := e
		first.Attempts = 99
		err := db.Update([]store.Entry{first, ghost})
		if !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Update(ghost) = %v, want ErrNotFound", err)
		}
		if got, _ := db.Get("j", e.URL); got.Attempts == 99 {
			t.Errorf("Update with an unknown entry wrote the others, want nothing written")
		}
	})
}

func assertEntryEqual(t *testing.T, got, want store.Entry) {
	t.Helper()
	if !got.NextAt.Equal(want.NextAt) || !got.FetchedAt.Equal(want.FetchedAt) {
		t.Errorf("times = %v, %v; want %v, %v", got.NextAt, got.FetchedAt, want.NextAt, want.FetchedAt)
	}
	got.NextAt, want.NextAt = time.Time{}, time.Time{}
	got.FetchedAt, want.FetchedAt = time.Time{}, time.Time{}
	if want.ID == 0 {
		want.ID = got.ID
	}
	if got != want {
		t.Errorf("entry =\n %+v\nwant\n %+v", got, want)
	}
}

func TestPrepare(t *testing.T) {
	refreshBefore := t0.Add(-24 * time.Hour)
	old, recent := t0.Add(-48*time.Hour), t0.Add(-time.Hour)
	tests := []struct {
		name         string
		state        store.State
		fetchedAt    time.Time
		refresh      time.Time
		want         store.State
		wantAttempts int
	}{
		{"in flight becomes queued", store.InFlight, time.Time{}, refreshBefore, store.Queued, 2},
		{"deferred becomes queued", store.Deferred, time.Time{}, refreshBefore, store.Queued, 2},
		{"excluded becomes queued", store.Excluded, old, refreshBefore, store.Queued, 2},
		{"old done is refreshed", store.Done, old, refreshBefore, store.Queued, 0},
		{"old not-modified is refreshed", store.NotModified, old, refreshBefore, store.Queued, 0},
		{"recent done stays", store.Done, recent, refreshBefore, store.Done, 2},
		{"recent not-modified stays", store.NotModified, recent, refreshBefore, store.NotModified, 2},
		{"done without refresh stays", store.Done, old, time.Time{}, store.Done, 2},
		{"dead stays dead", store.Dead, old, refreshBefore, store.Dead, 2},
		{"queued stays queued", store.Queued, time.Time{}, refreshBefore, store.Queued, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := mustOpen(t)
			e := entry("a.example", "/", 0)
			e.State, e.FetchedAt, e.Attempts = tt.state, tt.fetchedAt, 2
			e.ETag, e.LastModified = `"v1"`, "Sun, 29 Nov 2026 10:00:00 GMT"
			mustEnqueue(t, db, "j", e)
			mustEnqueue(t, db, "other", e) // another job is left alone

			if err := db.Prepare("j", tt.refresh); err != nil {
				t.Fatalf("Prepare: %v", err)
			}
			got, err := db.Get("j", e.URL)
			if err != nil {
				t.Fatalf("Get: %v", err)
			}
			if got.State != tt.want || got.Attempts != tt.wantAttempts {
				t.Errorf("after Prepare: state %s, attempts %d; want %s, %d", got.State, got.Attempts, tt.want, tt.wantAttempts)
			}
			if got.ETag != e.ETag || got.LastModified != e.LastModified {
				t.Errorf("validators = %q, %q; want kept %q, %q", got.ETag, got.LastModified, e.ETag, e.LastModified)
			}
			if other, err := db.Get("other", e.URL); err != nil || other.State != tt.state {
				t.Errorf("other job's entry = %s, %v; want left %s", other.State, err, tt.state)
			}
		})
	}
}

func TestCountsEntriesGet(t *testing.T) {
	db := mustOpen(t)
	var es []store.Entry
	states := []store.State{store.Queued, store.Dead, store.Done, store.Dead, store.Excluded, store.Dead}
	for i, s := range states {
		e := entry("a.example", fmt.Sprintf("/%d", i), 0)
		e.State = s
		es = append(es, e)
	}
	mustEnqueue(t, db, "j", es...)

	counts, err := db.Counts("j")
	if err != nil {
		t.Fatalf("Counts: %v", err)
	}
	want := map[store.State]int{store.Queued: 1, store.Dead: 3, store.Done: 1, store.Excluded: 1}
	if !reflect.DeepEqual(counts, want) {
		t.Errorf("Counts = %v, want %v", counts, want)
	}

	tests := []struct {
		name  string
		state store.State
		limit int
		want  []string
	}{
		{"all dead, oldest first", store.Dead, 0, []string{"https://a.example/1", "https://a.example/3", "https://a.example/5"}},
		{"limited", store.Dead, 2, []string{"https://a.example/1", "https://a.example/3"}},
		{"none", store.Deferred, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := db.Entries("j", tt.state, tt.limit)
			if err != nil {
				t.Fatalf("Entries: %v", err)
			}
			if !reflect.DeepEqual(urls(got), tt.want) {
				t.Errorf("Entries(%s, %d) = %v, want %v", tt.state, tt.limit, urls(got), tt.want)
			}
		})
	}

	t.Run("get", func(t *testing.T) {
		got, err := db.Get("j", "https://a.example/2")
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		if got.State != store.Done || got.Host != "a.example" || got.Job != "j" || got.ID == 0 {
			t.Errorf("Get = %+v, want the done entry of job j", got)
		}
	})
	t.Run("get unknown", func(t *testing.T) {
		if _, err := db.Get("j", "https://a.example/none"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Get(unknown) = %v, want ErrNotFound", err)
		}
		if _, err := db.Get("nojob", "https://a.example/1"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Get(other job) = %v, want ErrNotFound", err)
		}
	})
}

func TestConcurrentTakeNeverSharesAnEntry(t *testing.T) {
	const total, workers = 400, 4
	db := mustOpen(t)
	if _, err := db.Enqueue("j", manyEntries(0, total, 1)); err != nil {
		t.Fatalf("Enqueue: %v", err)
	}
	host := manyEntries(0, 1, 1)[0].Host
	taken := make(chan []store.Entry, workers)
	errs := make(chan error, workers)
	for range workers {
		go func() {
			var mine []store.Entry
			for {
				es, err := db.Take("j", host, t0, 7)
				if err != nil {
					errs <- err
					return
				}
				if len(es) == 0 {
					taken <- mine
					return
				}
				mine = append(mine, es...)
				// Readers run beside the writer.
				if _, err := db.Counts("j"); err != nil {
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
