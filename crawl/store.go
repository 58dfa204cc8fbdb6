package crawl

import (
	"time"

	"github.com/polite-crawler/polite/crawl/exclude"
	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/robotscache"
	"github.com/polite-crawler/polite/crawl/seeds"
	"github.com/polite-crawler/polite/pace"
)

// A crawl's database plays a few roles, each declared here, where the
// crawl uses it, in crawl/frontier's records; the parts of a run take
// only the roles they use. Store is the roles every store plays. A role
// a store may lack (Shared, seeds.LoadTx) is one it does not implement:
// whoever opens the store gives it in Config, or leaves it nil, and the
// run never asks the store what else it can do.
//
// The roles are written so that a database shared by several crawling
// processes can play them too: entries are handed out by lease (Take
// marks them in flight, Record settles them), and a run's changes arrive
// in batches.

// Lock keeps two crawls from working one database at cross purposes: a
// lock (SQLite) or a registered worker (PostgreSQL).
type Lock interface {
	// Acquire takes the database's crawl lock for h, or fails saying who holds it.
	Acquire(h frontier.Holder) error
	// Release gives the lock back if h holds it.
	Release(h frontier.Holder) error
	// Heartbeat refreshes h's lock and run runID; it fails with frontier.ErrLockLost once the lock is another's.
	Heartbeat(h frontier.Holder, runID int64) error
}

// Runs records a job's runs: when each began and how it ended.
type Runs interface {
	// BeginRun records that a run of job starts at at.
	BeginRun(job string, at time.Time) (frontier.Run, error)
	// LastRun returns the newest run of job, if it has one.
	LastRun(job string) (frontier.Run, bool, error)
	// EndRun records how run id ended: its exit code, one-line summary and report.
	EndRun(id int64, at time.Time, exitCode int, summary string, report []byte) error
}

// Frontier is a job's frontier: the entries, their queues by host, and
// what the seeds put in (seeds.Store).
type Frontier interface {
	seeds.Store
	// Prepare starts a pass of job: in-flight entries queued again, entries fetched before refreshBefore and due by dueBy queued again.
	Prepare(job string, refreshBefore, dueBy time.Time) error
	// QueuedHosts lists the hosts of job with queued entries, and when the earliest is due.
	QueuedHosts(job string) ([]frontier.HostQueue, error)
	// Take leases up to n entries of host that are due at now, marking them in flight.
	Take(job, host string, now time.Time, n int) ([]frontier.Entry, error)
	// TakeHosts takes as Take does for each of hosts, in one transaction where it can; a host with none is left out.
	TakeHosts(job string, hosts []string, now time.Time, n int) (map[string][]frontier.Entry, error)
	// BoundWait brings host's waiting entries due after latest forward to latest, returning how many moved.
	BoundWait(job, host string, latest time.Time) (int, error)
	// Record writes one batch in one transaction: new entries, changed (settled) entries, fetches.
	Record(job string, added, changed []frontier.Entry, fetches []frontier.Fetch) (int, error)
}

// PaceStates keeps each pace's state between runs: a host's, or a
// group's (--pace-by domain or ip) under its key, beside the hosts'.
type PaceStates interface {
	pace.StateStore
	// SaveAll stores many paces' states at once.
	SaveAll(sts []pace.State) error
	// SavePaceGroups records run's grouping (--pace-by) and the members of the groups it met.
	SavePaceGroups(run int64, by string, members []frontier.PaceMember) error
}

// Exclusions is the operator's exclusion list (polite exclude), which
// every job on the database honours: the rules (List, Add, Remove) and
// the cheap version a running crawl reads once per dispatch pass.
type Exclusions = exclude.Store

// Store is the roles every database a crawl runs on plays: the lock, the
// runs, the frontier, the pace states, the robots.txt cache and the
// exclusion list.
type Store interface {
	Lock
	Runs
	Frontier
	PaceStates
	robotscache.Cache
	Exclusions
}

// Trim is a store's memory held for speed (a page cache), let go of before the report.
type Trim interface{ ReleaseMemory() error }

// Shared is the role of a database several crawling processes share, so
// that together they keep one pace per host, driven by one pacer at a
// time (the process that owns the host), and so that a crawl with
// nothing eligible left waits for the others. A crawl without it (a nil
// Config.Shared) paces in this process alone and ends when its own
// frontier has nothing left.
//
// Before each request to a host, dispatch claims the host's next slot
// (see frontier.PaceClaim); delay is this crawl's delay for the host. A
// process that stops sending to a host it owns (no more work for it,
// held) saves the host's pace state and releases it, so another may
// continue at once; the Lock's Release releases every host left.
// Pending is how many entries of job other processes hold in flight, and
// when to look again; the crawl ends when it is 0.
// LeaseLost counts the entries recorded after their lease went to another.
type Shared interface {
	Claim(host string, now time.Time, delay time.Duration) (frontier.PaceClaim, error)
	ReleaseHost(host string) error
	Pending(job string, now time.Time) (n int, next time.Time, err error)
	LeaseLost() int
}
