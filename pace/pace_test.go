package pace

import (
	"strings"
	"testing"
	"time"
)

func TestAged(t *testing.T) {
	const floor, hl = 500 * time.Millisecond, 10 * time.Minute
	tests := []struct {
		name  string
		d     time.Duration
		ago   time.Duration
		floor time.Duration
		hl    time.Duration
		want  time.Duration
	}{
		{"just set", 12 * time.Second, 0, floor, hl, 12 * time.Second},
		{"one half-life", 12 * time.Second, 10 * time.Minute, floor, hl, 6 * time.Second},
		{"two half-lives", 12 * time.Second, 20 * time.Minute, floor, hl, 3 * time.Second},
		{"half a half-life", 4 * time.Second, 5 * time.Minute, floor, hl, sec(4 / 1.4142135623730951)},
		{"119.5s two hours ago is the floor", sec(119.5), 2 * time.Hour, floor, hl, floor},
		{"below the floor", 200 * time.Millisecond, 0, floor, hl, floor},
		{"zero delay", 0, time.Hour, floor, hl, floor},
		{"set in the future does not decay", 12 * time.Second, -time.Hour, floor, hl, 12 * time.Second},
		{"no half-life, no decay", 12 * time.Second, time.Hour, floor, 0, 12 * time.Second},
		{"a century ago", time.Minute, 100 * 365 * 24 * time.Hour, floor, hl, floor},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := State{Delay: tt.d, SetAt: t0.Add(-tt.ago)}
			if got := Aged(st, tt.floor, tt.hl, t0); !near(got, tt.want) {
				t.Errorf("Aged(%v set %v ago) = %v, want %v", tt.d, tt.ago, got, tt.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Config)
		want   string // a substring of the error; "" for none
	}{
		{"defaults", func(*Config) {}, ""},
		{"plain", func(c *Config) { c.Plain = true }, ""},
		{"negative floor", func(c *Config) { c.Floor = -1 }, "--floor"},
		{"negative start", func(c *Config) { c.Start = -1 }, "--start"},
		{"negative decrease", func(c *Config) { c.Decrease = -1 }, "--decrease"},
		{"multiplier 1", func(c *Config) { c.Multiplier = 1 }, "--multiplier"},
		{"zero ceiling", func(c *Config) { c.Ceiling = 0 }, "--ceiling"},
		{"floor above ceiling", func(c *Config) { c.Floor = 3 * time.Minute }, "--floor"},
		{"zero half-life", func(c *Config) { c.HalfLife = 0 }, "--half-life"},
		{"negative max retry-after", func(c *Config) { c.MaxRetryAfter = -1 }, "--max-retry-after"},
		{"jitter above 1", func(c *Config) { c.Jitter = 1.5 }, "jitter"},
		{"zero knees", func(c *Config) { c.LowKnee, c.HighKnee = 0, 0 }, "knees"},
		{"high knee below low", func(c *Config) { c.HighKnee = 1.1 }, "knees"},
		{"negative breaker", func(c *Config) { c.BreakerTrips = -1 }, "breaker"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			tt.change(&cfg)
			err := cfg.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("Validate() = %v, want an error naming %q", err, tt.want)
			}
		})
	}
}

func TestScale(t *testing.T) {
	tests := []struct {
		name string
		d    time.Duration
		f    float64
		want time.Duration
	}{
		{"rounds instead of truncating", 3 * time.Second, 0.7, 2100 * time.Millisecond},
		{"saturates", time.Duration(1 << 62), 4, time.Duration(1<<63 - 1)},
		{"saturates negative", -time.Duration(1 << 62), 4, -1 << 63},
		{"zero", time.Second, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := scale(tt.d, tt.f); got != tt.want {
				t.Errorf("scale(%v, %g) = %v, want %v", tt.d, tt.f, got, tt.want)
			}
		})
	}
}
