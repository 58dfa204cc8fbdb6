package store

import (
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/store/internal/proc"
)

// Acquire takes the crawl lock for h. If a live crawl holds it, the error
// wraps ErrLocked and a *LockedError. A lock is taken over, and Options.Warn
// told whose it was, when its holder is on this host name and its pid is
// gone, or when its holder has not refreshed it for frontier.Stale (a crawl
// killed on another machine sharing the file, or whose pid was reused).
// The lock's Since is the store's own clock (Options.Now); h.Since is ignored.
func (l *CrawlLock) Acquire(h frontier.Holder) error {
	tx, err := l.beginWrite("acquire lock")
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := l.acquire(tx, h); err != nil {
		return err
	}
	return commit("acquire lock", tx)
}

func (l *CrawlLock) acquire(tx *sql.Tx, h frontier.Holder) error {
	var (
		cur         frontier.Holder
		since, beat int64
	)
	err := tx.QueryRow(`SELECT pid, hostname, job, since, beat_at FROM lock WHERE id = 1`).
		Scan(&cur.PID, &cur.Hostname, &cur.Job, &since, &beat)
	now := l.now()
	cur.Since = fromNanos(since)
	last := fromNanos(max(since, beat))
	switch {
	case errors.Is(err, sql.ErrNoRows):
		// free
	case err != nil:
		return fmt.Errorf("acquire lock: %w", explain(err))
	case cur.PID == h.PID && cur.Hostname == h.Hostname:
		return nil // ours already
	case cur.Hostname == h.Hostname && !proc.Alive(cur.PID):
		// a crawl on this machine that died without releasing: take over
		l.warn(fmt.Sprintf("took over the crawl lock of %s: that process is gone", (&LockedError{Holder: cur}).holderText()))
	case now.Sub(last) > frontier.Stale:
		l.warn(fmt.Sprintf("took over the crawl lock of %s: not refreshed since %s (over %s)",
			(&LockedError{Holder: cur}).holderText(), last.UTC().Format(time.RFC3339), frontier.Stale))
	default:
		return &LockedError{Holder: cur}
	}
	_, err = tx.Exec(`INSERT INTO lock (id, pid, hostname, job, since, beat_at) VALUES (1, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET pid = excluded.pid, hostname = excluded.hostname,
			job = excluded.job, since = excluded.since, beat_at = excluded.beat_at`,
		h.PID, h.Hostname, h.Job, toNanos(now), toNanos(now))
	if err != nil {
		return fmt.Errorf("acquire lock: %w", explain(err))
	}
	return nil
}

func (l *CrawlLock) warn(s string) {
	if l.opts.Warn != nil {
		l.opts.Warn(s)
	}
}

// Heartbeat refreshes h's lock and, when runID is not 0, the run's
// heartbeat. A running crawl calls it every frontier.Beat.
func (l *CrawlLock) Heartbeat(h frontier.Holder, runID int64) error {
	tx, err := l.beginWrite("heartbeat")
	if err != nil {
		return err
	}
	defer tx.Rollback()
	now := toNanos(l.now())
	res, err := tx.Exec(`UPDATE lock SET beat_at = ? WHERE id = 1 AND pid = ? AND hostname = ?`, now, h.PID, h.Hostname)
	if err != nil {
		return fmt.Errorf("heartbeat: %w", explain(err))
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("heartbeat: %w", frontier.ErrLockLost)
	}
	if _, err := tx.Exec(`UPDATE runs SET beat_at = ? WHERE id = ?`, now, runID); err != nil {
		return fmt.Errorf("heartbeat: %w", explain(err))
	}
	return commit("heartbeat", tx)
}

// Release drops the crawl lock if h holds it (same pid and host name);
// otherwise it leaves the lock alone and returns nil.
func (l *CrawlLock) Release(h frontier.Holder) error {
	tx, err := l.beginWrite("release lock")
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
func (l *CrawlLock) LockHolder() (frontier.Holder, bool, error) {
	tx, err := l.beginRead("read lock")
	if err != nil {
		return frontier.Holder{}, false, err
	}
	defer tx.Rollback()
	var (
		h     frontier.Holder
		since int64
	)
	err = tx.QueryRow(`SELECT pid, hostname, job, since FROM lock WHERE id = 1`).
		Scan(&h.PID, &h.Hostname, &h.Job, &since)
	if errors.Is(err, sql.ErrNoRows) {
		return frontier.Holder{}, false, nil
	}
	if err != nil {
		return frontier.Holder{}, false, fmt.Errorf("read lock: %w", explain(err))
	}
	h.Since = fromNanos(since)
	return h, true, nil
}
