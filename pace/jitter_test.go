package pace

import (
	"math"
	"testing"
	"time"
)

func TestJitter(t *testing.T) {
	tests := []struct {
		name   string
		jitter float64
		delay  time.Duration // stored delay
		floor  time.Duration // a host floor; 0 for none
		u      float64
		want   time.Duration // Ready - Begin
	}{
		{"u=0 waits exactly the delay", 0.1, 2 * time.Second, 0, 0, 2 * time.Second},
		{"u=0.5 adds half the jitter", 0.1, 2 * time.Second, 0, 0.5, 2100 * time.Millisecond},
		{"u near 1 adds the whole jitter", 0.1, 2 * time.Second, 0, 0.9999999, 2200 * time.Millisecond},
		{"a draw above 1 counts as 1", 0.1, 2 * time.Second, 0, 5, 2200 * time.Millisecond},
		{"a negative draw counts as 0", 0.1, 2 * time.Second, 0, -3, 2 * time.Second},
		{"NaN counts as 0", 0.1, 2 * time.Second, 0, math.NaN(), 2 * time.Second},
		{"no jitter configured", 0, 2 * time.Second, 0, 0.9, 2 * time.Second},
		{"never below the config floor", 0.1, 300 * time.Millisecond, 0, 0, 500 * time.Millisecond},
		{"never below a host floor", 0.1, time.Second, 4 * time.Second, 0, 4 * time.Second},
		{"jitter on top of the floor", 0.1, time.Second, 4 * time.Second, 0.5, 4200 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := noAging()
			cfg.Jitter = tt.jitter
			draws := 0
			p := New(cfg, func() float64 { draws++; return tt.u })
			p.Restore(State{Host: "a.example", Delay: tt.delay, SetAt: t0}, t0)
			if tt.floor > 0 {
				p.SetFloor("a.example", tt.floor, FloorHost)
			}
			p.Begin("a.example", t0)
			first := p.Ready("a.example", t0)
			if got := first.Sub(t0); !near(got, tt.want) {
				t.Errorf("Ready = Begin + %v, want + %v", got, tt.want)
			}
			if again := p.Ready("a.example", t0.Add(time.Second)); !again.Equal(first) {
				t.Errorf("Ready moved between calls: %v then %v", first, again)
			}
			if draws != 1 {
				t.Errorf("rand drawn %d times for one gap, want 1", draws)
			}
		})
	}
}
