package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestProfileWritesWhatTheEnvironmentAsks: POLITE_CPUPROFILE and
// POLITE_MEMPROFILE each get a profile (gzip-compressed protobuf, as
// go tool pprof reads) once the returned stop runs; without them nothing
// is written.
func TestProfileWritesWhatTheEnvironmentAsks(t *testing.T) {
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.prof"), filepath.Join(dir, "mem.prof")
	t.Setenv("POLITE_CPUPROFILE", cpu)
	t.Setenv("POLITE_MEMPROFILE", mem)
	profile()()
	for _, p := range []string{cpu, mem} {
		b, err := os.ReadFile(p)
		if err != nil || !bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
			t.Errorf("%s: %d bytes (%v), want a gzip-compressed profile", filepath.Base(p), len(b), err)
		}
	}

	t.Setenv("POLITE_CPUPROFILE", "")
	t.Setenv("POLITE_MEMPROFILE", "")
	other := t.TempDir()
	t.Chdir(other)
	profile()()
	if names, err := os.ReadDir(other); err != nil || len(names) != 0 {
		t.Errorf("without the variables: %d files written (%v), want none", len(names), err)
	}
}
