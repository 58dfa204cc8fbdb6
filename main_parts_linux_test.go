package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"unsafe"
)

// watchParts counts the temporary body files (".part") polite creates in
// the host folders under out, as the kernel reports them (inotify), and
// announces each on changes: a test can kill polite the moment it starts
// writing a body. out must exist. The watch ends with the test.
func watchParts(t *testing.T, out string) *atomic.Int64 {
	t.Helper()
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC | syscall.IN_NONBLOCK)
	if err != nil {
		t.Fatalf("inotify: %v", err)
	}
	f := os.NewFile(uintptr(fd), "inotify") // non-blocking: Close ends a Read
	dirs := map[int32]string{}
	add := func(dir string) {
		wd, err := syscall.InotifyAddWatch(fd, dir, syscall.IN_CREATE)
		if err == nil {
			dirs[int32(wd)] = dir
		}
	}
	add(out)
	var parts atomic.Int64
	done := make(chan struct{})
	t.Cleanup(func() { f.Close(); <-done })
	go func() {
		defer close(done)
		buf := make([]byte, 64<<10)
		for {
			n, err := f.Read(buf)
			if err != nil {
				if !errors.Is(err, os.ErrClosed) {
					t.Errorf("inotify read: %v", err)
				}
				return
			}
			for off := 0; off+syscall.SizeofInotifyEvent <= n; {
				ev := (*syscall.InotifyEvent)(unsafe.Pointer(&buf[off]))
				name := string(bytes.TrimRight(buf[off+syscall.SizeofInotifyEvent:off+syscall.SizeofInotifyEvent+int(ev.Len)], "\x00"))
				off += syscall.SizeofInotifyEvent + int(ev.Len)
				dir, ok := dirs[ev.Wd]
				switch {
				case !ok:
				case dir == out && ev.Mask&syscall.IN_ISDIR != 0 && name != "runs" && name != "warc":
					add(filepath.Join(out, name)) // a host's folder
				case dir != out && filepath.Ext(name) == ".part":
					parts.Add(1)
					changes.notify()
				}
			}
		}
	}()
	return &parts
}
