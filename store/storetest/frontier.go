package storetest

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
)

func testEnqueueDedup(t *testing.T, v *env) {
	db := v.db
	tests := []struct {
		name string
		job  string
		es   []frontier.Entry
		want int
	}{
		{"new", "j", []frontier.Entry{entry("a.example", "/1", 0), entry("a.example", "/2", 0)}, 2},
		{"same url twice in one batch", "j", []frontier.Entry{entry("a.example", "/3", 0), entry("a.example", "/3", 5)}, 1},
		{"already known", "j", []frontier.Entry{entry("a.example", "/1", 9), entry("a.example", "/4", 0)}, 1},
		{"same url in another job", "k", []frontier.Entry{entry("a.example", "/1", 0)}, 1},
		{"nothing", "j", nil, 0},
	}
	for _, tt := range tests {
		got, err := db.Enqueue(tt.job, tt.es)
		if err != nil {
			t.Fatalf("%s: Enqueue: %v", tt.name, err)
		}
		if got != tt.want {
			t.Errorf("%s: Enqueue = %d new, want %d", tt.name, got, tt.want)
		}
	}
	// A batch longer than any store's rows per statement, its last entry
	// the first's URL again: counted once, whichever statement meets it.
	long := make([]frontier.Entry, 300)
	for i := range long {
		long[i] = entry("long.example", fmt.Sprintf("/%d", i%299), 0)
	}
	if n, err := db.Enqueue("long", long); err != nil || n != 299 {
		t.Errorf("Enqueue of 300 with one repeat = %d, %v; want 299", n, err)
	}
	e, err := db.Get("j", "https://a.example/1")
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if e.Priority != 0 || e.State != frontier.Queued || e.Job != "j" {
		t.Errorf("re-enqueued entry = %+v, want the first one left as it was (priority 0, queued)", e)
	}
	counts, err := db.Counts("j")
	if err != nil {
		t.Fatalf("Counts: %v", err)
	}
	if want := map[frontier.State]int{frontier.Queued: 4}; !reflect.DeepEqual(counts, want) {
		t.Errorf("Counts = %v, want %v", counts, want)
	}
}

func testEnqueueRefuses(t *testing.T, v *env) {
	tests := []struct {
		name string
		job  string
		e    frontier.Entry
	}{
		{"no job", "", entry("a.example", "/", 0)},
		{"no url", "j", frontier.Entry{Host: "a.example"}},
		{"no host", "j", frontier.Entry{URL: "https://a.example/"}},
		{"host not lowercased", "j", frontier.Entry{URL: "https://A.example/", Host: "A.example"}},
		{"unknown state", "j", frontier.Entry{URL: "https://a.example/", Host: "a.example", State: "lost"}},
	}
	for _, tt := range tests {
		// The good entry beside the bad one is not written either.
		if n, err := v.db.Enqueue(tt.job, []frontier.Entry{entry("ok.example", "/"+tt.name, 0), tt.e}); err == nil {
			t.Errorf("%s: Enqueue = %d, nil; want an error", tt.name, n)
		}
	}
	if counts, err := v.db.Counts("j"); err != nil || len(counts) != 0 {
		t.Errorf("Counts after refused batches = %v, %v; want none written", counts, err)
	}
}

func testTakeOrder(t *testing.T, v *env) {
	db := v.db
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
		es, err := db.Take("j", tt.host, T0, tt.n)
		if err != nil {
			t.Fatalf("%s: Take: %v", tt.name, err)
		}
		if got := urls(es); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: Take(%s, %d) = %v, want %v", tt.name, tt.host, tt.n, got, tt.want)
		}
		for _, e := range es {
			if e.State != frontier.InFlight {
				t.Errorf("%s: taken %s state = %s, want %s", tt.name, e.URL, e.State, frontier.InFlight)
			}
			stored, err := db.Get("j", e.URL)
			if err != nil || stored.State != frontier.InFlight {
				t.Errorf("%s: stored %s = %s, %v; want %s", tt.name, e.URL, stored.State, err, frontier.InFlight)
			}
		}
	}
	// Entries in flight are no host's queue.
	if hs, err := db.QueuedHosts("j"); err != nil || len(hs) != 0 {
		t.Errorf("QueuedHosts with every entry taken = %+v, %v; want none", hs, err)
	}
}

func testTakeRespectsNextAt(t *testing.T, v *env) {
	db := v.db
	later := entry("a.example", "/later", 9)
	later.NextAt = T0.Add(time.Minute)
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
		{"only the eligible one", T0, []string{"https://a.example/now"}},
		{"not yet", T0.Add(59 * time.Second), nil},
		{"exactly at next_at", T0.Add(time.Minute), []string{"https://a.example/later"}},
	}
	for _, s := range steps {
		es, err := db.Take("j", "a.example", s.now, 10)
		if err != nil {
			t.Fatalf("%s: Take: %v", s.name, err)
		}
		if got := urls(es); !reflect.DeepEqual(got, s.want) {
			t.Errorf("%s: Take at %v = %v, want %v", s.name, s.now, got, s.want)
		}
	}
}

func testQueuedHosts(t *testing.T, v *env) {
	db := v.db
	b1 := entry("b.example", "/1", 0)
	b1.NextAt = T0.Add(time.Hour)
	b2 := entry("b.example", "/2", 0)
	b2.NextAt = T0.Add(time.Minute)
	done := entry("c.example", "/", 0)
	done.State = frontier.Done
	var settled []frontier.Entry // in no queue, and never taken
	for _, st := range []frontier.State{frontier.Deferred, frontier.Excluded, frontier.Dead, frontier.NotModified} {
		e := entry("a.example", "/"+string(st), 9)
		e.State = st
		settled = append(settled, e)
	}
	mustEnqueue(t, db, "j", append(settled, entry("a.example", "/", 0), b1, b2, done)...)
	mustEnqueue(t, db, "other", entry("d.example", "/", 0))

	got, err := db.QueuedHosts("j")
	if err != nil {
		t.Fatalf("QueuedHosts: %v", err)
	}
	want := []frontier.HostQueue{
		{Host: "a.example", Queued: 1},
		{Host: "b.example", Queued: 2, NextAt: T0.Add(time.Minute)},
	}
	if len(got) != len(want) {
		t.Fatalf("QueuedHosts = %+v, want %+v", got, want)
	}
	for i := range got {
		if got[i].Host != want[i].Host || got[i].Queued != want[i].Queued || !got[i].NextAt.Equal(want[i].NextAt) {
			t.Errorf("QueuedHosts[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
	if es, err := db.Take("j", "a.example", T0.Add(time.Hour), 10); err != nil || len(es) != 1 || es[0].URL != "https://a.example/" {
		t.Errorf("Take(a.example) = %v, %v; want only its queued entry", urls(es), err)
	}
}

// fullEntry is a taken entry with every field set, each to a value of its
// own, so that a column left out or swapped shows.
func fullEntry(e frontier.Entry) frontier.Entry {
	e.State, e.Attempts, e.NextAt, e.Priority = frontier.Done, 2, T0.Add(time.Hour), 7
	e.Depth, e.Hops, e.Parent = 1, 2, "https://a.example/"
	e.ETag, e.LastModified, e.LastStatus = `"v1"`, "Mon, 30 Nov 2026 10:00:00 GMT", 200
	e.Reason, e.FetchedAt, e.File = "retried-timeout", T0.Add(3*time.Second), "a.example/page"
	e.SHA256, e.Bytes = "deadbeef", 4096
	e.WarcID, e.WarcDate, e.WarcDigest = "<urn:uuid:0e2c1c3a-8d47-4a8e-9b0d-2f6c1d1c2a11>", T0.Add(4*time.Second), "sha256:beef"
	e.Kind, e.LastMod, e.ListedBy = frontier.Sitemap, T0.Add(-24*time.Hour), "https://a.example/sitemap.xml"
	e.Revisit = frontier.Revisit{Every: 36 * time.Hour, DueAt: T0.Add(30 * time.Hour), Fetches: 5, Changes: 2,
		ChangedAt: T0.Add(-48 * time.Hour), Change: frontier.ChangeUnchanged}
	return e
}

func testUpdateWritesEverything(t *testing.T, v *env) {
	db := v.db
	mustEnqueue(t, db, "j", entry("a.example", "/page", 3))
	es, err := db.Take("j", "a.example", T0, 1)
	if err != nil || len(es) != 1 {
		t.Fatalf("Take = %v, %v; want one entry", es, err)
	}
	e := fullEntry(es[0])
	rv := reflect.ValueOf(e)
	for i := range rv.NumField() {
		if rv.Field(i).IsZero() {
			t.Fatalf("fullEntry leaves %s zero: the round trip would not test it", rv.Type().Field(i).Name)
		}
	}
	byURL := e
	byURL.ID, byURL.State, byURL.LastStatus, byURL.Kind, byURL.LastMod = 0, frontier.NotModified, 304, frontier.Page, time.Time{}
	byURL.ListedBy = "https://a.example/other-sitemap.xml"
	for _, tt := range []struct {
		name string
		e    frontier.Entry
	}{{"by id", e}, {"by job and url", byURL}} {
		if err := db.Update([]frontier.Entry{tt.e}); err != nil {
			t.Fatalf("%s: Update: %v", tt.name, err)
		}
		got, err := db.Get("j", e.URL)
		if err != nil {
			t.Fatalf("%s: Get: %v", tt.name, err)
		}
		assertEntryEqual(t, got, tt.e)
	}

	ghost := entry("a.example", "/ghost", 0)
	ghost.Job, ghost.State = "j", frontier.Done
	first := e
	first.Attempts = 99
	if err := db.Update([]frontier.Entry{first, ghost}); !errors.Is(err, v.cfg.NotFound) {
		t.Errorf("Update(ghost) = %v, want NotFound", err)
	}
	if got, _ := db.Get("j", e.URL); got.Attempts == 99 {
		t.Errorf("Update with an unknown entry wrote the others, want nothing written")
	}
}

func assertEntryEqual(t *testing.T, got, want frontier.Entry) {
	t.Helper()
	equalTimes(t, "",
		timeField{"NextAt", &got.NextAt, &want.NextAt}, timeField{"FetchedAt", &got.FetchedAt, &want.FetchedAt},
		timeField{"WarcDate", &got.WarcDate, &want.WarcDate}, timeField{"LastMod", &got.LastMod, &want.LastMod},
		timeField{"Revisit.DueAt", &got.Revisit.DueAt, &want.Revisit.DueAt},
		timeField{"Revisit.ChangedAt", &got.Revisit.ChangedAt, &want.Revisit.ChangedAt})
	if want.ID == 0 {
		want.ID = got.ID
	}
	if got != want {
		t.Errorf("entry =\n %+v\nwant\n %+v", got, want)
	}
}

func testCountsEntriesGet(t *testing.T, v *env) {
	db := v.db
	var es []frontier.Entry
	states := []frontier.State{frontier.Queued, frontier.Dead, frontier.Done, frontier.Dead, frontier.Excluded, frontier.Dead}
	for i, s := range states {
		e := entry("a.example", fmt.Sprintf("/%d", i), 0)
		e.State = s
		es = append(es, e)
	}
	mustEnqueue(t, db, "j", es...)

	counts, err := db.Counts("j")
	want := map[frontier.State]int{frontier.Queued: 1, frontier.Dead: 3, frontier.Done: 1, frontier.Excluded: 1}
	if err != nil || !reflect.DeepEqual(counts, want) {
		t.Errorf("Counts = %v, %v; want %v", counts, err, want)
	}
	tests := []struct {
		name  string
		state frontier.State
		limit int
		want  []string
	}{
		{"all dead, oldest first", frontier.Dead, 0, []string{"https://a.example/1", "https://a.example/3", "https://a.example/5"}},
		{"limited", frontier.Dead, 2, []string{"https://a.example/1", "https://a.example/3"}},
		{"none", frontier.Deferred, 0, nil},
	}
	for _, tt := range tests {
		got, err := db.Entries("j", tt.state, tt.limit)
		if err != nil || !reflect.DeepEqual(urls(got), tt.want) {
			t.Errorf("%s: Entries(%s, %d) = %v, %v; want %v", tt.name, tt.state, tt.limit, urls(got), err, tt.want)
		}
	}
	got, err := db.Get("j", "https://a.example/2")
	if err != nil || got.State != frontier.Done || got.Host != "a.example" || got.Job != "j" || got.ID == 0 {
		t.Errorf("Get = %+v, %v; want the done entry of job j", got, err)
	}
	if _, err := db.Get("j", "https://a.example/none"); !errors.Is(err, v.cfg.NotFound) {
		t.Errorf("Get(unknown) = %v, want NotFound", err)
	}
	if _, err := db.Get("nojob", "https://a.example/1"); !errors.Is(err, v.cfg.NotFound) {
		t.Errorf("Get(other job) = %v, want NotFound", err)
	}
}

// A sitemap entry keeps its kind, and the lastmod a sitemap gave a URL
// is kept with that sitemap's URL; a sitemap listing a known URL anew
// with another lastmod (or another sitemap with the same) updates both,
// one without a lastmod leaves them.
func testEnqueueKeepsSitemapFields(t *testing.T, v *env) {
	db := v.db
	sm := entry("a.example", "/sitemap.xml", 9)
	sm.Kind = frontier.Sitemap
	child := entry("a.example", "/sitemap-2.xml", 0)
	child.Kind = frontier.SitemapChild
	page := entry("a.example", "/page", 0)
	page.LastMod, page.ListedBy = T0.Add(-48*time.Hour), sm.URL
	mustEnqueue(t, db, "j", sm, child, page)
	taken, err := db.Take("j", "a.example", T0, 3)
	if err != nil || len(taken) != 3 {
		t.Fatalf("Take = %v, %v; want 3", urls(taken), err)
	}
	for i, want := range []frontier.Entry{sm, child, page} { // by priority, then in order
		if got := taken[i]; got.URL != want.URL || got.Kind != want.Kind || !got.LastMod.Equal(want.LastMod) || got.ListedBy != want.ListedBy {
			t.Errorf("taken %s: kind %q, lastmod %v listed by %q; want %q, %v, %q", got.URL, got.Kind, got.LastMod, got.ListedBy, want.Kind, want.LastMod, want.ListedBy)
		}
	}
	newer := page
	newer.LastMod, newer.ListedBy = T0.Add(-time.Hour), child.URL
	none := page
	none.LastMod, none.ListedBy = time.Time{}, ""
	other := page
	other.ListedBy = child.URL
	for _, tt := range []struct {
		name string
		e    frontier.Entry
		want time.Time
		by   string
	}{
		{"listed anew with a newer lastmod", newer, newer.LastMod, child.URL},
		{"listed without a lastmod", none, newer.LastMod, child.URL},
		{"listed with the first lastmod again", page, page.LastMod, sm.URL},
		{"listed by another sitemap with the same lastmod", other, page.LastMod, child.URL},
	} {
		if n, err := db.Enqueue("j", []frontier.Entry{tt.e}); err != nil || n != 0 {
			t.Fatalf("%s: Enqueue = %d, %v; want 0 new", tt.name, n, err)
		}
		got, err := db.Get("j", page.URL)
		if err != nil || !got.LastMod.Equal(tt.want) || got.ListedBy != tt.by || got.State != frontier.InFlight {
			t.Errorf("%s: entry = %s, lastmod %v listed by %q, %v; want still in flight, lastmod %v listed by %q",
				tt.name, got.State, got.LastMod, got.ListedBy, err, tt.want, tt.by)
		}
	}
}
