package robots

import (
	"errors"
	"testing"
	"time"
)

func TestParseRequestRate(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    Rate
		wantErr bool
	}{
		{"seconds without unit", "1/5", Rate{1, 5 * time.Second}, false},
		{"seconds with unit", "1/10s", Rate{1, 10 * time.Second}, false},
		{"minutes", "10/1m", Rate{10, time.Minute}, false},
		{"hours", "1/2h", Rate{1, 2 * time.Hour}, false},
		{"upper-case unit", "3/1M", Rate{3, time.Minute}, false},
		{"surrounding space", "  2/4 ", Rate{2, 4 * time.Second}, false},
		{"empty", "", Rate{}, true},
		{"no slash", "5", Rate{}, true},
		{"words", "fast", Rate{}, true},
		{"zero requests", "0/5", Rate{}, true},
		{"negative requests", "-1/5", Rate{}, true},
		{"zero time", "1/0", Rate{}, true},
		{"negative time", "1/-5", Rate{}, true},
		{"missing time", "1/", Rate{}, true},
		{"unit only", "1/m", Rate{}, true},
		{"missing requests", "/5", Rate{}, true},
		{"unknown unit", "1/5d", Rate{}, true},
		{"decimal requests", "0.5/1", Rate{}, true},
		{"space inside", "1 / 5", Rate{}, true},
		{"time window after", "1/5 0900-1700", Rate{}, true},
		{"time overflows", "1/99999999999999h", Rate{}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseRequestRate(tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("ParseRequestRate(%q) error = %v, want error %v", tc.in, err, tc.wantErr)
			}
			if err != nil && !errors.Is(err, errRate) {
				t.Errorf("error %v does not wrap errRate", err)
			}
			if got != tc.want {
				t.Errorf("ParseRequestRate(%q) = %+v, want %+v", tc.in, got, tc.want)
			}
		})
	}
}

func TestProductToken(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"polite default", "polite/0.1 (+https://x)", "polite"},
		{"bare token", "polite", "polite"},
		{"case kept", "PoliteBot/2", "PoliteBot"},
		{"browser-style takes the first product", "Mozilla/5.0 (compatible; FooBot/2.1)", "Mozilla"},
		{"hyphen and underscore", "my_bot-x/1.0", "my_bot-x"},
		{"cut at a digit", "bot2/1", "bot"},
		{"cut at a dot", "a.b", "a"},
		{"leading space skipped", "  polite/1", "polite"},
		{"cut at a non-ASCII letter", "roboté", "robot"},
		{"empty", "", ""},
		{"star is not a token", "*", ""},
		{"digits first", "123bot", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ProductToken(tc.in); got != tc.want {
				t.Errorf("ProductToken(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestTTL(t *testing.T) {
	const def = DefaultTTL
	tests := []struct {
		name, in string
		want     time.Duration
	}{
		{"no header", "", def},
		{"shorter max-age wins", "max-age=3600", time.Hour},
		{"longer max-age capped", "max-age=604800", def},
		{"equal max-age", "max-age=86400", def},
		{"max-age zero", "max-age=0", 0},
		{"among other directives", "public, max-age=600, must-revalidate", 10 * time.Minute},
		{"upper case", "MAX-AGE=60", time.Minute},
		{"space around equals", "max-age = 60", time.Minute},
		{"quoted", `max-age="60"`, time.Minute},
		{"shortest of several", "max-age=600, max-age=60", time.Minute},
		{"no-store", "no-store", 0},
		{"no-cache", "private, no-cache", 0},
		{"no-cache beats max-age", "max-age=600, no-cache", 0},
		{"garbage max-age", "max-age=soon", def},
		{"negative max-age", "max-age=-5", def},
		{"huge max-age", "max-age=99999999999999999999", def},
		{"garbage header", ";;;===", def},
		{"s-maxage ignored", "s-maxage=60", def},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := TTL(tc.in, def); got != tc.want {
				t.Errorf("TTL(%q, %v) = %v, want %v", tc.in, def, got, tc.want)
			}
		})
	}
	t.Run("sub-second default", func(t *testing.T) {
		if got, want := TTL("max-age=1", 1500*time.Millisecond), time.Second; got != want {
			t.Errorf("TTL(max-age=1, 1.5s) = %v, want %v", got, want)
		}
	})
}
