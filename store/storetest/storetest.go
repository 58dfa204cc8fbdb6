// Package storetest is the conformance suite of polite's stores: what
// crawl relies on from a database, written once against the roles a
// database plays (crawl's Lock, Runs, Frontier, PaceStates and Exclusions,
// robotscache.Cache, and the reads and writes polite's commands make
// besides) and run on every store, SQLite and PostgreSQL alike.
// Where the stores legitimately differ (how a second crawl is locked out
// or let in, leases between workers), it tests only what they share.
package storetest

import (
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/clock"
	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/robotscache"
	"github.com/polite-crawler/polite/pace"
)

// Store is what the suite tests, as the roles a database plays: the ones
// a crawl uses, declared by crawl, and the ones polite's commands use
// besides (status, runs, report, forget).
type Store interface {
	crawl.Lock
	crawl.Runs
	crawl.Frontier
	crawl.PaceStates
	crawl.Exclusions
	robotscache.Cache
	FrontierReads
	HostReads
	RunReads
}

// FrontierReads is what the commands read of a job's frontier, and what
// the suite writes back to set one up.
type FrontierReads interface {
	Update([]frontier.Entry) error
	Get(job, url string) (frontier.Entry, error)
	Entries(job string, s frontier.State, limit int) ([]frontier.Entry, error)
}

// HostReads is what the commands read and drop of what was learned about
// each host.
type HostReads interface {
	States() ([]pace.State, error)
	Forget(hosts ...string) (int, error)
	RobotsCopies() ([]frontier.RobotsCopy, error)
	PaceGroups() ([]frontier.PaceMember, error)
	HostRevisits(host string, now, soon time.Time) (frontier.HostRevisits, error)
}

// RunReads is what the commands read of the runs, and what the suite
// writes to set them up.
type RunReads interface {
	Runs(limit int) ([]frontier.Run, error)
	GetRun(id int64) (frontier.Run, error)
	AddFetches([]frontier.Fetch) error
	Fetches(runID int64) ([]frontier.Fetch, error)
	AddWarcFile(f frontier.WarcFile) error
	WarcFiles(job string) ([]frontier.WarcFile, error)
}

// Config is how the suite reaches the store under test.
type Config struct {
	// NewDB creates an empty database for t and returns its opener: each
	// call opens another handle on that same database (as another process
	// would), reading the clock now, and closes it when t ends.
	NewDB func(t *testing.T) func(now func() time.Time) Store
	// NotFound is the error the store wraps for a run or entry that does
	// not exist.
	NotFound error
}

// T0 is the time the suite's clocks start at; its nanoseconds show a
// store that rounds.
var T0 = time.Date(2026, 11, 30, 10, 0, 0, 123456789, time.UTC)

// env is one subtest's database: its first handle db on clock (the fake
// clock the suite moves), and how to open more handles on the same
// database.
type env struct {
	cfg   Config
	db    Store
	clock *clock.Fake
	open  func(now func() time.Time) Store
}

func (c Config) env(t *testing.T) *env {
	t.Helper()
	clk := clock.NewFake(T0)
	open := c.NewDB(t)
	return &env{cfg: c, db: open(clk.Now), clock: clk, open: open}
}

// Run runs the suite: each subtest on a database of its own, in parallel.
func Run(t *testing.T, c Config) {
	tests := []struct {
		name string
		fn   func(*testing.T, *env)
	}{
		{"EnqueueDedup", testEnqueueDedup},
		{"EnqueueRefuses", testEnqueueRefuses},
		{"EnqueueKeepsSitemapFields", testEnqueueKeepsSitemapFields},
		{"TakeOrder", testTakeOrder},
		{"TakeHosts", testTakeHosts},
		{"TakeRespectsNextAt", testTakeRespectsNextAt},
		{"QueuedHosts", testQueuedHosts},
		{"UpdateWritesEverything", testUpdateWritesEverything},
		{"Prepare", testPrepare},
		{"PrepareRefreshesWhatIsDue", testPrepareDue},
		{"SitemapLastModRequeuesAChangedPage", testLastModRequeues},
		{"HostRevisits", testHostRevisits},
		{"CountsEntriesGet", testCountsEntriesGet},
		{"ConcurrentTakeNeverSharesAnEntry", testConcurrentTake},
		{"RecordWritesABatchInOneTransaction", testRecord},
		{"BoundWait", testBoundWait},
		{"Resume", testResume},
		{"LeftoverStates", testLeftoverStates},
		{"PaceStateRoundTrip", testPaceStateRoundTrip},
		{"PaceStateSaveReplacesAndLists", testPaceStateSaveReplacesAndLists},
		{"Forget", testForget},
		{"ForgetReleasesWaitingEntries", testForgetReleasesWaiting},
		{"PaceGroups", testPaceGroups},
		{"ForgetAMemberForgetsItsGroup", testForgetGroup},
		{"RobotsRoundTrip", testRobotsRoundTrip},
		{"RobotsCacheIsShared", testRobotsCacheIsShared},
		{"RunsRoundTrip", testRunsRoundTrip},
		{"StoreIdentityNamesRunFolders", testStoreIdentity},
		{"FetchesRoundTrip", testFetchesRoundTrip},
		{"WarcFilesRoundTrip", testWarcFiles},
		{"LastRunOfAJob", testLastRun},
		{"SeedSourceRoundTrip", testSeedSource},
		{"LockAndHeartbeat", testLockAndHeartbeat},
		{"Exclusions", testExclusions},
		{"DropRemovedSeeds", testDropRemovedSeeds},
		{"JobNames", testJobNames},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.fn(t, c.env(t))
		})
	}
}

// entry is a queued entry of host with a path and priority.
func entry(host, path string, prio int) frontier.Entry {
	return frontier.Entry{URL: "https://" + host + path, Host: host, Priority: prio}
}

func urls(es []frontier.Entry) []string {
	var us []string
	for _, e := range es {
		us = append(us, e.URL)
	}
	return us
}

func mustEnqueue(t *testing.T, db Store, job string, es ...frontier.Entry) {
	t.Helper()
	if _, err := db.Enqueue(job, es); err != nil {
		t.Fatalf("Enqueue: %v", err)
	}
}

// timeField is a time field of a value read back and of the value
// expected.
type timeField struct {
	name      string
	got, want *time.Time
}

// equalTimes reports each field whose two times are not the same instant
// (a time read back from a store has lost its location and monotonic
// reading), its name after prefix, then zeroes them all, so that the
// values can be compared whole.
func equalTimes(t *testing.T, prefix string, fs ...timeField) {
	t.Helper()
	for _, f := range fs {
		if !f.got.Equal(*f.want) {
			t.Errorf("%s%s = %v, want %v", prefix, f.name, *f.got, *f.want)
		}
		*f.got, *f.want = time.Time{}, time.Time{}
	}
}
