package pace

import (
	"fmt"
	"testing"
	"time"
)

// TestSharedSlowdown: when every host answers four times slower at once
// (our machine or link is busy), the hosts are not blamed; when one host
// alone does, it is.
func TestSharedSlowdown(t *testing.T) {
	tests := []struct {
		name      string
		slowHosts int // of 10, the ones that turn slow
		wantMost  int // hosts whose delay may rise above where it stood
		wantLeast int
	}{
		{"every host slows: our side", 10, 2, 0},
		{"one host slows: its side", 1, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := New(noAging(), fixedRand(0))
			hosts := make([]string, 10)
			for i := range hosts {
				hosts[i] = fmt.Sprintf("h%d.example", i)
				p.Restore(State{Host: hosts[i], Delay: 2 * time.Second, SetAt: t0}, t0)
			}
			now := t0
			round := func(slow bool) {
				for i, h := range hosts {
					ttfb := 100 * time.Millisecond
					if slow && i < tt.slowHosts {
						ttfb = 400 * time.Millisecond
					}
					now = now.Add(100 * time.Millisecond)
					p.Begin(h, now)
					p.Observe(h, now, Outcome{Status: 200, TTFB: ttfb})
				}
			}
			for range 10 {
				round(false)
			}
			before := map[string]time.Duration{}
			for _, h := range hosts {
				before[h] = p.Delay(h, now)
			}
			for range 10 {
				round(true)
			}
			rose := 0
			for _, h := range hosts {
				if p.Delay(h, now) > before[h] {
					rose++
				}
			}
			if rose < tt.wantLeast || rose > tt.wantMost {
				t.Errorf("%d hosts raised their delay, want %d..%d", rose, tt.wantLeast, tt.wantMost)
			}
		})
	}
}
