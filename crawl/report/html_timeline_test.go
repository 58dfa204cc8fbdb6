package report

import (
	"fmt"
	"strings"
	"testing"
)

// Each chart's key lists what that chart draws, and nothing else.
func TestTimelineLegendShowsOnlyWhatIsDrawn(t *testing.T) {
	t.Parallel()
	hosts := map[string]*HostStats{}
	for _, h := range sampleReport().Hosts {
		hosts[h.Host] = h
	}
	all := []string{"delay between requests", "floor", "Retry-After wait", "breaker pause", "robots.txt retry wait",
		"429 / 503", "response 2xx/3xx", "4xx", "429 / 5xx", "network error"}
	tests := []struct {
		host string
		want []string
	}{
		{"api.example.org", []string{"delay between requests", "floor", "Retry-After wait", "429 / 503", "response 2xx/3xx", "429 / 5xx"}},
		{"docs.example.org", []string{"delay between requests", "floor", "response 2xx/3xx"}},
		{"slow.example.net", []string{"delay between requests", "floor", "breaker pause", "response 2xx/3xx", "network error"}},
		{"never.example.com:8443", []string{"robots.txt retry wait"}},
	}
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			svg := string(timelineSVG(hosts[tt.host], 95))
			for _, label := range all {
				want := false
				for _, w := range tt.want {
					want = want || w == label
				}
				if got := strings.Contains(svg, `<text x="22" y="4">`+label+`</text>`); got != want {
					t.Errorf("legend has %q: %v, want %v", label, got, want)
				}
			}
		})
	}
}

// A breaker pause and a robots.txt retry wait are drawn with their span.
func TestTimelineDrawsHolds(t *testing.T) {
	t.Parallel()
	hosts := map[string]*HostStats{}
	for _, h := range sampleReport().Hosts {
		hosts[h.Host] = h
	}
	tests := []struct{ host, want string }{
		{"slow.example.net", "<title>breaker pause 30.0s at 40.0s</title>"},
		{"never.example.com:8443", "<title>robots.txt retry wait 9.50s at 5.40s</title>"},
	}
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			if svg := string(timelineSVG(hosts[tt.host], 95)); !strings.Contains(svg, tt.want) {
				t.Errorf("timeline lacks %q", tt.want)
			}
		})
	}
}

// An answer's mark reads as the format it replaced wrote it, for every
// kind of answer and for times on each side of HumanSeconds' steps.
func TestAppendDotWritesWhatFmtWrote(t *testing.T) {
	for _, status := range []int{0, 200, 301, 404, 429, 503} {
		for _, at := range []float64{0, 0.004, 0.005, 9.994, 9.996, 10, 59.94, 59.96, 60, 3599.4, 3600, 90000, -1} {
			for _, lat := range []float64{0, 0.5, 1.5, 2.5, 812.49, 1e6} {
				p := Point{AtS: at, LatencyMS: lat, Status: status}
				cx, cy := 100+at/7, 60+lat/9
				want := fmt.Sprintf(`<circle cx="%.1f" cy="%.1f" r="%g" fill="%s"><title>%d, %.0f ms at %s</title></circle>`,
					cx, cy, dotR, statusClass(status), status, lat, HumanSeconds(at))
				if status == 0 {
					want = fmt.Sprintf(`<path d="M%.1f %.1fl6 6m0 -6l-6 6" stroke="#1f2328" stroke-width="1.5"><title>error at %s</title></path>`,
						cx-3, cy-3, HumanSeconds(at))
				}
				if got := string(appendDot(nil, cx, cy, statusClass(status), p)); got != want {
					t.Errorf("appendDot(%+v) =\n%s\nwant\n%s", p, got, want)
				}
			}
		}
	}
}
