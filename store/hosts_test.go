package store_test

import (
	"bytes"
	"reflect"
	"testing"
	"time"

	"github.com/polite-crawler/polite/pace"
	"github.com/polite-crawler/polite/store"
)

func TestPaceStateRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		st   pace.State
	}{
		{
			name: "every field",
			st: pace.State{
				Host:            "example.com:8080",
				Delay:           1234567891 * time.Nanosecond,
				SetAt:           t0,
				Baseline:        87 * time.Millisecond,
				CongestionDelay: 4500 * time.Millisecond,
				CongestionAt:    t0.Add(-time.Hour),
				LastSignal:      "429",
				Floor:           5 * time.Second,
				FloorSource:     pace.FloorCrawlDelay,
				HoldUntil:       t0.Add(time.Hour),
				HoldReason:      pace.HoldQuota,
				HalfLife:        3 * time.Second,
				SignalAt:        t0.Add(-time.Minute),
				SafeGap:         1020 * time.Millisecond,
				RefusedGap:      980 * time.Millisecond,
				LearnedAt:       t0.Add(-2 * time.Hour),
				LearnedHalfLife: 72 * time.Hour,
			},
		},
		{
			name: "zero times",
			st:   pace.State{Host: "fresh.example", Delay: 3 * time.Second},
		},
		{
			name: "non-UTC time",
			st: pace.State{Host: "tz.example", Delay: time.Second,
				SetAt: time.Date(2026, 6, 1, 12, 0, 0, 5, time.FixedZone("CEST", 2*3600))},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := mustOpen(t)
			if err := db.Save(tt.st); err != nil {
				t.Fatalf("Save: %v", err)
			}
			got, ok, err := db.Load(tt.st.Host)
			if err != nil || !ok {
				t.Fatalf("Load = _, %v, %v; want found", ok, err)
			}
			assertStateEqual(t, got, tt.st)
		})
	}
}

func assertStateEqual(t *testing.T, got, want pace.State) {
	t.Helper()
	for _, f := range []struct {
		name      string
		got, want *time.Time
	}{
		{"SetAt", &got.SetAt, &want.SetAt}, {"CongestionAt", &got.CongestionAt, &want.CongestionAt},
		{"SignalAt", &got.SignalAt, &want.SignalAt}, {"LearnedAt", &got.LearnedAt, &want.LearnedAt},
		{"HoldUntil", &got.HoldUntil, &want.HoldUntil},
	} {
		if !f.got.Equal(*f.want) {
			t.Errorf("%s = %v, want %v", f.name, *f.got, *f.want)
		}
		*f.got, *f.want = time.Time{}, time.Time{}
	}
	if got != want {
		t.Errorf("state = %+v, want %+v", got, want)
	}
}

func TestPaceStateSaveReplacesAndLists(t *testing.T) {
	db := mustOpen(t)
	if _, ok, err := db.Load("unknown.example"); ok || err != nil {
		t.Errorf("Load(unknown) = _, %v, %v; want not found, nil", ok, err)
	}
	if err := db.SaveAll([]pace.State{
		{Host: "b.example", Delay: time.Second, SetAt: t0},
		{Host: "a.example", Delay: 2 * time.Second, SetAt: t0},
	}); err != nil {
		t.Fatalf("SaveAll: %v", err)
	}
	if err := db.Save(pace.State{Host: "b.example", Delay: 9 * time.Second, SetAt: t0.Add(time.Minute), LastSignal: "503"}); err != nil {
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
	assertStateEqual(t, sts[1], pace.State{Host: "b.example", Delay: 9 * time.Second, SetAt: t0.Add(time.Minute), LastSignal: "503"})
}

func TestRobotsRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		c    store.RobotsCopy
	}{
		{"parsed", store.RobotsCopy{Host: "example.com", Status: 200, Body: []byte("User-agent: *\nDisallow: /private\n"),
			FetchedAt: t0, Expires: t0.Add(24 * time.Hour)}},
		{"not found", store.RobotsCopy{Host: "nofile.example", Status: 404, FetchedAt: t0, Expires: t0.Add(24 * time.Hour)}},
		{"binary body", store.RobotsCopy{Host: "odd.example", Status: 200, Body: []byte{0, 0xff, '\n', 0x80}, FetchedAt: t0}},
	}
	db := mustOpen(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := db.PutRobots(tt.c); err != nil {
				t.Fatalf("PutRobots: %v", err)
			}
			got, ok, err := db.Robots(tt.c.Host)
			if err != nil || !ok {
				t.Fatalf("Robots = _, %v, %v; want found", ok, err)
			}
			if got.Host != tt.c.Host || got.Status != tt.c.Status || !bytes.Equal(got.Body, tt.c.Body) ||
				!got.FetchedAt.Equal(tt.c.FetchedAt) || !got.Expires.Equal(tt.c.Expires) {
				t.Errorf("Robots = %+v, want %+v", got, tt.c)
			}
		})
	}

	t.Run("replace", func(t *testing.T) {
		c := store.RobotsCopy{Host: "example.com", Status: 503, FetchedAt: t0.Add(time.Hour), Expires: t0.Add(2 * time.Hour)}
		if err := db.PutRobots(c); err != nil {
			t.Fatalf("PutRobots: %v", err)
		}
		got, _, err := db.Robots("example.com")
		if err != nil || got.Status != 503 || len(got.Body) != 0 || !got.FetchedAt.Equal(c.FetchedAt) {
			t.Errorf("Robots after replace = %+v, %v; want %+v", got, err, c)
		}
	})

	t.Run("list without bodies", func(t *testing.T) {
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
		if want := []string{"example.com", "nofile.example", "odd.example"}; !reflect.DeepEqual(hosts, want) {
			t.Errorf("RobotsCopies hosts = %v, want %v", hosts, want)
		}
	})

	t.Run("unknown host", func(t *testing.T) {
		if _, ok, err := db.Robots("unknown.example"); ok || err != nil {
			t.Errorf("Robots(unknown) = _, %v, %v; want not found, nil", ok, err)
		}
	})
}

func TestForget(t *testing.T) {
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
		t.Run(tt.name, func(t *testing.T) {
			db := mustOpen(t)
			if err := db.SaveAll([]pace.State{{Host: "a.example", Delay: time.Second}, {Host: "b.example", Delay: time.Second}}); err != nil {
				t.Fatalf("SaveAll: %v", err)
			}
			for _, h := range []string{"a.example", "b.example", "c.example"} {
				if err := db.PutRobots(store.RobotsCopy{Host: h, Status: 200, FetchedAt: t0}); err != nil {
					t.Fatalf("PutRobots: %v", err)
				}
			}
			got, err := db.Forget(tt.hosts...)
			if err != nil {
				t.Fatalf("Forget: %v", err)
			}
			if got != tt.want {
				t.Errorf("Forget(%v) = %d, want %d", tt.hosts, got, tt.want)
			}
			sts, err := db.States()
			if err != nil {
				t.Fatalf("States: %v", err)
			}
			var left []string
			for _, st := range sts {
				left = append(left, st.Host)
			}
			if !reflect.DeepEqual(left, tt.wantLeft) {
				t.Errorf("states left = %v, want %v", left, tt.wantLeft)
			}
			cs, err := db.RobotsCopies()
			if err != nil {
				t.Fatalf("RobotsCopies: %v", err)
			}
			var robots []string
			for _, c := range cs {
				robots = append(robots, c.Host)
			}
			if !reflect.DeepEqual(robots, tt.wantRobot) {
				t.Errorf("robots copies left = %v, want %v", robots, tt.wantRobot)
			}
		})
	}
}
