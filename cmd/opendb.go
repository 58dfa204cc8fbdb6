package cmd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/seeds"
	"github.com/polite-crawler/polite/store"
	"github.com/polite-crawler/polite/store/postgres"
)

// appDB is what polite's commands need from a database; both stores
// implement it: store.DB (a SQLite file, one crawl at a time) and
// postgres.DB (a PostgreSQL database that several crawl workers share).
type appDB interface {
	crawl.Store
	statusDB
	jobStatusDB
	runsDB
	reportDB
	forgetDB
	excludeDB
	waczDB
	jobsDB
	Close() error
}

var (
	_ appDB = (*store.DB)(nil)
	_ appDB = (*postgres.DB)(nil)
)

// database is an open database, and the roles a crawl takes from
// whoever opens it (see crawl.Config) when the store plays them.
type database struct {
	appDB
	shared crawl.Shared    // PostgreSQL: the crawl workers' coordination; nil for SQLite
	wake   <-chan struct{} // PostgreSQL: the other workers' wake-ups; nil for SQLite
	seedTx seeds.LoadTx    // SQLite: seed batches that share a transaction; nil for PostgreSQL
	trim   crawl.Trim      // SQLite: its page caches, let go of before the report; nil for PostgreSQL
}

// openDB opens the database that --db, $POLITE_DB or the default names:
// a postgres:// or postgresql:// URL opens PostgreSQL (and creates no
// file), anything else a SQLite file.
func (g *globals) openDB() (*database, error) {
	p, err := g.dbPath()
	if err != nil {
		return nil, err
	}
	if postgres.IsURL(p) {
		db, err := postgres.Open(context.Background(), p)
		if err != nil {
			return nil, dbServerError{err}
		}
		if log, err := g.logger(g.errOut, false); err == nil {
			db.Log = log.Error // an entry recorded without its lease
		}
		return &database{appDB: db, shared: db.Coordination, wake: db.Wakes()}, nil
	}
	fresh, err := g.checkDBFolder(p)
	if err != nil {
		return nil, err
	}
	db, err := store.Open(p)
	if err != nil {
		return nil, err
	}
	if fresh {
		// A typo in --db must not start over silently with nothing learned.
		if log, err := g.logger(g.errOut, false); err == nil {
			log.Warn("new database: nothing learned yet (pace, ETags, jobs)", "db", p)
		}
	}
	// A stale lock taken over is told as a log warning, so that stderr
	// stays JSON under --log-format json.
	if log, err := g.logger(g.errOut, false); err == nil {
		db.Warn = func(s string) { log.Warn(s) }
	}
	return &database{appDB: db, seedTx: db.SeedLoads, trim: db}, nil
}

// checkDBFolder refuses a database file given by --db or $POLITE_DB
// whose folder does not exist (a typo would start over with nothing
// learned): only the default database's folder is created. It reports
// whether the file is yet to be created.
func (g *globals) checkDBFolder(p string) (fresh bool, err error) {
	if _, err := os.Stat(p); err == nil {
		return false, nil
	}
	if g.DB == "" && os.Getenv("POLITE_DB") == "" {
		return true, nil // the default: its folder is created
	}
	from := "--db"
	if g.DB == "" {
		from = "POLITE_DB"
	}
	dir := filepath.Dir(p)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, fmt.Errorf("%w: %s %s: folder %s does not exist (polite creates the database file, not its folder)", errUsage, from, p, dir)
	case err != nil:
		return false, fmt.Errorf("%w: %s %s: %v", errUsage, from, p, err)
	case !fi.IsDir():
		return false, fmt.Errorf("%w: %s %s: %s is not a folder", errUsage, from, p, dir)
	}
	return true, nil
}

// withDB runs a command's work on the database and closes it after.
func (g *globals) withDB(run func(appDB) error) error {
	db, err := g.openDB()
	if err != nil {
		return err
	}
	defer db.Close()
	return run(db.appDB)
}

// dbServerError is a database server that could not be reached or
// refused polite (its message names the server): polite exits 2, as for
// a bad --db.
type dbServerError struct{ err error }

func (e dbServerError) Error() string        { return e.err.Error() }
func (e dbServerError) Unwrap() error        { return e.err }
func (e dbServerError) Is(target error) bool { return target == errUsage }
