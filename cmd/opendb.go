package cmd

import (
	"context"

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
	shared crawl.Shared // PostgreSQL: the crawl workers' coordination; nil for SQLite
	seedTx seeds.LoadTx // SQLite: seed batches that share a transaction; nil for PostgreSQL
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
		return &database{appDB: db, shared: db.Coordination}, nil
	}
	db, err := store.Open(p)
	if err != nil {
		return nil, err
	}
	// A stale lock taken over is told as a log warning, so that stderr
	// stays JSON under --log-format json.
	if log, err := g.logger(g.errOut, false); err == nil {
		db.Warn = func(s string) { log.Warn(s) }
	}
	return &database{appDB: db, seedTx: db.SeedLoads}, nil
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
