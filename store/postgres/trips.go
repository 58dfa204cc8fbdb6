package postgres

import (
	"context"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
)

// trips counts what a DB asks of the server: transactions (one per
// method call, see inTx) and round trips (a statement, a BEGIN or a
// COMMIT each one; a pipelined batch one in all). A crawl's cost per page
// on PostgreSQL is these two counts over its pages (see Trips).
type trips struct{ tx, trips atomic.Int64 }

func (t *trips) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	t.trips.Add(1)
	return ctx
}

func (t *trips) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (t *trips) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	t.trips.Add(1)
	return ctx
}

func (t *trips) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}

func (t *trips) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// Trips returns how many transactions and round trips this DB made since
// it was opened (the listener's wait for wake-ups left out).
func (db *DB) Trips() (transactions, roundTrips int64) {
	return db.c.counts.tx.Load(), db.c.counts.trips.Load()
}
