package crawltest

import (
	"net/http"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/clock"
)

// One origin on several ports is one server: a request on any port spends
// the one bucket.
func TestServePortsShareOneLimit(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	o, srvs := ServePorts(Config{Rate: 1, Burst: 1, Clock: clk}, 3)
	for _, s := range srvs {
		defer s.Close()
	}
	get := func(i int, path string) int {
		t.Helper()
		resp, err := http.Get(srvs[i].URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	steps := []struct {
		after time.Duration
		port  int
		want  int
	}{
		{0, 0, 200},
		{0, 1, 429}, // the token port 0 took was the server's
		{0, 2, 429},
		{time.Second, 2, 200},
		{0, 0, 429},
	}
	for i, s := range steps {
		clk.Advance(s.after)
		if got := get(s.port, "/p"); got != s.want {
			t.Errorf("step %d: port %d answered %d, want %d", i, s.port, got, s.want)
		}
	}
	if st := o.Stats(); st.Requests != len(steps) || st.OverLimit != 3 {
		t.Errorf("stats: %d requests, %d over the limit; want %d and 3", st.Requests, st.OverLimit, len(steps))
	}
}
