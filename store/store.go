// Package store keeps what polite learns and plans in one SQLite file:
// host pace states, robots.txt copies, runs, fetch records and the frontier
// of every job. It is the only package that knows SQL.
package store

import (
	"errors"
	"time"

	"polite/pace"
)

// ErrLocked is returned by Acquire when another live crawl holds the database.
// The error wraps a *LockedError naming the holder.
var ErrLocked = errors.New("database is locked by another crawl")

// LockedError names the crawl holding the database.
type LockedError struct {
	Holder Holder
}

func (e *LockedError) Error() string { panic("TODO") }
func (e *LockedError) Unwrap() error { return ErrLocked }

// Holder identifies a running crawl.
type Holder struct {
	PID      int
	Hostname string
	Job      string
	Since    time.Time
}

// DB is an open polite database. It is safe for concurrent use.
type DB struct {
	Now func() time.Time // timestamps; time.Now when nil
}

var _ pace.StateStore = (*DB)(nil)

// Open opens or creates the database at path (creating its folder), in WAL
// mode with a busy timeout, and migrates its schema. A file that is not a
// polite database, or a newer one, is a clear error naming the path.
func Open(path string) (*DB, error) { panic("TODO") }

// Close closes the database.
func (db *DB) Close() error { panic("TODO") }

// Path returns the file the database lives in.
func (db *DB) Path() string { panic("TODO") }

// --- pace state ---

// Load returns the stored pace state of host.
func (db *DB) Load(host string) (pace.State, bool, error) { panic("TODO") }

// Save stores a host's pace state at once (one transaction).
func (db *DB) Save(st pace.State) error { panic("TODO") }

// SaveAll stores many states in one transaction.
func (db *DB) SaveAll(sts []pace.State) error { panic("TODO") }

// States returns every stored pace state, sorted by host.
func (db *DB) States() ([]pace.State, error) { panic("TODO") }

// Forget drops what was learned about the hosts (pace state and robots.txt
// copy) and returns how many hosts were known. No hosts means all of them.
func (db *DB) Forget(hosts ...string) (int, error) { panic("TODO") }

// --- robots.txt cache ---

// RobotsCopy is a stored robots.txt fetch.
type RobotsCopy struct {
	Host      string
	Status    int
	Body      []byte
	FetchedAt time.Time
	Expires   time.Time
}

// Robots returns the stored robots.txt copy of host.
func (db *DB) Robots(host string) (RobotsCopy, bool, error) { panic("TODO") }

// PutRobots stores a robots.txt copy, replacing the old one.
func (db *DB) PutRobots(c RobotsCopy) error { panic("TODO") }

// RobotsCopies returns every stored copy without bodies (for status).
func (db *DB) RobotsCopies() ([]RobotsCopy, error) { panic("TODO") }

// --- lock ---

// Acquire takes the crawl lock for h. If a live crawl holds it, the error
// wraps ErrLocked and a *LockedError. A lock whose holder is on this host
// name and whose pid is gone is taken over.
func (db *DB) Acquire(h Holder) error { panic("TODO") }

// Release drops the crawl lock if h holds it.
func (db *DB) Release(h Holder) error { panic("TODO") }
