package crawltest

import (
	"os"
	"syscall"
)

// minRAMFree is the free space a RAM-backed folder needs before the tests
// use it: the largest test writes a few hundred MB.
const minRAMFree = 2 << 30

// ramDir returns /dev/shm when it is a tmpfs with minRAMFree free,
// mounted without noexec (the CLI tests run binaries from their scratch
// folders), that this process can write to; else "".
func ramDir() string {
	const (
		dir        = "/dev/shm"
		tmpfsMagic = 0x01021994
		stNoExec   = 0x8
	)
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil || int64(st.Type) != tmpfsMagic || int64(st.Flags)&stNoExec != 0 {
		return ""
	}
	if uint64(st.Bavail)*uint64(st.Bsize) < minRAMFree {
		return ""
	}
	f, err := os.CreateTemp(dir, "polite-test-")
	if err != nil {
		return ""
	}
	f.Close()
	os.Remove(f.Name())
	return dir
}
