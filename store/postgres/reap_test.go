package postgres

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// deadPID returns the pid of a process that has ended.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatalf("run a short process: %v", err)
	}
	return cmd.Process.Pid
}

// A worker that starts takes back at once what a worker of its machine
// whose process is gone held in flight, without waiting out the lease;
// a live sibling on the same machine and job keeps its entries, and a
// worker of another machine keeps them until its lease runs out.
func TestAcquireTakesBackTheLeasesOfADeadWorker(t *testing.T) {
	t.Parallel()
	u := newSchema(t)
	clock := newClock()
	db := mustOpen(t, u, clock)
	seed(t, db, "j", 10, 1)
	gone := deadPID(t)
	lease := func(hostname string, pid, n int) (int64, []frontier.Entry) {
		w, err := db.Register(frontier.Holder{Hostname: hostname, PID: pid, Job: "j"})
		if err != nil {
			t.Fatal(err)
		}
		es, err := leaseFor(db, "j", "", w.ID, n, DefaultLeaseTTL)
		if err != nil || len(es) != n {
			t.Fatalf("lease %d for %s/%d: %d, %v", n, hostname, pid, len(es), err)
		}
		return w.ID, es
	}
	deadID, deadHeld := lease("m1", gone, 4)
	_, _ = lease("m1", os.Getpid(), 3) // a live sibling
	_, _ = lease("m2", gone, 2)        // another machine's pid means nothing here

	clock.Advance(time.Second)
	db2 := mustOpen(t, u, clock)
	if err := db2.Acquire(frontier.Holder{Hostname: "m1", PID: os.Getpid(), Job: "j"}); err != nil {
		t.Fatal(err)
	}
	got, err := db2.Take("j", "h0.test", clock.Now(), 100)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int64]bool{}
	for _, e := range deadHeld {
		want[e.ID] = true
	}
	if len(got) != len(deadHeld)+1 {
		t.Errorf("took %d entries, want the dead worker's %d and the 1 left queued", len(got), len(deadHeld))
	}
	for _, e := range got {
		delete(want, e.ID)
	}
	if len(want) > 0 {
		t.Errorf("the dead worker's entries %v were not taken back", want)
	}
	ws, err := db2.Workers(time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range ws {
		if w.ID == deadID {
			t.Errorf("the dead worker %d is still registered", deadID)
		}
	}
	if len(ws) != 3 {
		t.Errorf("%d workers registered, want 3 (the sibling, the other machine's, the new one)", len(ws))
	}
}
