package postgres

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/polite-crawler/polite/crawl/clock"
	"github.com/polite-crawler/polite/store/postgres/pgtest"
)

// serverURL returns the test server's URL (see pgtest.URL).
func serverURL(t *testing.T) string { return pgtest.URL(t) }

// newSchema creates an empty schema for the test, dropped when it ends,
// and returns a URL whose connections use it (see pgtest.Schema).
func newSchema(t *testing.T) string { return pgtest.Schema(t, "t_"+t.Name()) }

// mustOpen opens the database at u, on clock c (nil: the server's), and
// closes it when the test ends. Each call is another pool of
// connections: a worker of its own.
func mustOpen(t *testing.T, u string, c *clock.Fake) *DB {
	t.Helper()
	db, err := Open(context.Background(), u)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	if c != nil {
		db.Now = c.Now
	}
	return db
}

var t0 = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

// newClock is a fake clock the test moves, at t0.
func newClock() *clock.Fake { return clock.NewFake(t0) }

// openFromVersion builds the schema as migration version v left it in a
// new schema, runs rows there (the data of that version), and opens it,
// which migrates it the rest of the way; the schema must then stand at
// the last version.
func openFromVersion(t *testing.T, v int, rows string) *DB {
	t.Helper()
	u := newSchema(t)
	setup := fmt.Sprintf(`CREATE TABLE schema_version (version INTEGER NOT NULL); INSERT INTO schema_version VALUES (%d);`, v) +
		strings.Join(migrations[:v], "") + rows
	if _, err := pgtest.Conn(t, u).Exec(context.Background(), setup); err != nil {
		t.Fatalf("build schema version %d: %v", v, err)
	}
	db := mustOpen(t, u, newClock())
	var got int
	if err := db.c.pool.QueryRow(context.Background(), `SELECT version FROM schema_version`).Scan(&got); err != nil || got != len(migrations) {
		t.Errorf("schema version = %d, %v; want %d", got, err, len(migrations))
	}
	return db
}

// hold holds host for every worker until until, with reason, as a saved
// pace state's hold does (see hold).
func holdHost(db *DB, host string, until time.Time, reason string) error {
	return db.c.write("hold "+host, func(ctx context.Context, tx pgx.Tx) error {
		return hold(ctx, tx, host, until, reason)
	})
}

// hostHold is a hold in force.
type hostHold struct {
	Host   string
	Until  time.Time
	Reason string
}

// holdsOf returns the holds in force, by the store's clock, sorted by host:
// what the host_pace table holds back.
func holdsOf(db *DB) ([]hostHold, error) {
	var hs []hostHold
	err := db.c.read("list holds", func(ctx context.Context, tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT host, hold_until, hold_reason FROM host_pace
			WHERE hold_until > `+sqlNow("$1")+` ORDER BY host`, db.c.nowArg())
		if err != nil {
			return err
		}
		hs, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (hostHold, error) {
			var (
				h     hostHold
				until int64
			)
			err := r.Scan(&h.Host, &until, &h.Reason)
			h.Until = fromNanos(until)
			return h, err
		})
		return err
	})
	return hs, err
}
