package cmd

import (
	"strings"
	"testing"
	"time"
)

func TestParseSize(t *testing.T) {
	tests := []struct {
		in      string
		want    int64
		wantErr string // a part of the error; "" for none
	}{
		{"0", 0, ""},
		{"1048576", 1 << 20, ""},
		{"10MB", 10_000_000, ""},
		{"10mb", 10_000_000, ""},
		{"512KiB", 512 << 10, ""},
		{"512kib", 512 << 10, ""},
		{"2GiB", 2 << 30, ""},
		{"1.5GiB", 3 << 29, ""},
		{"1.5 KB", 1500, ""},
		{"10M", 10 << 20, ""},
		{"4k", 4096, ""},
		{"1TB", 1e12, ""},
		{"7B", 7, ""},
		{" 3MiB ", 3 << 20, ""},
		{"0.0001KB", 0, ""}, // a tenth of a byte is dropped
		{"9223372036854775807", 1<<63 - 1, ""},
		{"9223372036854775808", 0, "too large"},
		{"8388608TiB", 0, "too large"},
		{"99999999999999999999999GB", 0, "too large"},
		{"-1", 0, "negative"},
		{"-10MB", 0, "negative"},
		{"", 0, "not a size"},
		{"MB", 0, "not a size"},
		{"ten", 0, "not a size"},
		{"1.2.3MB", 0, "not a size"},
		{".", 0, "not a size"},
		{"10XB", 0, `unknown unit "XB"`},
		{"10 MBs", 0, "unknown unit"},
		{"0x10", 0, "unknown unit"},
		{"1e6", 0, "unknown unit"},
		{"NaN", 0, "not a size"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseSize(tt.in)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("ParseSize(%q) error %v, want %d", tt.in, err, tt.want)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("ParseSize(%q) = %d, %v; want an error containing %q", tt.in, got, err, tt.wantErr)
			case got != tt.want:
				t.Errorf("ParseSize(%q) = %d, want %d", tt.in, got, tt.want)
			}
		})
	}
}

func TestHumanSize(t *testing.T) {
	for _, tt := range []struct {
		n    int64
		want string
	}{
		{0, "0"}, {1, "1B"}, {1500, "1500B"}, {2000, "2KB"}, {1024, "1KiB"}, {10 << 20, "10MiB"},
		{10_000_000, "10MB"}, {16 << 30, "16GiB"}, {1 << 50, "1024TiB"}, {1<<63 - 1, "9223372036854775807B"},
	} {
		if got := HumanSize(tt.n); got != tt.want {
			t.Errorf("HumanSize(%d) = %q, want %q", tt.n, got, tt.want)
		}
		// What HumanSize prints, ParseSize reads back.
		if back, err := ParseSize(HumanSize(tt.n)); err != nil || back != tt.n {
			t.Errorf("ParseSize(HumanSize(%d)) = %d, %v", tt.n, back, err)
		}
	}
}

func TestSizeAndDurationFlagRanges(t *testing.T) {
	var size int64 = 5
	var d time.Duration = time.Second
	tests := []struct {
		name    string
		set     func(string) error
		in      string
		wantErr string
	}{
		{"size in range", newSizeValue(&size, 1, 16<<30).Set, "16GiB", ""},
		{"size at the top", newSizeValue(&size, 1, 16<<30).Set, "17179869184", ""},
		{"size over the top", newSizeValue(&size, 1, 16<<30).Set, "9223372036854775807", "must be between 1B and 16GiB"},
		{"size under the bottom", newSizeValue(&size, 1, 16<<30).Set, "0", "must be between 1B and 16GiB"},
		{"size garbage", newSizeValue(&size, 1, 16<<30).Set, "lots", "not a size"},
		{"duration in range", (&durationValue{p: &d, max: time.Hour}).Set, "59m", ""},
		{"duration over", (&durationValue{p: &d, max: time.Hour}).Set, "2562047h", "must be between 0s and 1h"},
		{"duration negative", (&durationValue{p: &d, max: time.Hour}).Set, "-1s", "must be between 0s and 1h"},
		{"duration overflowing", (&durationValue{p: &d, max: time.Hour}).Set, "9999999999h", "not a duration"},
		{"positive duration zero", (&durationValue{p: &d, max: time.Hour, positive: true}).Set, "0", "must be above 0 and at most 1h"},
		{"duration garbage", (&durationValue{p: &d, max: time.Hour}).Set, "soon", "not a duration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.set(tt.in)
			if tt.wantErr == "" && err != nil {
				t.Fatalf("Set(%q): %v", tt.in, err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("Set(%q) = %v, want an error containing %q", tt.in, err, tt.wantErr)
			}
		})
	}
	if size != 16<<30 || d != 59*time.Minute {
		t.Errorf("after the refused values: size %d, duration %s; want the last accepted ones (16GiB, 59m)", size, d)
	}
}
