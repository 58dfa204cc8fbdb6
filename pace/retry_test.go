package pace

import (
	"testing"
	"time"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		v      string
		want   time.Duration
		wantOK bool
	}{
		{"seconds", "7", 7 * time.Second, true},
		{"seconds with spaces", " 120 ", 120 * time.Second, true},
		{"zero", "0", 0, true},
		{"leading zeros", "007", 7 * time.Second, true},
		{"negative", "-5", 0, false},
		{"plus sign", "+5", 0, false},
		{"fraction", "1.5", 0, false},
		{"unit", "5s", 0, false},
		{"garbage", "soon", 0, false},
		{"empty", "", 0, false},
		{"huge", "99999999999999999999999", maxRetryAfter, true},
		{"beyond ten years", "400000000", maxRetryAfter, true},
		{"IMF-fixdate", "Sat, 01 Mar 2025 12:00:30 GMT", 30 * time.Second, true},
		{"RFC 850", "Saturday, 01-Mar-25 12:01:00 GMT", time.Minute, true},
		{"ANSI C asctime", "Sat Mar  1 12:00:05 2025", 5 * time.Second, true},
		{"date in the past", "Fri, 28 Feb 2025 12:00:00 GMT", 0, true},
		{"date far ahead", "Fri, 31 Dec 9999 23:59:59 GMT", maxRetryAfter, true},
		{"bad date", "Sat, 32 Mar 2025 12:00:00 GMT", 0, false},
		{"date in another form", "2025-03-01T12:00:30Z", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ParseRetryAfter(tt.v, now)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("ParseRetryAfter(%q) = %v, %v; want %v, %v", tt.v, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestBackoff(t *testing.T) {
	const s = time.Second
	tests := []struct {
		name            string
		prev, base, cap time.Duration
		u               float64
		want            time.Duration
	}{
		{"first, low draw", 0, s, time.Minute, 0, s},
		{"first, high draw", 0, s, time.Minute, 0.5, 2 * s}, // uniform(1s, 3s)
		{"prev below base counts as base", s / 2, s, time.Minute, 1, 3 * s},
		{"grows to three times prev", 10 * s, s, time.Minute, 1, 30 * s},
		{"middle of the range", 10 * s, s, time.Minute, 0.5, 15*s + s/2},
		{"capped", 100 * s, s, time.Minute, 0.5, time.Minute},
		{"cap below base", 0, 10 * s, 5 * s, 0, 5 * s},
		{"huge prev does not overflow", time.Duration(1 << 62), s, time.Hour, 0.9, time.Hour},
		{"bad draw above 1 clamps", 10 * s, s, time.Minute, 7, 30 * s},
		{"bad negative draw clamps", 10 * s, s, time.Minute, -1, s},
		{"negative base is zero", 0, -s, time.Minute, 0.5, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Backoff(tt.prev, tt.base, tt.cap, func() float64 { return tt.u })
			if got != tt.want {
				t.Errorf("Backoff(%v, %v, %v, u=%g) = %v, want %v", tt.prev, tt.base, tt.cap, tt.u, got, tt.want)
			}
		})
	}
}

// TestBackoffBounds sweeps the draw: every wait lies in
// [base, min(cap, 3*max(prev, base))].
func TestBackoffBounds(t *testing.T) {
	const base, cap = time.Second, 30 * time.Second
	for _, prev := range []time.Duration{0, base / 2, base, 4 * base, 9 * base, 20 * base} {
		hi := min(cap, 3*max(prev, base))
		for i := range 1000 {
			u := float64(i) / 1000
			got := Backoff(prev, base, cap, func() float64 { return u })
			if got < base || got > hi {
				t.Fatalf("Backoff(prev=%v, u=%g) = %v, want within [%v, %v]", prev, u, got, base, hi)
			}
		}
	}
	if got := Backoff(0, base, cap, nil); got < base || got > 3*base {
		t.Errorf("Backoff with nil rand = %v, want within [%v, %v]", got, base, 3*base)
	}
}
