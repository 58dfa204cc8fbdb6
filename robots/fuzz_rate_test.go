package robots

import (
	"fmt"
	"testing"
)

// FuzzParseRequestRate: a Request-rate value either fails or gives a
// positive count over a positive time, whose interval is within it; the
// canonical form reads back the same. Its seed corpus lives in
// testdata/fuzz/FuzzParseRequestRate.
func FuzzParseRequestRate(f *testing.F) {
	f.Add("1/5")
	f.Fuzz(func(t *testing.T, v string) {
		r, err := ParseRequestRate(v)
		if err != nil {
			if r != (Rate{}) {
				t.Errorf("ParseRequestRate(%q) = %+v with error %v", v, r, err)
			}
			return
		}
		if r.Requests <= 0 || r.Per <= 0 {
			t.Fatalf("ParseRequestRate(%q) = %+v, want a positive count and time", v, r)
		}
		if iv := r.Interval(); iv < 0 || iv > r.Per {
			t.Errorf("ParseRequestRate(%q).Interval() = %s, want within 0..%s", v, iv, r.Per)
		}
		if r.Per%1e9 == 0 {
			canon := fmt.Sprintf("%d/%ds", r.Requests, r.Per/1e9)
			if again, err := ParseRequestRate(canon); err != nil || again != r {
				t.Errorf("ParseRequestRate(%q) = %+v, %v; want %+v", canon, again, err, r)
			}
		}
	})
}
