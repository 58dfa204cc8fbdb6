package crawl

import (
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/pace"
)

// Store is what a crawl needs from its database, in crawl/frontier's
// records. store.DB implements it over SQLite. It is written so that a
// database shared by several crawling processes can implement it too:
// entries are handed out by lease (Take marks them in flight, Record
// settles them), and a run's changes arrive in batches.
type Store interface {
	// Acquire takes the database's crawl lock for h, or fails saying who holds it.
	Acquire(h frontier.Holder) error
	// Release gives the lock back if h holds it.
	Release(h frontier.Holder) error
	// Heartbeat refreshes h's lock and run runID; it fails with frontier.ErrLockLost once the lock is another's.
	Heartbeat(h frontier.Holder, runID int64) error

	// BeginRun records that a run of job starts at at.
	BeginRun(job string, at time.Time) (frontier.Run, error)
	// LastRun returns the newest run of job, if it has one.
	LastRun(job string) (frontier.Run, bool, error)
	// EndRun records how run id ended: its exit code, one-line summary and report.
	EndRun(id int64, at time.Time, exitCode int, summary string, report []byte) error

	// Prepare starts a pass of job: in-flight entries queued again, entries fetched before refreshBefore queued again.
	Prepare(job string, refreshBefore time.Time) error
	// Enqueue adds the entries job does not have yet (by URL) and returns how many were new.
	Enqueue(job string, es []frontier.Entry) (int, error)
	// QueuedHosts lists the hosts of job with queued entries, and when the earliest is due.
	QueuedHosts(job string) ([]frontier.HostQueue, error)
	// Take leases up to n entries of host that are due at now, marking them in flight.
	Take(job, host string, now time.Time, n int) ([]frontier.Entry, error)
	// BoundWait brings host's waiting entries due after latest forward to latest, returning how many moved.
	BoundWait(job, host string, latest time.Time) (int, error)
	// Record writes one batch in one transaction: new entries, changed (settled) entries, fetches.
	Record(job string, added, changed []frontier.Entry, fetches []frontier.Fetch) (int, error)
	// Counts returns how many entries of job are in each state.
	Counts(job string) (map[frontier.State]int, error)
	// SeedSource returns what job's frontier last took from its seed file, if anything.
	SeedSource(job string) (frontier.SeedSource, bool, error)
	// PutSeedSource records what job's frontier took from its seed file.
	PutSeedSource(s frontier.SeedSource) error

	// Load returns the stored pace state of host, if any.
	Load(host string) (pace.State, bool, error)
	// Save stores one host's pace state.
	Save(st pace.State) error
	// SaveAll stores many hosts' pace states at once.
	SaveAll(sts []pace.State) error

	// Robots returns the cached robots.txt copy of host, if any.
	Robots(host string) (frontier.RobotsCopy, bool, error)
	// PutRobots caches a robots.txt copy.
	PutRobots(c frontier.RobotsCopy) error
}

// SharedPace is what a Store shared by several crawling processes adds
// so that together they keep one pace per host, driven by one pacer at a
// time: the process that owns the host. Before each request to a host,
// dispatch claims the host's next slot (see frontier.PaceClaim); delay
// is this crawl's delay for the host. A process that stops sending to a
// host it owns (no more work for it, held) saves the host's pace state
// and releases it, so another may continue at once; Release of the Store
// releases every host left. A Store without it paces in this process
// alone.
type SharedPace interface {
	Claim(host string, now time.Time, delay time.Duration) (frontier.PaceClaim, error)
	ReleaseHost(host string) error
}

// SharedQueue is what a Store shared by several crawling processes adds
// so that a crawl with nothing eligible left waits for the others:
// Pending is how many entries of job other processes hold in flight, and
// when the first of their leases runs out. The crawl ends when it is 0.
type SharedQueue interface {
	Pending(job string, now time.Time) (n int, next time.Time, err error)
}
