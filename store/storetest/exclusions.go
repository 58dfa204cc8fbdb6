package storetest

import (
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// testExclusions: the operator's exclusion list, kept for every job; its
// version moves at every change and only then, and another handle (a
// running crawl in another process) sees both.
func testExclusions(t *testing.T, v *env) {
	db := v.db
	other := v.open(v.clock.Now)
	if xs := exclusionList(t, db); len(xs) != 0 {
		t.Fatalf("a new database has exclusions %+v", xs)
	}
	last := exclusionsVersion(t, db)
	steps := []struct {
		name      string
		do        func() (bool, error)
		want      bool // added or removed
		wantMoved bool // the version moved
	}{
		{"add a host", func() (bool, error) {
			return db.AddExclusion(frontier.Exclusion{Rule: "b.example", Reason: "asked us to stop"})
		}, true, true},
		{"add a domain, at a given time", func() (bool, error) {
			return db.AddExclusion(frontier.Exclusion{Rule: ".a.example", AddedAt: T0.Add(-time.Hour)})
		}, true, true},
		{"add a prefix", func() (bool, error) {
			return db.AddExclusion(frontier.Exclusion{Rule: "https://c.example/private/"})
		}, true, true},
		{"add the host again, no reason", func() (bool, error) {
			return db.AddExclusion(frontier.Exclusion{Rule: "b.example"})
		}, false, false},
		{"add the domain again with a reason", func() (bool, error) {
			return db.AddExclusion(frontier.Exclusion{Rule: ".a.example", Reason: "a new reason"})
		}, false, false},
		{"remove a rule the list does not have", func() (bool, error) { return db.RemoveExclusion("zzz.example") }, false, false},
		{"remove the prefix", func() (bool, error) { return db.RemoveExclusion("https://c.example/private/") }, true, true},
	}
	for _, st := range steps {
		got, err := st.do()
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if got != st.want {
			t.Errorf("%s = %v, want %v", st.name, got, st.want)
		}
		now := exclusionsVersion(t, db)
		if moved := now != last; moved != st.wantMoved || now < last {
			t.Errorf("%s: version %d -> %d, want moved %v (and never back)", st.name, last, now, st.wantMoved)
		}
		if seen := exclusionsVersion(t, other); seen != now {
			t.Errorf("%s: another handle reads version %d, want %d", st.name, seen, now)
		}
		last = now
	}
	want := []frontier.Exclusion{
		{Rule: ".a.example", Reason: "a new reason", AddedAt: T0.Add(-time.Hour)},
		{Rule: "b.example", Reason: "asked us to stop", AddedAt: T0},
	}
	for _, s := range []Store{db, other} {
		got := exclusionList(t, s)
		if len(got) != len(want) {
			t.Fatalf("Exclusions = %+v, want %+v", got, want)
		}
		for i := range want {
			w := want[i]
			equalTimes(t, got[i].Rule+" ", timeField{"AddedAt", &got[i].AddedAt, &w.AddedAt})
			if got[i] != w {
				t.Errorf("exclusion %d = %+v, want %+v", i, got[i], w)
			}
		}
	}
	if _, err := db.AddExclusion(frontier.Exclusion{}); err == nil {
		t.Error("AddExclusion of no rule: no error")
	}
}

func exclusionsVersion(t *testing.T, s Store) int64 {
	t.Helper()
	n, err := s.ExclusionsVersion()
	if err != nil {
		t.Fatalf("ExclusionsVersion: %v", err)
	}
	return n
}

func exclusionList(t *testing.T, s Store) []frontier.Exclusion {
	t.Helper()
	xs, err := s.Exclusions()
	if err != nil {
		t.Fatalf("Exclusions: %v", err)
	}
	return xs
}
