package store

import (
	"database/sql"
	"errors"
	"fmt"
	"github.com/polite-crawler/polite/crawl/frontier"
)

// Acquire takes the crawl lock for h. If a live crawl holds it, the error
// wraps ErrLocked and a *LockedError. A lock whose holder is on this host
// name and whose pid is gone is taken over. The lock's Since is the store's
// own clock (DB.Now); h.Since is ignored.
func (db *DB) Acquire(h Holder) error {
	tx, err := db.beginWrite("acquire lock")
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := db.acquire(tx, h); err != nil {
		return err
	}
	return commit("acquire lock", tx)
}

func (db *DB) acquire(tx *sql.Tx, h Holder) error {
	var (
		cur   Holder
		since int64
	)
	err := tx.QueryRow(`SELECT pid, hostname, job, since FROM lock WHERE id = 1`).
		Scan(&cur.PID, &cur.Hostname, &cur.Job, &since)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		// free
	case err != nil:
		return fmt.Errorf("acquire lock: %w", explain(err))
	case cur.PID == h.PID && cur.Hostname == h.Hostname:
		return nil // ours already
	case cur.Hostname == h.Hostname && !pidAlive(cur.PID):
		// a crawl on this machine that died without releasing: take over
	default:
		cur.Since = fromNanos(since)
		return &LockedError{Holder: cur}
	}
	_, err = tx.Exec(`INSERT INTO lock (id, pid, hostname, job, since) VALUES (1, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET pid = excluded.pid, hostname = excluded.hostname,
			job = excluded.job, since = excluded.since`,
		h.PID, h.Hostname, h.Job, toNanos(db.now()))
	if err != nil {
		return fmt.Errorf("acquire lock: %w", explain(err))
	}
	return nil
}

// Release drops the crawl lock if h holds it (same pid and host name);
// otherwise it leaves the lock alone and returns nil.
func (db *DB) Release(h Holder) error {
	tx, err := db.beginWrite("release lock")
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`DELETE FROM lock WHERE id = 1 AND pid = ? AND hostname = ?`, h.PID, h.Hostname); err != nil {
		return fmt.Errorf("release lock: %w", explain(err))
	}
	return commit("release lock", tx)
}

// LockHolder returns the crawl holding the lock, if any, whether alive or
// not (for status).
func (db *DB) LockHolder() (Holder, bool, error) {
	tx, err := db.beginRead("read lock")
	if err != nil {
		return Holder{}, false, err
	}
	defer tx.Rollback()
	var (
		h     Holder
		since int64
	)
	err = tx.QueryRow(`SELECT pid, hostname, job, since FROM lock WHERE id = 1`).
		Scan(&h.PID, &h.Hostname, &h.Job, &since)
	if errors.Is(err, sql.ErrNoRows) {
		return Holder{}, false, nil
	}
	if err != nil {
		return Holder{}, false, fmt.Errorf("read lock: %w", explain(err))
	}
	h.Since = fromNanos(since)
	return h, true, nil
}

// ThisProcess is the Holder this process presents for job: its pid and
// host name, which Acquire uses to tell a live holder from a dead one.
func ThisProcess(job string) Holder { return frontier.ThisProcess(job) }
