package store

import "time"

// Run is one crawl run.
type Run struct {
	ID        int64
	Job       string
	StartedAt time.Time
	EndedAt   time.Time // zero while running or if the run died
	ExitCode  int
	Summary   string // one line, e.g. "12 done, 1 dead, 3 waiting"
	Report    []byte // report.json as written; nil while running
}

// BeginRun records the start of a run of job.
func (db *DB) BeginRun(job string, at time.Time) (Run, error) { panic("TODO") }

// EndRun records the end of a run.
func (db *DB) EndRun(id int64, at time.Time, exitCode int, summary string, report []byte) error {
	panic("TODO")
}

// Runs returns the newest runs first, at most limit (0: all).
func (db *DB) Runs(limit int) ([]Run, error) { panic("TODO") }

// GetRun returns one run with its report; ErrNotFound if there is none.
func (db *DB) GetRun(id int64) (Run, error) { panic("TODO") }

// Fetch is one request polite made, as recorded for the report.
type Fetch struct {
	RunID       int64
	URL         string
	Host        string
	Status      int    // 0 for a network error
	Reason      string // classified failure ("" on success)
	File        string // body path relative to the output folder, "" when none
	SHA256      string
	Bytes       int64
	ContentType string
	FetchedAt   time.Time
	Latency     time.Duration // time to first byte
	Attempts    int
	Delay       time.Duration // the host's delay when the request started
}

// AddFetches records fetches in one transaction.
func (db *DB) AddFetches(fs []Fetch) error { panic("TODO") }

// Fetches returns the fetches of a run in the order they were made.
func (db *DB) Fetches(runID int64) ([]Fetch, error) { panic("TODO") }
