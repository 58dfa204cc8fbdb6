//go:build unix

// Package proc tells whether a process of this machine is alive: both
// stores use it to tell a dead holder (of a lock, of leases) from a live
// one on the same machine.
package proc

import (
	"errors"
	"syscall"
)

// Alive reports whether a process with this pid exists on this machine.
// A process we may not signal (EPERM) exists.
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return !errors.Is(err, syscall.ESRCH)
}
