package postgres

import (
	"testing"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// A registered worker is woken by each change another worker makes that
// may give it work: a host released, URLs added (by Enqueue or Record),
// an exclusion rule added, a worker leaving. Each wake-up is awaited in
// turn: a lost one hangs the test.
func TestWakesOnOtherWorkersChanges(t *testing.T) {
	t.Parallel()
	u := newSchema(t)
	clock := newClock()
	a, b := mustOpen(t, u, clock), mustOpen(t, u, clock)
	for i, db := range []*DB{a, b} {
		if err := db.Acquire(frontier.Holder{Job: "j", PID: i + 1, Hostname: "w"}); err != nil {
			t.Fatal(err)
		}
	}
	wake := b.Wakes()
	if c, err := a.Claim("h.test", t0, 0); err != nil || !c.OK {
		t.Fatalf("claim = %+v, %v", c, err)
	}
	if err := a.ReleaseHost("h.test"); err != nil {
		t.Fatal(err)
	}
	<-wake // host released
	if _, err := a.Enqueue("j", []frontier.Entry{{URL: "http://h.test/1", Host: "h.test"}}); err != nil {
		t.Fatal(err)
	}
	<-wake // URLs enqueued
	if _, err := a.Record("j", []frontier.Entry{{URL: "http://h.test/2", Host: "h.test"}}, nil, nil); err != nil {
		t.Fatal(err)
	}
	<-wake // URLs found
	if _, err := a.AddExclusion(frontier.Exclusion{Rule: "x.test"}); err != nil {
		t.Fatal(err)
	}
	<-wake // a rule added
	if err := a.Release(frontier.Holder{}); err != nil {
		t.Fatal(err)
	}
	<-wake // a worker left
}
