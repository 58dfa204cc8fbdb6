package fetch

import (
	"net/http"
	"testing"
	"time"
)

func FuzzParseRateLimit(f *testing.F) {
	f.Add(`"default";r=5;t=30`, `"default";q=10;w=60`, "10", "5", "30", "NaN", "-1", "1700000000", int64(1700000000))
	f.Fuzz(func(t *testing.T, rl, policy, limit, remaining, reset, xlimit, xremaining, xreset string, nowUnix int64) {
		h := http.Header{}
		for k, v := range map[string]string{
			"RateLimit": rl, "RateLimit-Policy": policy,
			"RateLimit-Limit": limit, "RateLimit-Remaining": remaining, "RateLimit-Reset": reset,
			"X-RateLimit-Limit": xlimit, "X-RateLimit-Remaining": xremaining, "X-RateLimit-Reset": xreset,
		} {
			if v != "" {
				h.Set(k, v)
			}
		}
		q, ok := ParseRateLimit(h, time.Unix(nowUnix, 0))
		if ok != (q != nil) {
			t.Fatalf("ok %v with quota %+v", ok, q)
		}
		if !ok {
			return
		}
		if q.Remaining < 0 || q.Limit < 0 || q.Reset <= 0 || q.Reset > maxQuotaReset+time.Second {
			t.Errorf("quota %+v out of range (reset at most %s)", *q, maxQuotaReset)
		}
		if q.Limit > 0 && q.Limit < q.Remaining {
			t.Errorf("quota %+v: limit below remaining", *q)
		}
	})
}
