package postgres

import (
	"reflect"
	"testing"
	"time"

	"github.com/polite-crawler/polite/pace"
	"github.com/polite-crawler/polite/store/storetest"
)

// A state saved with a hold is a hold every worker sees, with its reason,
// whether saved alone or with others; the round trip of every field is
// the shared suite's (store/storetest).
func TestSavedHoldIsEveryWorkersHold(t *testing.T) {
	t.Parallel()
	want := storetest.FullState("a.test")
	tests := []struct {
		name string
		save func(*DB, pace.State) error
	}{
		{"Save", (*DB).Save},
		{"SaveAll", func(db *DB, st pace.State) error { return db.SaveAll([]pace.State{st}) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := newSchema(t)
			db := mustOpen(t, u, newClock())
			if err := tt.save(db, want); err != nil {
				t.Fatal(err)
			}
			hs, err := holdsOf(mustOpen(t, u, newClock()))
			wantHold := hostHold{Host: want.Host, Until: want.HoldUntil, Reason: string(want.HoldReason)}
			if err != nil || len(hs) != 1 || hs[0] != wantHold {
				t.Errorf("Holds = %+v, %v; want [%+v]", hs, err, wantHold)
			}
		})
	}
}

// A database at schema version 2 (before the two time scales) migrates:
// its rows keep what they had, the signal's time is the congestion's
// where a signal was kept, and the new fields start at zero.
func TestMigrateFromVersion2(t *testing.T) {
	t.Parallel()
	db := openFromVersion(t, 2, `INSERT INTO host_state (host, delay_ns, set_at, congestion_ns, congestion_at, last_signal, floor_ns, floor_source, hold_until)
VALUES ('a.test', 3000000000, 100, 900000000, 50, '429', 500000000, 'robots', 200),
       ('b.test', 1000000000, 100, 0, 0, '', 0, '', 0)`)
	want := []pace.State{
		{Host: "a.test", Delay: 3 * time.Second, SetAt: fromNanos(100),
			CongestionDelay: 900 * time.Millisecond, CongestionAt: fromNanos(50), LastSignal: "429", SignalAt: fromNanos(50),
			Floor: 500 * time.Millisecond, FloorSource: pace.FloorSource("robots"), HoldUntil: fromNanos(200)},
		{Host: "b.test", Delay: time.Second, SetAt: fromNanos(100)},
	}
	got, err := db.States()
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("States after migration = %+v, %v;\nwant %+v", got, err, want)
	}
	// The migrated schema takes every field.
	full := storetest.FullState("c.test")
	if err := db.Save(full); err != nil {
		t.Fatal(err)
	}
	if got, ok, err := db.Load(full.Host); err != nil || !ok || got != full {
		t.Errorf("Load after migration = %+v, %v, %v; want %+v", got, ok, err, full)
	}
}
