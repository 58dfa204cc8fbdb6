package store

import (
	"errors"
	"time"
)

// ErrNotFound is returned when a run or entry does not exist.
var ErrNotFound = errors.New("not found")

// State is where a frontier entry stands.
type State string

// The states of a frontier entry.
const (
	Queued      State = "queued"
	InFlight    State = "in-flight"
	Done        State = "done"
	NotModified State = "not-modified"
	Excluded    State = "excluded" // by robots.txt or a skipped host
	Deferred    State = "deferred" // left for the next run (Retry-After, budget)
	Dead        State = "dead"
)

// Entry is one URL of a job's frontier.
type Entry struct {
	ID           int64
	Job          string
	URL          string // normalised
	Host         string // lowercased host[:port]
	State        State
	Attempts     int
	NextAt       time.Time // not eligible before
	Priority     int
	Depth        int
	Hops         int    // redirects followed to reach it
	Parent       string // URL it was found on or redirected from; "" for a seed
	ETag         string
	LastModified string
	LastStatus   int
	Reason       string // classified reason of the last failure or exclusion
	FetchedAt    time.Time
	File         string // body path relative to the output folder
	SHA256       string
	Bytes        int64
}

// Enqueue adds entries that the job does not have yet (by URL) and returns
// how many were new. Existing entries are left as they are.
func (db *DB) Enqueue(job string, es []Entry) (int, error) { panic("TODO") }

// Prepare readies a job for a new run: entries left in flight by a dead run
// and deferred ones become queued; done and not-modified entries fetched
// before refreshBefore become queued again (keeping ETag and Last-Modified
// for a conditional request); excluded ones too, as robots.txt may change.
func (db *DB) Prepare(job string, refreshBefore time.Time) error { panic("TODO") }

// HostQueue is one host's share of the queue.
type HostQueue struct {
	Host   string
	Queued int
	NextAt time.Time // earliest NextAt among its queued entries
}

// QueuedHosts returns every host of the job with queued entries.
func (db *DB) QueuedHosts(job string) ([]HostQueue, error) { panic("TODO") }

// Take marks up to n queued entries of host that are eligible at now as in
// flight and returns them, highest priority first, then oldest first.
func (db *DB) Take(job, host string, now time.Time, n int) ([]Entry, error) { panic("TODO") }

// Update writes back the entries (state, attempts, next_at, validators,
// reason, file, ...) in one transaction.
func (db *DB) Update(es []Entry) error { panic("TODO") }

// Counts returns how many entries of the job are in each state.
func (db *DB) Counts(job string) (map[State]int, error) { panic("TODO") }

// Entries returns the job's entries in a state, oldest first (limit 0: all).
func (db *DB) Entries(job string, s State, limit int) ([]Entry, error) { panic("TODO") }

// Get returns the job's entry for a URL.
func (db *DB) Get(job, url string) (Entry, error) { panic("TODO") }
