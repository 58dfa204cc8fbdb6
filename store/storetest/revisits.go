package storetest

import (
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// testHostRevisits: a host's URLs over every job, by where they stand in
// their schedules (waiting; fetched and due now, as Prepare finds them
// due; due within the window), and the least, median and greatest
// learned interval; another host's URLs are not counted.
func testHostRevisits(t *testing.T, v *env) {
	const h = time.Hour
	fetched := T0.Add(-24 * h)
	learned := func(every time.Duration, due time.Time) frontier.Revisit {
		return frontier.Revisit{Every: every, DueAt: due, Fetches: 2, Change: frontier.ChangeUnchanged}
	}
	for _, tt := range []struct {
		job, host, path string
		state           frontier.State
		r               frontier.Revisit
		lastMod         time.Time
	}{
		{"j1", "a.example", "/queued", frontier.Queued, frontier.Revisit{}, time.Time{}},
		{"j1", "a.example", "/due", frontier.Done, learned(24*h, T0.Add(-time.Minute)), time.Time{}},
		{"j1", "a.example", "/soon", frontier.NotModified, learned(36*h, T0.Add(5*h)), time.Time{}},
		{"j1", "a.example", "/later", frontier.Done, learned(72*h, T0.Add(48*h)), time.Time{}},
		{"j1", "a.example", "/listed", frontier.Done, learned(12*h, T0.Add(48*h)), fetched.Add(h)}, // a newer lastmod: due
		{"j1", "a.example", "/gone", frontier.Dead, frontier.Revisit{Every: 168 * h, DueAt: T0.Add(3 * h), Fetches: 2, Changes: 1, Change: frontier.ChangeGone}, time.Time{}},
		{"j1", "a.example", "/dead", frontier.Dead, frontier.Revisit{}, time.Time{}},
		{"j2", "a.example", "/due", frontier.Done, frontier.Revisit{}, time.Time{}}, // fetched once: due
		{"j1", "b.example", "/due", frontier.Done, learned(h, T0.Add(-h)), time.Time{}},
	} {
		e := entry(tt.host, tt.path, 0)
		mustEnqueue(t, v.db, tt.job, e)
		if tt.state == frontier.Queued {
			continue
		}
		e.Job, e.State, e.FetchedAt, e.SHA256, e.Revisit, e.LastMod = tt.job, tt.state, fetched, "aa", tt.r, tt.lastMod
		if err := v.db.Update([]frontier.Entry{e}); err != nil {
			t.Fatalf("Update %s %s: %v", tt.job, e.URL, err)
		}
	}
	got, err := v.db.HostRevisits("a.example", T0, T0.Add(24*h))
	if err != nil {
		t.Fatal(err)
	}
	want := frontier.HostRevisits{URLs: 8, Waiting: 1, DueNow: 3, DueSoon: 2, Learned: 5,
		MinEvery: 12 * h, MedianEvery: 36 * h, MaxEvery: 168 * h}
	if got != want {
		t.Errorf("HostRevisits(a.example) = %+v\nwant %+v", got, want)
	}
	if got, err := v.db.HostRevisits("unknown.example", T0, T0.Add(24*h)); err != nil || got != (frontier.HostRevisits{}) {
		t.Errorf("HostRevisits(unknown.example) = %+v, %v; want nothing", got, err)
	}
}
