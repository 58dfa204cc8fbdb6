package storetest

import (
	"slices"
	"testing"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// JobNames is what naming and finding jobs needs of a store.
type JobNames interface {
	NameJob(job, want string) (string, error)
	Jobs() ([]frontier.Job, error)
}

// testDropRemovedSeeds: the seeds a seed file no longer has leave the
// job's frontier; what they led to (links, redirects), the seeds kept,
// in-flight entries and other jobs' entries stay.
func testDropRemovedSeeds(t *testing.T, v *env) {
	db := v.db
	kept, gone, busy := entry("a.example", "/kept", 0), entry("a.example", "/gone", 0), entry("a.example", "/busy", 0)
	link := entry("a.example", "/link", 0)
	link.Depth, link.Parent = 1, gone.URL
	hop := entry("a.example", "/hop", 0)
	hop.Hops, hop.Parent = 1, gone.URL
	mustEnqueue(t, db, "j", kept, gone, busy, link, hop)
	mustEnqueue(t, db, "other", gone)
	busy.State = frontier.InFlight
	busy.Job = "j"
	if err := db.Update([]frontier.Entry{busy}); err != nil {
		t.Fatal(err)
	}
	n, err := db.DropRemovedSeeds("j", func(u string) bool { return u == kept.URL })
	if err != nil || n != 1 {
		t.Fatalf("DropRemovedSeeds = %d, %v; want 1 (the removed seed alone)", n, err)
	}
	if _, err := db.Get("j", gone.URL); err == nil {
		t.Errorf("the removed seed %s is still in the frontier", gone.URL)
	}
	for _, u := range []string{kept.URL, busy.URL, link.URL, hop.URL} {
		if _, err := db.Get("j", u); err != nil {
			t.Errorf("Get %s: %v; want it kept", u, err)
		}
	}
	if _, err := db.Get("other", gone.URL); err != nil {
		t.Errorf("another job's entry went too: %v", err)
	}
}

// testJobNames: a job keeps the display name it got first; another job
// wanting the same name gets it made unique; Jobs lists both with names,
// and a job that only ran, without a name.
func testJobNames(t *testing.T, v *env) {
	db, ok := v.db.(JobNames)
	if !ok {
		t.Fatal("the store does not name jobs")
	}
	steps := []struct{ job, want, got string }{
		{"/home/a/seeds.txt", "seeds.txt", "seeds.txt"},
		{"/home/b/seeds.txt", "seeds.txt", "seeds.txt-2"},
		{"/home/a/seeds.txt", "other.txt", "seeds.txt"},
		{"/home/c/seeds.txt", "seeds.txt", "seeds.txt-3"},
	}
	for i, st := range steps {
		got, err := db.NameJob(st.job, st.want)
		if err != nil || got != st.got {
			t.Fatalf("step %d: NameJob(%s, %s) = %q, %v; want %q", i, st.job, st.want, got, err, st.got)
		}
	}
	if _, err := v.db.BeginRun("nameless", T0); err != nil {
		t.Fatal(err)
	}
	js, err := db.Jobs()
	want := []frontier.Job{{Key: "/home/a/seeds.txt", Name: "seeds.txt"}, {Key: "/home/b/seeds.txt", Name: "seeds.txt-2"},
		{Key: "/home/c/seeds.txt", Name: "seeds.txt-3"}, {Key: "nameless"}}
	if err != nil || !slices.Equal(js, want) {
		t.Errorf("Jobs = %v, %v; want %v", js, err, want)
	}
}
