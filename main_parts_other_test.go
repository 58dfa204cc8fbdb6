//go:build !linux

package main

import (
	"sync/atomic"
	"testing"
)

// watchParts would count the temporary body files polite creates under
// out; without inotify it sees none, and a test waiting for one goes by
// its other conditions.
func watchParts(t *testing.T, out string) *atomic.Int64 { return new(atomic.Int64) }
