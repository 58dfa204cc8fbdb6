//go:build unix

package postgres

import (
	"errors"
	"syscall"
)

// pidAlive reports whether a process with this pid exists on this machine.
// A process we may not signal (EPERM) exists.
func pidAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return !errors.Is(err, syscall.ESRCH)
}
