package crawl

import (
	"testing"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// TestHoldLeftover: the state a held host's URLs are left in comes from the
// hold's leaveKind alone, whatever its reason says.
func TestHoldLeftover(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		h    hold
		want frontier.State
	}{
		{"no hold", hold{}, frontier.Queued},
		{"max-per-host resumes", hold{leave: leaveResume, reason: "max-per-host budget"}, frontier.Queued},
		{"run's end resumes", hold{leave: leaveResume, reason: "waiting: Retry-After beyond the end of the run"}, frontier.Queued},
		{"site deferral", hold{leave: leaveDeferred, reason: "deferred: Retry-After beyond --max-retry-after"}, frontier.Deferred},
		{"refused address", hold{leave: leaveRefused, reason: "private-address"}, frontier.Excluded},
		{"refused, worded otherwise", hold{leave: leaveRefused, reason: "refused: loopback"}, frontier.Excluded},
		{"deferred, worded like a refusal", hold{leave: leaveDeferred, reason: "private-address"}, frontier.Deferred},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.h.leave.leftover(); got != tt.want {
				t.Errorf("leftover = %s, want %s", got, tt.want)
			}
		})
	}
}
