package storetest

import (
	"reflect"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/pace"
)

func testForget(t *testing.T, v *env) {
	tests := []struct {
		name      string
		hosts     []string
		want      int
		wantLeft  []string // hosts with pace state afterwards
		wantRobot []string // hosts with a robots copy afterwards
	}{
		{"one host", []string{"a.example"}, 1, []string{"b.example"}, []string{"b.example", "c.example"}},
		{"case-insensitive", []string{"A.Example"}, 1, []string{"b.example"}, []string{"b.example", "c.example"}},
		{"robots copy only", []string{"c.example"}, 1, []string{"a.example", "b.example"}, []string{"a.example", "b.example"}},
		{"unknown host", []string{"zzz.example"}, 0, []string{"a.example", "b.example"}, []string{"a.example", "b.example", "c.example"}},
		{"repeated host", []string{"a.example", "a.example", "b.example"}, 2, nil, []string{"c.example"}},
		{"all", nil, 3, nil, nil},
	}
	for _, tt := range tests {
		held := pace.State{Host: "a.example", Delay: time.Second, SetAt: T0, HoldUntil: T0.Add(time.Hour), HoldReason: pace.HoldRetryAfter}
		if err := v.db.SaveAll([]pace.State{held, {Host: "b.example", Delay: time.Second}}); err != nil {
			t.Fatalf("SaveAll: %v", err)
		}
		for _, h := range []string{"a.example", "b.example", "c.example"} {
			if err := v.db.PutRobots(frontier.RobotsCopy{Host: h, Status: 200, FetchedAt: T0}); err != nil {
				t.Fatalf("PutRobots: %v", err)
			}
		}
		got, err := v.db.Forget(tt.hosts...)
		if err != nil {
			t.Fatalf("%s: Forget: %v", tt.name, err)
		}
		if got != tt.want {
			t.Errorf("%s: Forget(%v) = %d, want %d", tt.name, tt.hosts, got, tt.want)
		}
		sts, err := v.db.States()
		if err != nil {
			t.Fatalf("States: %v", err)
		}
		var left []string
		for _, st := range sts {
			left = append(left, st.Host)
		}
		if !reflect.DeepEqual(left, tt.wantLeft) {
			t.Errorf("%s: states left = %v, want %v", tt.name, left, tt.wantLeft)
		}
		cs, err := v.db.RobotsCopies()
		if err != nil {
			t.Fatalf("RobotsCopies: %v", err)
		}
		var robots []string
		for _, c := range cs {
			robots = append(robots, c.Host)
		}
		if !reflect.DeepEqual(robots, tt.wantRobot) {
			t.Errorf("%s: robots copies left = %v, want %v", tt.name, robots, tt.wantRobot)
		}
		if _, err := v.db.Forget(); err != nil { // a clean slate for the next case
			t.Fatal(err)
		}
	}
}

// Forget releases what a host's hold left waiting: its deferred entries
// and those queued for later become eligible now, in every job, and a
// host known only by such entries counts as known.
func testForgetReleasesWaiting(t *testing.T, v *env) {
	far := T0.Add(24 * time.Hour)
	es := []frontier.Entry{
		{URL: "https://a.example/deferred", Host: "a.example", State: frontier.Deferred, NextAt: far},
		{URL: "https://a.example/later", Host: "a.example", State: frontier.Queued, NextAt: far},
		{URL: "https://a.example/done", Host: "a.example", State: frontier.Done, NextAt: far},
		{URL: "https://b.example/later", Host: "b.example", State: frontier.Queued, NextAt: far},
		{URL: "https://c.example/deferred", Host: "c.example", State: frontier.Deferred, NextAt: far},
	}
	mustEnqueue(t, v.db, "j", es...)
	mustEnqueue(t, v.db, "k", es[0])
	if err := v.db.Save(pace.State{Host: "a.example", Delay: time.Second, SetAt: T0, HoldUntil: far, HoldReason: pace.HoldRetryAfter}); err != nil {
		t.Fatal(err)
	}
	if n, err := v.db.Forget("a.example", "c.example"); err != nil || n != 2 {
		t.Errorf("Forget(a, c) = %d, %v; want 2 (c is known by its deferred entry)", n, err)
	}
	if _, ok, err := v.db.Load("a.example"); ok || err != nil {
		t.Errorf("Load(a.example) after Forget = found %v, %v; want its state and hold gone", ok, err)
	}
	tests := []struct {
		job, url string
		state    frontier.State
		nextAt   time.Time
	}{
		{"j", es[0].URL, frontier.Queued, T0},
		{"j", es[1].URL, frontier.Queued, T0},
		{"j", es[2].URL, frontier.Done, far},
		{"j", es[3].URL, frontier.Queued, far},
		{"j", es[4].URL, frontier.Queued, T0},
		{"k", es[0].URL, frontier.Queued, T0},
	}
	for _, tt := range tests {
		got, err := v.db.Get(tt.job, tt.url)
		if err != nil || got.State != tt.state || !got.NextAt.Equal(tt.nextAt) {
			t.Errorf("%s %s after Forget = %s at %v, %v; want %s at %v", tt.job, tt.url, got.State, got.NextAt, err, tt.state, tt.nextAt)
		}
	}
	if hs, err := v.db.QueuedHosts("j"); err != nil || len(hs) != 3 || !hs[0].NextAt.Equal(T0) {
		t.Errorf("QueuedHosts = %+v, %v; want a.example due now first", hs, err)
	}
	if n, err := v.db.Forget(); err != nil || n != 1 {
		t.Errorf("Forget() = %d, %v; want 1 (b.example, known by its wait)", n, err)
	}
	if got, err := v.db.Get("j", es[3].URL); err != nil || !got.NextAt.Equal(T0) {
		t.Errorf("b.example's entry after Forget() = %+v, %v; want due now", got, err)
	}
}
