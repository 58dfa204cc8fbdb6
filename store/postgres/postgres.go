// Package postgres keeps polite's store in a PostgreSQL database, so that
// several crawl workers, on one machine or many, share one frontier (leased
// with FOR UPDATE SKIP LOCKED), one pace per host (claimed with one atomic
// UPDATE ... RETURNING), one robots.txt cache and one list of runs.
//
// Its tables mean what the SQLite store's mean (see store/schema.go), and
// its methods have the names and signatures of store.DB's where one exists;
// it adds what only several workers need: leases, pace claims, holds and a
// registry of live workers.
//
// Open a database with Open. A *DB is safe for concurrent use: it holds a
// pool of connections, and each exported method is one transaction. A DB
// is assembled from the roles it plays (Registry, Frontier, RunLog,
// PaceStates, RobotsCache, Coordination, ExclusionList), each a type of
// its own over the one pool.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/polite-crawler/polite/store/internal/column"
)

// Options are what a caller may set on an open DB, before it uses it.
type Options struct {
	// Now is the store's clock for leases, pace claims and heartbeats. Nil
	// means the server's clock, so that workers on several machines judge
	// time by one clock; tests set a fake one.
	Now func() time.Time
	// Timeout bounds each method, so that a lost server is an error and
	// not a hang; 0 means DefaultTimeout.
	Timeout time.Duration
	// LeaseTTL is how long an entry Take hands out stays this worker's
	// without a heartbeat; 0 means DefaultLeaseTTL.
	LeaseTTL time.Duration
	// Log, when set, is told of the errors a worker goes on after (an
	// entry recorded without its lease), as slog.Logger.Error is.
	Log func(msg string, args ...any)
	// FallbackPoll is the longest a waiting worker sleeps without looking
	// at the database again, should the other workers' wake-ups (see
	// Wakes) be lost; 0 means DefaultFallbackPoll. Tests set an hour.
	FallbackPoll time.Duration
}

// DB is an open polite database on a PostgreSQL server: the roles it
// plays, each a type of its own over the one pool, and its Options. It is
// safe for concurrent use. The zero value is not usable: get one from
// Open, and Close it when done.
type DB struct {
	Options
	*Registry
	*Frontier
	*RunLog
	*PaceStates
	*RobotsCache
	*Coordination
	*ExclusionList

	c *conn
}

// Registry is the job's workers: a crawl registers as one (crawl's Lock
// role), and beats while it works.
type Registry struct{ *conn }

// Frontier is the frontier of every job: entries enqueued, leased to a
// worker, settled and read, and what each job's frontier took from its
// seed file.
type Frontier struct{ *conn }

// RunLog is the runs of every job and the fetches each made.
type RunLog struct{ *conn }

// PaceStates is the pace state every worker learned of each host, and
// forgetting what was learned and held about a host.
type PaceStates struct{ *conn }

// RobotsCache is the robots.txt copies of every host, fetched once for
// every worker.
type RobotsCache struct{ *conn }

// ExclusionList is the operator's exclusion list (polite exclude), which
// every worker of every job on the database honours.
type ExclusionList struct{ *conn }

// Coordination is what several workers share beside the frontier: one
// owner and one pace per host, and the wait for the others' leases
// (crawl's Shared role).
type Coordination struct{ *conn }

// conn is what the roles share: the pool, the worker Acquire registered
// and the DB's Options.
type conn struct {
	opts   *Options
	worker atomic.Int64 // registered by Acquire; owns the leases of Take
	pool   *pgxpool.Pool
	server string       // host:port, for errors
	lost   atomic.Int64 // entries recorded without their lease (see LeaseLost)
	counts *trips       // transactions and round trips (see Trips)
	runs   claimRuns    // the worker's runs of claims, by host

	wake       chan struct{} // the other workers' wake-ups (see Wakes)
	stopListen func()        // ends listen's goroutine; nil when not listening
}

// newDB assembles a DB's roles over c.
func newDB(c *conn) *DB {
	db := &DB{c: c, Registry: &Registry{c}, Frontier: &Frontier{c}, RunLog: &RunLog{c},
		PaceStates: &PaceStates{c}, RobotsCache: &RobotsCache{c}, Coordination: &Coordination{c}, ExclusionList: &ExclusionList{c}}
	c.opts = &db.Options
	c.wake = make(chan struct{}, 1)
	return db
}

// DefaultTimeout bounds each method when Options.Timeout is 0.
const DefaultTimeout = 30 * time.Second

// connectTimeout bounds the dial of each connection when the URL sets none.
const connectTimeout = 10 * time.Second

// IsURL reports whether s names a PostgreSQL database (postgres:// or
// postgresql://) rather than a SQLite file.
func IsURL(s string) bool {
	l := strings.ToLower(s)
	return strings.HasPrefix(l, "postgres://") || strings.HasPrefix(l, "postgresql://")
}

// Open connects to the database at url (postgres://user@host:port/db?...),
// checks that the server answers and migrates the schema, in the schema
// that the connection's search_path selects. It creates no file. An
// unreachable or refusing server is an error naming host:port.
func Open(ctx context.Context, url string) (*DB, error) {
	if !IsURL(url) {
		return nil, fmt.Errorf("open db: %q is not a postgres:// or postgresql:// URL", redact(url))
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("open db: bad PostgreSQL URL: %w", err)
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = connectTimeout
	}
	c := &conn{server: serverName(cfg.ConnConfig), counts: &trips{}}
	cfg.ConnConfig.Tracer = c.counts
	c.pool, err = pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open db on PostgreSQL %s: %w", c.server, err)
	}
	if err := c.pool.Ping(ctx); err != nil {
		c.pool.Close()
		return nil, fmt.Errorf("open db: PostgreSQL %s unreachable or refusing: %w", c.server, err)
	}
	if err := c.migrate(ctx); err != nil {
		c.pool.Close()
		return nil, fmt.Errorf("open db on PostgreSQL %s: %w", c.server, err)
	}
	return newDB(c), nil
}

// serverName is host:port/database of a connection, without user or
// password.
func serverName(c *pgx.ConnConfig) string {
	hp := c.Host
	if !strings.HasPrefix(hp, "/") {
		hp = net.JoinHostPort(c.Host, strconv.Itoa(int(c.Port)))
	}
	return hp + "/" + c.Database
}

// redact hides the password of a URL-looking string.
func redact(s string) string {
	at := strings.LastIndex(s, "@")
	i := strings.Index(s, "://")
	if at < 0 || i < 0 || at < i {
		return s
	}
	if c := strings.Index(s[i+3:at], ":"); c >= 0 {
		return s[:i+3+c] + ":xxxxx" + s[at:]
	}
	return s
}

// Close closes the pool's connections.
func (db *DB) Close() error {
	db.c.unlisten()
	db.c.pool.Close()
	return nil
}

func (c *conn) timeout() time.Duration {
	if c.opts.Timeout > 0 {
		return c.opts.Timeout
	}
	return DefaultTimeout
}

// write runs fn in one read-write transaction, committed when fn returns
// nil and rolled back otherwise; errors are wrapped with op.
func (c *conn) write(op string, fn func(context.Context, pgx.Tx) error) error {
	return c.inTx(op, pgx.TxOptions{}, fn)
}

// read runs fn in one read-only transaction.
func (c *conn) read(op string, fn func(context.Context, pgx.Tx) error) error {
	return c.inTx(op, pgx.TxOptions{AccessMode: pgx.ReadOnly}, fn)
}

func (c *conn) inTx(op string, o pgx.TxOptions, fn func(context.Context, pgx.Tx) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout())
	defer cancel()
	c.counts.tx.Add(1)
	if err := pgx.BeginTxFunc(ctx, c.pool, o, func(tx pgx.Tx) error { return fn(ctx, tx) }); err != nil {
		return c.failed(op, err)
	}
	return nil
}

// failed wraps the error of a transaction with op, and says so when the
// server did not answer in time.
func (c *conn) failed(op string, err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s: PostgreSQL %s did not answer within %s: %w", op, c.server, c.timeout(), err)
	}
	return fmt.Errorf("%s: %w", op, err)
}

// nowArg is the store's clock as a query argument: unix nanoseconds, or
// NULL for the server's clock (see sqlNow).
func (c *conn) nowArg() any {
	if c.opts.Now == nil {
		return nil
	}
	return toNanos(c.opts.Now())
}

// localNow is the store's clock read here, for methods that take an
// optional time (a zero at) as store.DB's do.
func (c *conn) localNow() time.Time {
	if c.opts.Now != nil {
		return c.opts.Now()
	}
	return time.Now()
}

// sqlNow turns the argument it wraps (from nowArg) into unix nanoseconds,
// reading the server's clock when it is NULL.
func sqlNow(param string) string {
	return `COALESCE(` + param + `::bigint, (extract(epoch FROM clock_timestamp()) * 1000000000)::bigint)`
}

// Times are stored as unix nanoseconds in UTC (the zero time as 0),
// durations as nanoseconds, as both stores keep them (package column).
var toNanos, fromNanos = column.Nanos, column.Time
