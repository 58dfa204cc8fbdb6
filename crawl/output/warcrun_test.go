package output

import (
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/warc"
)

func TestRevisitOf(t *testing.T) {
	at := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	last := frontier.Entry{URL: "http://a.example/", WarcID: "<urn:uuid:1>", WarcDate: at, WarcDigest: "sha256:aa"}
	for _, tt := range []struct {
		name   string
		status int
		cut    bool
		digest string
		last   frontier.Entry
		want   warc.Profile
	}{
		{"first capture", 200, false, "sha256:aa", frontier.Entry{}, 0},
		{"304 without a capture keeps the 304", 304, false, "", frontier.Entry{}, 0},
		{"304 refers to the capture", 304, false, "", last, warc.NotModified},
		{"same payload", 200, false, "sha256:aa", last, warc.IdenticalPayload},
		{"changed payload", 200, false, "sha256:bb", last, 0},
		{"same first bytes of a cut body", 200, true, "sha256:aa", last, 0},
		{"a 404 is its own response", 404, false, "sha256:aa", last, 0},
		{"capture without a date", 304, false, "", frontier.Entry{WarcID: "<urn:uuid:1>"}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := revisitOf(tt.status, tt.cut, tt.digest, tt.last); got != tt.want {
				t.Errorf("revisitOf(%d, cut %v, %s) = %v, want %v", tt.status, tt.cut, tt.digest, got, tt.want)
			}
		})
	}
}

func TestWarcPrefix(t *testing.T) {
	start := time.Date(2026, 11, 30, 12, 3, 4, 0, time.FixedZone("x", 3600))
	long := ""
	for range 30 {
		long += "abcdef"
	}
	for _, tt := range []struct{ name, job, want string }{
		{"plain", "news", "news-7-20261130T110304Z"},
		{"a seed file: its base name", "/home/me/seeds.txt", "seeds-7-20261130T110304Z"},
		{"stdin", "stdin@2026-11-30T11:03:04Z", "stdin_2026-11-30T11_03_04Z-7-20261130T110304Z"},
		{"spaces and unicode", "prix du café", "prix_du_caf_-7-20261130T110304Z"},
		{"long", long, long[:100] + "-7-20261130T110304Z"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := warcPrefix(JobName(tt.job), 7, start); got != tt.want {
				t.Errorf("warcPrefix(%q) = %q, want %q", tt.job, got, tt.want)
			}
		})
	}
}
