package pace

import (
	"testing"
	"time"
)

func TestBindingFloor(t *testing.T) {
	tests := []struct {
		name    string
		st      State
		def     time.Duration
		want    time.Duration
		wantSrc FloorSource
	}{
		{"nothing recorded, no flag", State{}, 0, DefaultConfig().Floor, FloorDefault},
		{"nothing recorded, --floor 1s", State{}, time.Second, time.Second, FloorDefault},
		{"recorded default, no flag", State{Floor: 2 * time.Second, FloorSource: FloorDefault}, 0, 2 * time.Second, FloorDefault},
		{"recorded default replaced by --floor", State{Floor: 2 * time.Second, FloorSource: FloorDefault}, time.Second, time.Second, FloorDefault},
		{"a Crawl-delay binds over a lower --floor", State{Floor: 5 * time.Second, FloorSource: FloorCrawlDelay}, time.Second, 5 * time.Second, FloorCrawlDelay},
		{"a higher --floor binds over a Crawl-delay", State{Floor: 5 * time.Second, FloorSource: FloorCrawlDelay}, 9 * time.Second, 9 * time.Second, FloorDefault},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, src := BindingFloor(tt.st, tt.def)
			if got != tt.want || src != tt.wantSrc {
				t.Errorf("BindingFloor = %v (%s), want %v (%s)", got, src, tt.want, tt.wantSrc)
			}
		})
	}
}

// Expect says what a run does with a stored state: the same Restore.
func TestExpect(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Floor = 0
	tests := []struct {
		name        string
		st          State
		at          time.Duration // after t0
		want        time.Duration
		wantFrom    Basis
		wantDecayed bool
		wantHeld    bool
	}{
		{"aging backoff", State{Delay: 12 * time.Second, SetAt: t0}, 10 * time.Minute, 6 * time.Second, BasisBackoff, false, false},
		{"the state's half-life, not the default", State{Delay: 12 * time.Second, SetAt: t0, HalfLife: 5 * time.Minute}, 10 * time.Minute, 3 * time.Second, BasisBackoff, false, false},
		{"decayed below the learned limit", State{Delay: 12 * time.Second, SetAt: t0, SafeGap: time.Second, LearnedAt: t0},
			24 * time.Hour, time.Second, BasisLearned, true, false},
		{"decayed, nothing learned: cold start", State{Delay: 12 * time.Second, SetAt: t0}, 24 * time.Hour, cfg.Start, BasisStart, true, false},
		{"at the floor lately", State{Delay: 500 * time.Millisecond, SetAt: t0}, time.Minute, 500 * time.Millisecond, BasisFloor, false, false},
		{"nothing stored", State{}, 0, cfg.Start, BasisStart, false, false},
		{"held", State{Delay: 2 * time.Second, SetAt: t0, HoldUntil: t0.Add(time.Hour), HoldReason: HoldQuota}, 0, 2 * time.Second, BasisBackoff, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.st.Host = "a.example"
			o := Expect(tt.st, cfg, t0.Add(tt.at))
			if !near(o.Delay, tt.want) || o.From != tt.wantFrom || o.Decayed != tt.wantDecayed || o.Held != tt.wantHeld {
				t.Errorf("Expect = %v from %s, decayed %v, held %v; want %v from %s, %v, %v",
					o.Delay, o.From, o.Decayed, o.Held, tt.want, tt.wantFrom, tt.wantDecayed, tt.wantHeld)
			}
		})
	}
}
