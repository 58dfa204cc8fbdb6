package postgres

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
)

// Workers wake each other through PostgreSQL (LISTEN/NOTIFY) rather than
// by polling: a change that may give a waiting worker something to do
// notifies wakeChannel when it commits, and every registered worker
// listens on a connection of its own. The changes are a host released (by
// its owner, or by a worker leaving), URLs added to a frontier, and a
// rule added to the exclusion list. A waiting worker also looks again
// after FallbackPoll at the latest, should a notification be lost.

// wakeChannel is the channel workers notify and listen on.
const wakeChannel = "polite_wake"

// DefaultFallbackPoll is Options.FallbackPoll when it is 0.
const DefaultFallbackPoll = 30 * time.Second

// fallbackPoll is how long a waiting worker may sleep without looking
// at the database again.
func (c *conn) fallbackPoll() time.Duration {
	if c.opts.FallbackPoll > 0 {
		return c.opts.FallbackPoll
	}
	return DefaultFallbackPoll
}

// notify wakes the other workers once tx commits; sender is the worker
// notifying (0: none), whose own listener ignores it.
func notify(ctx context.Context, tx pgx.Tx, sender int64) error {
	_, err := tx.Exec(ctx, `SELECT pg_notify($1, $2)`, wakeChannel, strconv.FormatInt(sender, 10))
	return err
}

// Wakes receives when another worker released a host, added URLs or
// added an exclusion rule since this worker last looked (at most one
// wake-up waits); it never receives before Acquire registered the
// worker. A crawl waits on it beside its timers (crawl.Config.Wake).
func (cd *Coordination) Wakes() <-chan struct{} { return cd.wake }

// listen starts listening for the other workers' notifications as worker
// id, on a connection taken from the pool for as long as it listens.
func (c *conn) listen(id int64) error {
	ctx, cancel := context.WithCancel(context.Background())
	setup, done := context.WithTimeout(ctx, c.timeout())
	defer done()
	pc, err := c.pool.Acquire(setup)
	if err == nil {
		if _, err = pc.Exec(setup, `LISTEN `+wakeChannel); err != nil {
			pc.Release()
		}
	}
	if err != nil {
		cancel()
		return errors.Join(errors.New("listen for other workers"), err)
	}
	conn := pc.Hijack() // never back to the pool: it listens
	stopped := make(chan struct{})
	c.stopListen = func() {
		cancel()
		<-stopped
	}
	self := strconv.FormatInt(id, 10)
	go func() {
		defer close(stopped)
		defer conn.Close(context.Background())
		for {
			n, err := conn.WaitForNotification(ctx)
			if err != nil {
				if ctx.Err() == nil && c.opts.Log != nil {
					c.opts.Log("lost the other workers' wake-ups: looking again every "+c.fallbackPoll().String(), "err", err)
				}
				return
			}
			if n.Payload == self {
				continue
			}
			select {
			case c.wake <- struct{}{}:
			default: // a wake-up already waits
			}
		}
	}()
	return nil
}

// unlisten stops listening, if listen started.
func (c *conn) unlisten() {
	if c.stopListen != nil {
		c.stopListen()
		c.stopListen = nil
	}
}
