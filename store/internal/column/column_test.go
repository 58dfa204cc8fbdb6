package column

import (
	"testing"
	"time"
)

// A time outside what int64 nanoseconds hold (a lastmod of 9999-12-31, a
// Last-Modified of year 0001 plus a second) is stored as the nearest
// instant they hold, never wrapped into another century; the zero time
// is 0 and back.
func TestNanosClampsInsteadOfWrapping(t *testing.T) {
	cases := []struct {
		in   time.Time
		want time.Time
	}{
		{time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC), maxTime},
		{time.Date(2262, 12, 31, 0, 0, 0, 0, time.UTC), maxTime},
		{time.Date(1, 1, 1, 0, 0, 1, 0, time.UTC), minTime},
		{time.Date(1677, 1, 1, 0, 0, 0, 0, time.UTC), minTime},
		{time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)},
	}
	for _, tc := range cases {
		if got := Time(Nanos(tc.in)); !got.Equal(tc.want) {
			t.Errorf("%v stored and read back as %v, want %v", tc.in, got, tc.want)
		}
	}
	if Nanos(time.Time{}) != 0 || !Time(0).IsZero() {
		t.Error("the zero time is not stored as 0 and read back")
	}
}
