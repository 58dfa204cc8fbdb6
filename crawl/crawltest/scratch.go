package crawltest

import (
	"os"
	"testing"
)

// ScratchInRAM points TMPDIR, and with it every t.TempDir of the test
// binary and of the processes it starts, at a RAM-backed filesystem when
// the machine has one with room to spare; a test binary's TestMain calls
// it before m.Run. A crawl test writes bodies, reports, journals and
// SQLite files, thousands of small files in all; on a disk-backed /tmp
// the kernel's work to create them was a third to a half of the crawl
// package's CPU time, and more on a machine busy writing to the same
// disk. A TMPDIR the user set is kept, and without a RAM-backed folder the
// tests run where they always did.
func ScratchInRAM() {
	if os.Getenv("TMPDIR") != "" {
		return
	}
	if dir := ramDir(); dir != "" {
		os.Setenv("TMPDIR", dir)
	}
}

// Main is a test binary's TestMain that needs nothing else: its tests
// run with ScratchInRAM, and it exits with their result.
func Main(m *testing.M) {
	ScratchInRAM()
	os.Exit(m.Run())
}
