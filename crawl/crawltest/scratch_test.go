package crawltest

import (
	"os"
	"testing"
)

// ScratchInRAM keeps a TMPDIR the user set, and without one points it at
// what ramDir found: a writable folder, or nothing (TMPDIR left unset).
func TestScratchInRAM(t *testing.T) {
	mine := t.TempDir()
	t.Setenv("TMPDIR", mine)
	ScratchInRAM()
	if got := os.Getenv("TMPDIR"); got != mine {
		t.Errorf("TMPDIR set to %s: ScratchInRAM made it %s, want it kept", mine, got)
	}

	t.Setenv("TMPDIR", "")
	ScratchInRAM()
	got, want := os.Getenv("TMPDIR"), ramDir()
	if got != want {
		t.Fatalf("TMPDIR unset: ScratchInRAM made it %q, want ramDir's %q", got, want)
	}
	if got == "" {
		t.Logf("no RAM-backed folder with room here: the tests keep the system's temporary folder")
		return
	}
	f, err := os.CreateTemp(got, "scratch-")
	if err != nil {
		t.Fatalf("TMPDIR %s: %v, want a folder the tests can write", got, err)
	}
	f.Close()
	os.Remove(f.Name())
}
