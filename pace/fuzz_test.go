package pace

import (
	"testing"
	"time"
)

// FuzzParseRetryAfter: whatever a server sends, the wait is never negative,
// never beyond the cap, and nothing panics. Its seed corpus lives in
// testdata/fuzz/FuzzParseRetryAfter.
func FuzzParseRetryAfter(f *testing.F) {
	f.Add("120", int64(1700000000))
	f.Fuzz(func(t *testing.T, v string, nowUnix int64) {
		now := time.Unix(nowUnix, 0)
		wait, ok := ParseRetryAfter(v, now)
		if wait < 0 || wait > maxRetryAfter {
			t.Errorf("ParseRetryAfter(%q, %s) = %s, want within 0..%s", v, now, wait, maxRetryAfter)
		}
		if !ok && wait != 0 {
			t.Errorf("ParseRetryAfter(%q) = %s with ok false", v, wait)
		}
		if again, ok2 := ParseRetryAfter(v, now); again != wait || ok2 != ok {
			t.Errorf("ParseRetryAfter(%q) not deterministic: %s %v then %s %v", v, wait, ok, again, ok2)
		}
	})
}
