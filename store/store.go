// Package store keeps what polite learns and plans in one SQLite file:
// host pace states, robots.txt copies, runs, fetch records and the frontier
// of every job. It is the only package that knows SQL.
//
// Open a database with Open. A *DB is safe for concurrent use: writes go
// through one connection, one IMMEDIATE transaction at a time, while reads
// run beside them on a small pool (WAL mode). A DB is assembled from the
// roles it plays (CrawlLock, Frontier, SeedLoads, RunLog, PaceStates,
// RobotsCache, ExclusionList), each a type of its own over the one
// database.
package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/pace"
	"github.com/polite-crawler/polite/store/internal/column"
)

// ErrLocked is returned by Acquire when another live crawl holds the database.
// The error wraps a *LockedError naming the holder.
var ErrLocked = errors.New("database is locked by another crawl")

// LockedError names the crawl holding the database.
type LockedError struct {
	Holder frontier.Holder
}

// Error names the holder, e.g. "database is locked by pid 123 on host1
// (job nightly) since 2026-11-30T10:00:00Z".
func (e *LockedError) Error() string {
	return "database is locked by " + e.holderText()
}

// holderText names the holder: "pid 123 on host1 (job nightly) since ...".
func (e *LockedError) holderText() string {
	h := e.Holder
	s := fmt.Sprintf("pid %d on %s", h.PID, h.Hostname)
	if h.Job != "" {
		s += " (job " + h.Job + ")"
	}
	if !h.Since.IsZero() {
		s += " since " + h.Since.UTC().Format(time.RFC3339)
	}
	return s
}

// Unwrap makes errors.Is(err, ErrLocked) true.
func (e *LockedError) Unwrap() error { return ErrLocked }

// Options are what a caller may set on an open DB, before it uses it.
type Options struct {
	Now  func() time.Time // timestamps; time.Now when nil
	Warn func(string)     // told when Acquire takes over a stale lock; nil: not told
}

// DB is an open polite database: the roles it plays, each a type of its
// own over the one database, and its Options. It is safe for concurrent
// use. The zero value is not usable: get one from Open, and Close it when
// done.
type DB struct {
	Options
	*CrawlLock
	*Frontier
	*SeedLoads
	*RunLog
	*PaceStates
	*RobotsCache
	*ExclusionList

	c *conn
}

// CrawlLock is the database's crawl lock: one crawl at a time.
type CrawlLock struct{ *conn }

// Frontier is the frontier of every job: entries enqueued, taken, settled
// and read, and what each job's frontier took from its seed file.
type Frontier struct{ *conn }

// SeedLoads is the loads that put a seed file's batches in one
// transaction.
type SeedLoads struct{ *conn }

// RunLog is the runs of every job and the fetches each made.
type RunLog struct{ *conn }

// PaceStates is the pace state of every host, and forgetting what was
// learned about a host.
type PaceStates struct{ *conn }

// RobotsCache is the robots.txt copies of every host.
type RobotsCache struct{ *conn }

// ExclusionList is the operator's exclusion list (polite exclude), which
// every job on the database honours.
type ExclusionList struct{ *conn }

var _ pace.StateStore = (*PaceStates)(nil)

// conn is what the roles share: the connections, the hot statements, the
// load under way and the DB's Options.
type conn struct {
	opts    *Options
	path    string
	w       *sql.DB // one connection; every transaction BEGIN IMMEDIATE
	r       *sql.DB // a few read-only connections beside the writer
	readers int     // how many, at most

	stmts map[string]*sql.Stmt // hot statements, parsed once on w
	reads map[string]*sql.Stmt // hot reads, parsed once on r

	loadMu sync.Mutex
	load   *sql.Tx // the transaction of a load under way (BeginLoad)

	cacheKiB atomic.Int64 // the writer's cache size (see sizeCache)
}

// newDB assembles a DB's roles over c.
func newDB(c *conn) *DB {
	db := &DB{c: c, CrawlLock: &CrawlLock{c}, Frontier: &Frontier{c}, SeedLoads: &SeedLoads{c}, RunLog: &RunLog{c},
		PaceStates: &PaceStates{c}, RobotsCache: &RobotsCache{c}, ExclusionList: &ExclusionList{c}}
	c.opts = &db.Options
	return db
}

// busyTimeout is how long a connection waits for a lock another process
// holds before it gives up with SQLITE_BUSY. Tests shorten it.
var busyTimeout = 5 * time.Second

// sqliteHeader opens every SQLite 3 database file.
var sqliteHeader = []byte("SQLite format 3\x00")

// Open opens or creates the database at path (creating its folder), in WAL
// mode with a busy timeout, and migrates its schema. A file that is not a
// polite database, or a newer one, is a clear error naming the path.
func Open(path string) (*DB, error) {
	if path == "" {
		return nil, errors.New("open db: no path given")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open db %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, fmt.Errorf("create db folder for %s: %w", path, err)
	}
	if err := checkHeader(abs); err != nil {
		return nil, fmt.Errorf("open db %s: %w", path, err)
	}

	c := &conn{path: path}
	c.cacheKiB.Store(crawlCacheKiB) // the DSN's
	c.w, err = sql.Open("sqlite", dsn(abs, true))
	if err != nil {
		return nil, fmt.Errorf("open db %s: %w", path, err)
	}
	c.w.SetMaxOpenConns(1)
	c.w.SetMaxIdleConns(1)
	c.w.SetConnMaxLifetime(0)
	if err := c.w.Ping(); err != nil {
		c.w.Close()
		return nil, fmt.Errorf("open db %s: %w", path, explain(err))
	}
	if err := c.migrate(); err != nil {
		c.w.Close()
		return nil, fmt.Errorf("open db %s: %w", path, err)
	}
	if err := c.prepare(); err != nil {
		c.w.Close()
		return nil, fmt.Errorf("open db %s: %w", path, err)
	}

	c.r, err = sql.Open("sqlite", dsn(abs, false))
	if err != nil {
		c.w.Close()
		return nil, fmt.Errorf("open db %s: %w", path, err)
	}
	c.readers = min(max(runtime.NumCPU(), 2), 8)
	c.r.SetMaxOpenConns(c.readers)
	c.r.SetMaxIdleConns(c.readers)
	if err := c.prepareReads(); err != nil {
		c.r.Close()
		c.w.Close()
		return nil, fmt.Errorf("open db %s: %w", path, err)
	}
	return newDB(c), nil
}

// dsn is the driver's name for the file at abs. The writer begins every
// transaction IMMEDIATE, so that a transaction that reads before it writes
// never fails to upgrade its lock; readers are query_only.
func dsn(abs string, writer bool) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout("+strconv.FormatInt(busyTimeout.Milliseconds(), 10)+")")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	if writer {
		q.Add("_pragma", "journal_mode(WAL)")
		// The crawl's cache size; a seed load raises it (sizeCache).
		q.Add("_pragma", "cache_size(-"+strconv.Itoa(crawlCacheKiB)+")")
		q.Add("_pragma", "temp_store(MEMORY)") // statement journals of batched inserts
		q.Set("_txlock", "immediate")
	} else {
		q.Add("_pragma", "query_only(1)")
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs), RawQuery: q.Encode()}
	return u.String()
}

// checkHeader refuses a file that exists, is not empty and does not start
// as a SQLite database does, before SQLite gets to look at it.
func checkHeader(abs string) error {
	f, err := os.Open(abs)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return errors.New("is a folder, not a database file")
	}
	buf := make([]byte, len(sqliteHeader))
	n, err := io.ReadFull(f, buf)
	if n == 0 && err == io.EOF {
		return nil // an empty file becomes a new database
	}
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return err
	}
	if !bytes.Equal(buf[:n], sqliteHeader) {
		return errors.New("file is not a database")
	}
	return nil
}

// explain turns SQLite's terse busy error into one a user can act on;
// other errors pass unchanged.
func explain(err error) error {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return err
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return fmt.Errorf("database is busy: another process kept it locked for more than %s: %w", busyTimeout, err)
	}
	return err
}

// Close closes the database.
func (db *DB) Close() error {
	c := db.c
	var errs []error
	c.loadMu.Lock()
	c.rollbackLoad()
	c.loadMu.Unlock()
	for _, s := range c.stmts {
		errs = append(errs, s.Close())
	}
	if c.r != nil {
		errs = append(errs, c.r.Close())
	}
	if c.w != nil {
		errs = append(errs, c.w.Close())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close db %s: %w", c.path, err)
	}
	return nil
}

// now is the store's clock (Options.Now).
func (c *conn) now() time.Time {
	if c.opts.Now != nil {
		return c.opts.Now()
	}
	return time.Now()
}

// beginWrite starts an IMMEDIATE transaction on the writer.
func (c *conn) beginWrite(op string) (*sql.Tx, error) {
	tx, err := c.w.BeginTx(context.Background(), nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, explain(err))
	}
	return tx, nil
}

// beginRead starts a read-only transaction: one consistent snapshot that
// does not wait for the writer.
func (c *conn) beginRead(op string) (*sql.Tx, error) {
	tx, err := c.r.BeginTx(context.Background(), &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, explain(err))
	}
	return tx, nil
}

// The writer's page cache. A seed load rewrites the index pages of every
// host it touches, batch after batch, and a larger frontier has more of
// them: with 32 MiB a million seeds (a 35 MB file) load in two thirds of
// the time they take with 8 MiB. SQLite's pages cost about twice their
// size in memory (each, with its header, takes an 8 KiB slot of the
// driver's allocator), so a load's cache is about its seed file's size,
// from the crawl's 8 MiB up to 32 MiB; and once a crawl records its first
// answer the cache is emptied and held to 8 MiB: a crawl's own writes
// touch few pages.
const (
	crawlCacheKiB   = 8 << 10
	maxLoadCacheKiB = 32 << 10
)

// loadCacheKiB is the writer's cache for loading a seed source of bytes.
func loadCacheKiB(bytes int64) int {
	return int(min(max(bytes>>10, crawlCacheKiB), maxLoadCacheKiB))
}

// sizeCache sets the writer's cache to kib KiB, through tx (the writer's
// one connection), when it is not that size already.
func (c *conn) sizeCache(tx *sql.Tx, kib int) error {
	cur := int(c.cacheKiB.Load())
	if cur == kib {
		return nil
	}
	if _, err := tx.Exec("PRAGMA cache_size = -" + strconv.Itoa(kib)); err != nil {
		return fmt.Errorf("size the page cache: %w", explain(err))
	}
	// Shrunk, the cache keeps its pages scattered over the slots the load
	// filled, and the allocator gives memory back only a whole region at
	// a time: let go of every page, and the crawl's grow again in fresh
	// regions.
	if kib < cur {
		if _, err := tx.Exec("PRAGMA shrink_memory"); err != nil {
			return fmt.Errorf("size the page cache: %w", explain(err))
		}
	}
	c.cacheKiB.Store(int64(kib))
	return nil
}

// ReleaseMemory lets go of what SQLite holds for speed: the writer's page
// cache is emptied (it fills again as pages are read) and the idle
// readers are closed, with their caches (a read opens one again). At the
// end of a crawl of 200,000 pages this takes its peak from 117 to 99 MB.
func (d *DB) ReleaseMemory() error {
	c := d.c
	c.r.SetMaxIdleConns(0) // closes the idle ones
	c.r.SetMaxIdleConns(c.readers)
	if _, err := c.w.Exec("PRAGMA shrink_memory"); err != nil {
		return fmt.Errorf("release memory: %w", explain(err))
	}
	return nil
}

// commit commits tx, naming op if that fails.
func commit(op string, tx *sql.Tx) error {
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("%s: commit: %w", op, explain(err))
	}
	return nil
}

// Times are stored as unix nanoseconds in UTC (the zero time as 0),
// durations as nanoseconds, as both stores keep them (package column).
var toNanos, fromNanos = column.Nanos, column.Time
