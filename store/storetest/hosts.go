package storetest

import (
	"bytes"
	"reflect"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/pace"
)

// FullState has every field of pace.State set, each to a value of its
// own, so that a column left out or swapped shows.
func FullState(host string) pace.State {
	return pace.State{
		Host: host, Delay: 1234567891 * time.Nanosecond, SetAt: T0,
		HalfLife: 3 * time.Second, Baseline: 87 * time.Millisecond,
		CongestionDelay: 4500 * time.Millisecond, CongestionAt: T0.Add(-time.Hour),
		LastSignal: "429", SignalAt: T0.Add(-time.Minute),
		SafeGap: 1020 * time.Millisecond, RefusedGap: 980 * time.Millisecond,
		LearnedAt: T0.Add(-2 * time.Hour), LearnedHalfLife: 72 * time.Hour,
		Floor: 5 * time.Second, FloorSource: pace.FloorCrawlDelay,
		HoldUntil: T0.Add(time.Hour), HoldReason: pace.HoldQuota,
	}
}

// Every field of pace.State survives Save or SaveAll, then Load and
// States; a later save replaces every field, zero ones too.
func testPaceStateRoundTrip(t *testing.T, v *env) {
	full := FullState("example.com:8080")
	rv := reflect.ValueOf(full)
	for i := range rv.NumField() {
		if rv.Field(i).IsZero() {
			t.Fatalf("fullState leaves %s zero: the round trip would not test it", rv.Type().Field(i).Name)
		}
	}
	saves := []struct {
		name string
		save func(pace.State) error
	}{
		{"Save", v.db.Save},
		{"SaveAll", func(st pace.State) error { return v.db.SaveAll([]pace.State{st}) }},
	}
	cest := time.FixedZone("CEST", 2*3600)
	for _, s := range saves {
		for _, st := range []pace.State{
			full,
			{Host: "fresh.example", Delay: 3 * time.Second}, // zero times
			{Host: "tz.example", Delay: time.Second, SetAt: time.Date(2026, 6, 1, 12, 0, 0, 5, cest)},
			// A second save of the first host: every field replaced.
			{Host: full.Host, Delay: time.Second, SetAt: T0.Add(time.Minute), CongestionAt: full.CongestionAt},
		} {
			if err := s.save(st); err != nil {
				t.Fatalf("%s(%s): %v", s.name, st.Host, err)
			}
			got, ok, err := v.db.Load(st.Host)
			if err != nil || !ok {
				t.Fatalf("%s: Load(%s) = _, %v, %v; want found", s.name, st.Host, ok, err)
			}
			assertStateEqual(t, got, st)
		}
		sts, err := v.db.States()
		if err != nil || len(sts) != 3 {
			t.Fatalf("%s: States = %+v, %v; want 3", s.name, sts, err)
		}
		assertStateEqual(t, sts[0], pace.State{Host: full.Host, Delay: time.Second, SetAt: T0.Add(time.Minute), CongestionAt: full.CongestionAt})
		if n, err := v.db.Forget(); err != nil || n != 3 {
			t.Fatalf("%s: Forget() = %d, %v; want 3", s.name, n, err)
		}
	}
}

func assertStateEqual(t *testing.T, got, want pace.State) {
	t.Helper()
	equalTimes(t, want.Host+" ",
		timeField{"SetAt", &got.SetAt, &want.SetAt}, timeField{"CongestionAt", &got.CongestionAt, &want.CongestionAt},
		timeField{"SignalAt", &got.SignalAt, &want.SignalAt}, timeField{"LearnedAt", &got.LearnedAt, &want.LearnedAt},
		timeField{"HoldUntil", &got.HoldUntil, &want.HoldUntil})
	if got != want {
		t.Errorf("state = %+v, want %+v", got, want)
	}
}

func testPaceStateSaveReplacesAndLists(t *testing.T, v *env) {
	db := v.db
	if _, ok, err := db.Load("unknown.example"); ok || err != nil {
		t.Errorf("Load(unknown) = _, %v, %v; want not found, nil", ok, err)
	}
	if err := db.SaveAll([]pace.State{
		{Host: "b.example", Delay: time.Second, SetAt: T0},
		{Host: "a.example", Delay: 2 * time.Second, SetAt: T0},
	}); err != nil {
		t.Fatalf("SaveAll: %v", err)
	}
	if err := db.Save(pace.State{Host: "b.example", Delay: 9 * time.Second, SetAt: T0.Add(time.Minute), LastSignal: "503"}); err != nil {
		t.Fatalf("Save: %v", err)
	}
	sts, err := db.States()
	if err != nil {
		t.Fatalf("States: %v", err)
	}
	var hosts []string
	for _, st := range sts {
		hosts = append(hosts, st.Host)
	}
	if want := []string{"a.example", "b.example"}; !reflect.DeepEqual(hosts, want) {
		t.Fatalf("States hosts = %v, want %v", hosts, want)
	}
	assertStateEqual(t, sts[1], pace.State{Host: "b.example", Delay: 9 * time.Second, SetAt: T0.Add(time.Minute), LastSignal: "503"})
	// Another handle on the database sees what this one saved.
	if got, ok, err := v.open(v.clock.Now).Load("a.example"); err != nil || !ok || got.Delay != 2*time.Second {
		t.Errorf("Load from another handle = %+v, %v, %v; want a.example's 2s", got, ok, err)
	}
}

func testRobotsRoundTrip(t *testing.T, v *env) {
	db := v.db
	tests := []struct {
		name string
		c    frontier.RobotsCopy
	}{
		{"parsed", frontier.RobotsCopy{Host: "example.com", Status: 200, Body: []byte("User-agent: *\nDisallow: /private\n"),
			FetchedAt: T0, Expires: T0.Add(24 * time.Hour)}},
		{"not found", frontier.RobotsCopy{Host: "nofile.example", Status: 404, FetchedAt: T0, Expires: T0.Add(24 * time.Hour)}},
		{"binary body", frontier.RobotsCopy{Host: "odd.example", Status: 200, Body: []byte{0, 0xff, '\n', 0x80}, FetchedAt: T0}},
		{"with tdmrep.json", frontier.RobotsCopy{Host: "tdm.example", Status: 200, Body: []byte("User-agent: *\n"),
			FetchedAt: T0, Expires: T0.Add(24 * time.Hour), TDMRep: frontier.TDMRepCopy{Status: 200,
				Body: []byte(`[{"location": "/*", "tdm-reservation": 1}]`), FetchedAt: T0, Expires: T0.Add(12 * time.Hour)}}},
		{"tdmrep.json not found", frontier.RobotsCopy{Host: "tdm.example", Status: 200, FetchedAt: T0, Expires: T0.Add(24 * time.Hour),
			TDMRep: frontier.TDMRepCopy{Status: 404, FetchedAt: T0.Add(time.Minute), Expires: T0.Add(24 * time.Hour)}}},
		{"tdmrep.json dropped", frontier.RobotsCopy{Host: "tdm.example", Status: 200, FetchedAt: T0, Expires: T0.Add(24 * time.Hour)}},
		{"replaced", frontier.RobotsCopy{Host: "example.com", Status: 503, FetchedAt: T0.Add(time.Hour), Expires: T0.Add(2 * time.Hour)}},
	}
	for _, tt := range tests {
		if err := db.PutRobots(tt.c); err != nil {
			t.Fatalf("%s: PutRobots: %v", tt.name, err)
		}
		got, ok, err := db.Robots(tt.c.Host)
		if err != nil || !ok {
			t.Fatalf("%s: Robots = _, %v, %v; want found", tt.name, ok, err)
		}
		if got.Host != tt.c.Host || got.Status != tt.c.Status || !bytes.Equal(got.Body, tt.c.Body) ||
			!got.FetchedAt.Equal(tt.c.FetchedAt) || !got.Expires.Equal(tt.c.Expires) {
			t.Errorf("%s: Robots = %+v, want %+v", tt.name, got, tt.c)
		}
		if g, w := got.TDMRep, tt.c.TDMRep; g.Status != w.Status || !bytes.Equal(g.Body, w.Body) ||
			!g.FetchedAt.Equal(w.FetchedAt) || !g.Expires.Equal(w.Expires) {
			t.Errorf("%s: Robots' tdmrep.json = %+v, want %+v", tt.name, g, w)
		}
	}
	cs, err := db.RobotsCopies()
	if err != nil {
		t.Fatalf("RobotsCopies: %v", err)
	}
	var hosts []string
	for _, c := range cs {
		hosts = append(hosts, c.Host)
		if c.Body != nil {
			t.Errorf("RobotsCopies %s has a body of %d bytes, want none", c.Host, len(c.Body))
		}
	}
	if want := []string{"example.com", "nofile.example", "odd.example", "tdm.example"}; !reflect.DeepEqual(hosts, want) {
		t.Errorf("RobotsCopies hosts = %v, want %v", hosts, want)
	}
	if _, ok, err := db.Robots("unknown.example"); ok || err != nil {
		t.Errorf("Robots(unknown) = _, %v, %v; want not found, nil", ok, err)
	}
	if err := db.PutRobots(frontier.RobotsCopy{}); err == nil {
		t.Error("PutRobots without a host: no error")
	}
	// Several copies in one call: each stored; a call with a copy
	// without a host stores none of them.
	a := frontier.RobotsCopy{Host: "a.example", Status: 200, Body: []byte("User-agent: *\n"), FetchedAt: T0}
	b := frontier.RobotsCopy{Host: "b.example", Status: 404, FetchedAt: T0}
	if err := db.PutRobots(a, b); err != nil {
		t.Fatalf("PutRobots(a, b): %v", err)
	}
	for _, c := range []frontier.RobotsCopy{a, b} {
		if got, ok, err := db.Robots(c.Host); err != nil || !ok || got.Status != c.Status || !bytes.Equal(got.Body, c.Body) {
			t.Errorf("Robots(%s) = %+v, %v, %v; want %+v", c.Host, got, ok, err, c)
		}
	}
	if err := db.PutRobots(frontier.RobotsCopy{Host: "c.example", Status: 200, FetchedAt: T0}, frontier.RobotsCopy{}); err == nil {
		t.Error("PutRobots of a copy and one without a host: no error")
	}
	if _, ok, err := db.Robots("c.example"); ok || err != nil {
		t.Errorf("Robots(c.example) after a refused batch = _, %v, %v; want not found", ok, err)
	}
}

// A copy one handle caches is the other's: robots.txt is fetched once.
func testRobotsCacheIsShared(t *testing.T, v *env) {
	a, b := v.db, v.open(v.clock.Now)
	c := frontier.RobotsCopy{Host: "a.test", Status: 200, Body: []byte("User-agent: *\nDisallow: /x\n"),
		FetchedAt: T0, Expires: T0.Add(24 * time.Hour)}
	if err := a.PutRobots(c); err != nil {
		t.Fatal(err)
	}
	got, ok, err := b.Robots("a.test")
	if err != nil || !ok || got.Status != c.Status || string(got.Body) != string(c.Body) ||
		!got.FetchedAt.Equal(c.FetchedAt) || !got.Expires.Equal(c.Expires) {
		t.Errorf("b.Robots = %+v, %v, %v; want a's %+v", got, ok, err, c)
	}
	c.Status, c.Body = 404, nil
	if err := b.PutRobots(c); err != nil {
		t.Fatal(err)
	}
	cs, err := a.RobotsCopies()
	if err != nil || len(cs) != 1 || cs[0].Status != 404 || cs[0].Body != nil {
		t.Errorf("a.RobotsCopies = %+v, %v; want one 404 without body", cs, err)
	}
}
