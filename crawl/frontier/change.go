package frontier

import "time"

// Change is what a fetch of a URL showed against the fetch before it:
// manifest.jsonl's, report.json's and polite status's change. The zero
// Change is a fetch that showed nothing of the kind (a redirect, a
// failure).
type Change string

// The changes a run reports.
const (
	ChangeNew       Change = "new"       // first fetched in this run
	ChangeChanged   Change = "changed"   // its payload differs from the last one kept
	ChangeUnchanged Change = "unchanged" // 304, the same payload, or a sitemap lastmod not newer
	ChangeGone      Change = "gone"      // 404 or 410 where a page was
	ChangeNotDue    Change = "not-due"   // not asked for: its revisit interval has not passed
)

// Known reports whether c is one of the changes above.
func (c Change) Known() bool {
	switch c {
	case ChangeNew, ChangeChanged, ChangeUnchanged, ChangeGone, ChangeNotDue:
		return true
	}
	return false
}

// String is the change as the manifest writes it.
func (c Change) String() string { return string(c) }

// MarshalText writes the change: exactly its text.
func (c Change) MarshalText() ([]byte, error) { return []byte(c), nil }

// UnmarshalText reads a change back, whatever the text.
func (c *Change) UnmarshalText(b []byte) error {
	*c = Change(b)
	return nil
}

// Revisit is a URL's history as its revisit schedule learned it (see
// crawl/revisit): how often to ask for it again, when next, and what its
// fetches showed. The zero Revisit is a URL never fetched: due.
type Revisit struct {
	Every     time.Duration // the learned interval; 0 until a second fetch
	DueAt     time.Time     // not asked for again before (--revisit adaptive); zero: due
	Fetches   int           // fetches that showed new, changed, unchanged or gone
	Changes   int           // of which changed or gone
	ChangedAt time.Time     // the last fetch that showed a change (or new)
	Change    Change        // what its last fetch showed
}

// HostRevisits is how a host's URLs stand in their revisit schedules,
// over every job (polite status --host): what the next pass asks of it
// now and within the next hours, and the spread of what its fetches
// taught.
type HostRevisits struct {
	URLs    int // the host's URLs, every job's
	Waiting int // queued, deferred or in flight: asked for at the next run, whatever their schedule
	DueNow  int // fetched, and due again: their interval has passed, or a sitemap lastmod is after their fetch
	DueSoon int // fetched, and due again after now but within the window asked for
	Learned int // URLs with a learned interval (fetched twice or more)
	// The least, median (the lower of two) and greatest learned interval.
	MinEvery, MedianEvery, MaxEvery time.Duration
}
