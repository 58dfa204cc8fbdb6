package pace_test

import (
	"fmt"
	"time"

	"github.com/polite-crawler/polite/pace"
)

func ExamplePacer() {
	// A fixed draw makes the jitter predictable; pass nil in real use.
	p := pace.New(pace.DefaultConfig(), func() float64 { return 0 })
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	host := "example.com"

	fmt.Println("new host ready at once:", p.Ready(host, now).Equal(now))
	p.Begin(host, now)
	p.Observe(host, now, pace.Outcome{Status: 200, TTFB: 80 * time.Millisecond})
	fmt.Println("after a success:", p.Delay(host, now))

	now = p.Ready(host, now)
	p.Begin(host, now)
	// 2.1s aged for 2.1s (half-life 10m), times 3:
	v := p.Observe(host, now, pace.Outcome{Status: 429, RetryAfter: 30 * time.Second})
	fmt.Println("after a 429:", p.Delay(host, now).Round(time.Millisecond), "raised:", v.Raised, "hold:", v.Hold)
	fmt.Println("next request in:", p.Ready(host, now).Sub(now))

	st := p.State(host)
	fmt.Println("remembered congestion at:", st.CongestionDelay, st.LastSignal)
	// Output:
	// new host ready at once: true
	// after a success: 2.1s
	// after a 429: 6.285s raised: true hold: 30s
	// next request in: 30s
	// remembered congestion at: 2.1s 429
}

func ExampleAged() {
	st := pace.State{Delay: 12 * time.Second, SetAt: time.Date(2025, 6, 1, 10, 0, 0, 0, time.UTC)}
	floor, halfLife := 500*time.Millisecond, 10*time.Minute
	for _, later := range []time.Duration{0, 10 * time.Minute, 20 * time.Minute, 2 * time.Hour} {
		fmt.Printf("%v later: %v\n", later, pace.Aged(st, floor, halfLife, st.SetAt.Add(later)))
	}
	// Output:
	// 0s later: 12s
	// 10m0s later: 6s
	// 20m0s later: 3s
	// 2h0m0s later: 500ms
}

func ExampleParseRetryAfter() {
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	for _, v := range []string{"120", "Sun, 01 Jun 2025 12:05:00 GMT", "Sat, 31 May 2025 12:00:00 GMT", "soon"} {
		wait, ok := pace.ParseRetryAfter(v, now)
		fmt.Println(wait, ok)
	}
	// Output:
	// 2m0s true
	// 5m0s true
	// 0s true
	// 0s false
}
