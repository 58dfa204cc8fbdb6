//go:build unix

package cmd

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// privateFile says why fi may not hold secrets: owned by another user, or
// readable or writable by group or others.
func privateFile(fi fs.FileInfo) error {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("owned by uid %d, not by you (%d)", st.Uid, os.Getuid())
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("mode %04o grants access to group or others", perm)
	}
	return nil
}
