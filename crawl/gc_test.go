package crawl

import (
	"runtime/debug"
	"testing"
)

// gcPercent reads the collector's setting.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// TestTightGCRestoresAfterTheLastRun: runs ending at once in one process
// hold the collector tight together, and the last to finish restores the
// setting that was there before the first (not the first's 20). Not
// parallel: the setting is the process's.
func TestTightGCRestoresAfterTheLastRun(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(150))
	a := tightGC()
	b := tightGC()
	if p := gcPercent(); p != 20 {
		t.Fatalf("while two runs end: GC percent %d, want 20", p)
	}
	a()
	if p := gcPercent(); p != 20 {
		t.Errorf("one run of two done: GC percent %d, want 20 still", p)
	}
	b()
	if p := gcPercent(); p != 150 {
		t.Errorf("both done: GC percent %d, want 150, as before", p)
	}
}
