package store_test

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/store"
)

// deadPID returns the pid of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatalf("run true: %v", err)
	}
	return cmd.ProcessState.Pid()
}

func TestAcquire(t *testing.T) {
	me := frontier.Holder{PID: os.Getpid(), Hostname: "host1", Job: "nightly"}
	tests := []struct {
		name     string
		first    frontier.Holder
		wantLock bool          // the second Acquire (by me) fails with ErrLocked
		silent   time.Duration // since the first holder's last heartbeat; 1m when 0
	}{
		{"free", frontier.Holder{}, false, 0},
		{"live crawl on this host", frontier.Holder{PID: os.Getppid(), Hostname: "host1", Job: "other"}, true, 0},
		{"dead crawl on this host is taken over", frontier.Holder{PID: deadPID(t), Hostname: "host1", Job: "other"}, false, 0},
		{"crawl on another host", frontier.Holder{PID: deadPID(t), Hostname: "host2", Job: "other"}, true, 0},
		{"crawl on another host, silent just under the limit", frontier.Holder{PID: 1, Hostname: "host2", Job: "other"}, true, frontier.Stale},
		{"crawl on another host, silent past the limit, is taken over", frontier.Holder{PID: 1, Hostname: "host2", Job: "other"}, false, frontier.Stale + time.Second},
		{"live pid on this host, silent past the limit, is taken over (pid reused)", frontier.Holder{PID: os.Getppid(), Hostname: "host1", Job: "other"}, false, time.Hour},
		{"held by me already", me, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := mustOpen(t)
			if tt.first != (frontier.Holder{}) {
				if err := db.Acquire(tt.first); err != nil {
					t.Fatalf("first Acquire: %v", err)
				}
			}
			silent := tt.silent
			if silent == 0 {
				silent = time.Minute
			}
			var warned []string
			db.Warn = func(s string) { warned = append(warned, s) }
			db.Now = func() time.Time { return t0.Add(silent) }
			err := db.Acquire(me)
			if taken := tt.first != (frontier.Holder{}) && tt.first != me && err == nil; taken != (len(warned) == 1) ||
				taken && !strings.Contains(warned[0], "on "+tt.first.Hostname) {
				t.Errorf("warnings %q; want one naming the old holder exactly when a lock is taken over", warned)
			}
			if got := errors.Is(err, store.ErrLocked); got != tt.wantLock {
				t.Fatalf("Acquire = %v; errors.Is(ErrLocked) = %v, want %v", err, got, tt.wantLock)
			}
			h, ok, herr := db.LockHolder()
			if herr != nil || !ok {
				t.Fatalf("LockHolder = _, %v, %v; want held", ok, herr)
			}
			if tt.wantLock {
				var le *store.LockedError
				if !errors.As(err, &le) {
					t.Fatalf("Acquire = %v, want a *LockedError", err)
				}
				if !sameHolder(le.Holder, tt.first) || !le.Holder.Since.Equal(t0) {
					t.Errorf("LockedError.Holder = %+v, want %+v since %v", le.Holder, tt.first, t0)
				}
				if !sameHolder(h, tt.first) {
					t.Errorf("holder after refused Acquire = %+v, want %+v", h, tt.first)
				}
				return
			}
			if err != nil {
				t.Fatalf("Acquire = %v, want nil", err)
			}
			if !sameHolder(h, me) {
				t.Errorf("holder = %+v, want %+v", h, me)
			}
		})
	}
}

func sameHolder(a, b frontier.Holder) bool {
	return a.PID == b.PID && a.Hostname == b.Hostname && a.Job == b.Job
}

func TestAcquireSinceFromStoreClock(t *testing.T) {
	db := mustOpen(t)
	first := frontier.Holder{PID: os.Getppid(), Hostname: "host1", Job: "nightly", Since: t0.Add(-48 * time.Hour)}
	if err := db.Acquire(first); err != nil {
		t.Fatalf("Acquire: %v", err)
	}
	err := db.Acquire(frontier.Holder{PID: os.Getpid(), Hostname: "host1"})
	var le *store.LockedError
	if !errors.As(err, &le) {
		t.Fatalf("Acquire = %v, want a *LockedError", err)
	}
	if !le.Holder.Since.Equal(t0) {
		t.Errorf("Since = %v, want the store's clock %v", le.Holder.Since, t0)
	}
}

func TestRelease(t *testing.T) {
	holder := frontier.Holder{PID: os.Getppid(), Hostname: "host1", Job: "nightly"}
	tests := []struct {
		name     string
		releaser frontier.Holder
		wantHeld bool
	}{
		{"holder releases", holder, false},
		{"other pid leaves it", frontier.Holder{PID: os.Getpid(), Hostname: "host1"}, true},
		{"other host leaves it", frontier.Holder{PID: holder.PID, Hostname: "host2"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := mustOpen(t)
			if err := db.Acquire(holder); err != nil {
				t.Fatalf("Acquire: %v", err)
			}
			if err := db.Release(tt.releaser); err != nil {
				t.Fatalf("Release: %v", err)
			}
			h, held, err := db.LockHolder()
			if err != nil {
				t.Fatalf("LockHolder: %v", err)
			}
			if held != tt.wantHeld {
				t.Errorf("held after Release = %v (%+v), want %v", held, h, tt.wantHeld)
			}
			if !tt.wantHeld {
				if err := db.Acquire(frontier.Holder{PID: os.Getpid(), Hostname: "host1"}); err != nil {
					t.Errorf("Acquire after Release = %v, want nil", err)
				}
			}
		})
	}
}

func TestThisProcessHoldsTheLock(t *testing.T) {
	db := mustOpen(t)
	h := frontier.ThisProcess("nightly")
	host, _ := os.Hostname()
	if h.PID != os.Getpid() || h.Hostname != host || h.Job != "nightly" {
		t.Fatalf("ThisProcess = %+v, want pid %d on %q for nightly", h, os.Getpid(), host)
	}
	if err := db.Acquire(h); err != nil {
		t.Fatalf("Acquire: %v", err)
	}
	// The same process asking again holds it already.
	if err := db.Acquire(frontier.ThisProcess("other")); err != nil {
		t.Errorf("Acquire by the same process: %v", err)
	}
	if err := db.Release(h); err != nil {
		t.Errorf("Release: %v", err)
	}
}
