package store_test

import (
	"fmt"
	"testing"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/store"
)

// TestLoadSharesOneTransaction: the Enqueue calls of a load are one
// transaction, which readers see only once EndLoad commits it; a URL
// given twice is kept once, at its first entry.
func TestLoadSharesOneTransaction(t *testing.T) {
	db := mustOpen(t)
	if err := db.EndLoad(); err != nil {
		t.Fatalf("EndLoad without a load = %v, want nil", err)
	}
	if err := db.BeginLoad(0); err != nil {
		t.Fatal(err)
	}
	if err := db.BeginLoad(0); err == nil {
		t.Fatal("a second BeginLoad during a load succeeded")
	}
	first := manyEntries(0, 150, 3)
	n1, err1 := db.Enqueue("j", first)
	again := manyEntries(100, 150, 3) // 50 URLs of the first call
	again[0].Priority = 9
	n2, err2 := db.Enqueue("j", again)
	if err1 != nil || err2 != nil || n1 != 150 || n2 != 100 {
		t.Fatalf("Enqueue in a load = %d, %v and %d, %v; want 150 and 100 new", n1, err1, n2, err2)
	}
	if counts, err := db.Counts("j"); err != nil || len(counts) != 0 {
		t.Fatalf("counts before EndLoad = %v, %v; want nothing visible", counts, err)
	}
	if err := db.EndLoad(); err != nil {
		t.Fatal(err)
	}
	if counts, err := db.Counts("j"); err != nil || counts[frontier.Queued] != 250 {
		t.Fatalf("counts after EndLoad = %v, %v; want 250 queued", counts, err)
	}
	if e, err := db.Get("j", again[0].URL); err != nil || e.Priority != first[100].Priority {
		t.Errorf("entry given twice: priority %d (%v), want %d (its first)", e.Priority, err, first[100].Priority)
	}
}

// TestLoadFailureRollsBack: an Enqueue that fails in a load rolls the
// whole load back and ends it; the database takes writes again.
func TestLoadFailureRollsBack(t *testing.T) {
	db := mustOpen(t)
	if err := db.BeginLoad(0); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Enqueue("j", manyEntries(0, 10, 2)); err != nil {
		t.Fatal(err)
	}
	bad := manyEntries(10, 10, 2)
	bad[3].Host = ""
	if _, err := db.Enqueue("j", bad); err == nil {
		t.Fatal("Enqueue of an entry without a host succeeded")
	}
	if err := db.EndLoad(); err != nil {
		t.Fatalf("EndLoad after a failed Enqueue = %v, want nil (nothing left to commit)", err)
	}
	if counts, err := db.Counts("j"); err != nil || len(counts) != 0 {
		t.Fatalf("counts after a failed load = %v, %v; want nothing", counts, err)
	}
	if n, err := db.Enqueue("j", manyEntries(0, 5, 2)); err != nil || n != 5 {
		t.Fatalf("Enqueue after a failed load = %d, %v; want 5", n, err)
	}
}

// TestEnqueueNewAndFullEntries: a chunk of new entries (seeds, links)
// and one with a fetch's fields store every field given, whichever
// statement inserts them.
func TestEnqueueNewAndFullEntries(t *testing.T) {
	db := mustOpen(t)
	es := manyEntries(0, 130, 4)
	for i := range es {
		es[i].Depth, es[i].Hops, es[i].Parent, es[i].NextAt = i%3, i%2, fmt.Sprintf("https://p.example/%d", i), t0
	}
	es[70].ETag, es[70].LastStatus, es[70].Bytes, es[70].Attempts = `"v1"`, 200, 42, 2
	if n, err := db.Enqueue("j", es); err != nil || n != len(es) {
		t.Fatalf("Enqueue = %d, %v; want %d", n, err, len(es))
	}
	for _, i := range []int{0, 63, 64, 70, 129} {
		got, err := db.Get("j", es[i].URL)
		want := es[i]
		if err != nil || got.Host != want.Host || got.State != frontier.Queued || got.Priority != want.Priority ||
			got.Depth != want.Depth || got.Hops != want.Hops || got.Parent != want.Parent || !got.NextAt.Equal(t0) ||
			got.ETag != want.ETag || got.LastStatus != want.LastStatus || got.Bytes != want.Bytes || got.Attempts != want.Attempts {
			t.Errorf("entry %d = %+v, %v; want %+v", i, got, err, want)
		}
	}
}

// TestEnqueueAlikeEntries: entries that share all but their URL, host
// and priority (a seed file's batch) store each their own and the shared
// values, a full chunk's and a short one's, and a URL the job has stays
// as it was.
func TestEnqueueAlikeEntries(t *testing.T) {
	db := mustOpen(t)
	if _, err := db.Enqueue("j", manyEntries(5, 1, 4)); err != nil {
		t.Fatal(err)
	}
	es := manyEntries(0, 130, 4)
	for i := range es {
		es[i].State, es[i].NextAt, es[i].Depth, es[i].Hops = frontier.Deferred, t0, 2, 1
		es[i].Parent, es[i].Kind = "https://p.example/", frontier.Sitemap
	}
	if n, err := db.Enqueue("j", es); err != nil || n != len(es)-1 {
		t.Fatalf("Enqueue = %d, %v; want %d", n, err, len(es)-1)
	}
	for _, i := range []int{0, 1, 5, 63, 64, 65, 128, 129} {
		got, err := db.Get("j", es[i].URL)
		want := es[i]
		if i == 5 {
			want = manyEntries(5, 1, 4)[0]
			want.State, want.Kind = frontier.Queued, frontier.Page
		}
		if err != nil || got.Host != want.Host || got.State != want.State || got.Priority != want.Priority ||
			got.Depth != want.Depth || got.Hops != want.Hops || got.Parent != want.Parent || got.Kind != want.Kind ||
			!got.NextAt.Equal(want.NextAt) {
			t.Errorf("entry %d = %+v, %v; want %+v", i, got, err, want)
		}
	}
}

// TestLoadCacheShrinksOnceTheCrawlRecords: a seed load works with a page
// cache of about its seed file's size, from the crawl's 8 MiB to 32 MiB;
// the crawl's first record shrinks it back, so a long crawl's memory does
// not carry the load's.
func TestLoadCacheShrinksOnceTheCrawlRecords(t *testing.T) {
	db := mustOpen(t)
	cache := func(step string, want int) {
		t.Helper()
		if got, err := store.WriterCacheKiB(db); err != nil || got != want {
			t.Fatalf("%s: writer cache = %d KiB (%v), want %d", step, got, err, want)
		}
	}
	cache("opened", 8<<10)
	for i, load := range []struct {
		bytes int64
		want  int
	}{{2 << 20, 8 << 10}, {12 << 20, 12 << 10}, {100 << 20, 32 << 10}} {
		if err := db.BeginLoad(load.bytes); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Enqueue("j", manyEntries(i*10, 10, 2)); err != nil {
			t.Fatal(err)
		}
		if err := db.EndLoad(); err != nil {
			t.Fatal(err)
		}
		cache(fmt.Sprintf("after a load of %d MiB", load.bytes>>20), load.want)
	}
	if _, err := db.Record("j", manyEntries(30, 1, 1), nil, nil); err != nil {
		t.Fatal(err)
	}
	cache("after the first record", 8<<10)
	if n, err := db.Record("j", manyEntries(31, 1, 1), nil, nil); err != nil || n != 1 {
		t.Fatalf("second record = %d, %v; want 1 added", n, err)
	}
	cache("after the second record", 8<<10)
}

// TestReleaseMemoryKeepsTheDatabaseWorking: after ReleaseMemory (the
// writer's pages let go of, the idle readers closed) the store reads and
// writes as before, readers at once included, and the writer's cache keeps
// its size.
func TestReleaseMemoryKeepsTheDatabaseWorking(t *testing.T) {
	db := mustOpen(t)
	if _, err := db.Enqueue("j", manyEntries(0, 200, 4)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Counts("j"); err != nil { // a reader opened, left idle
		t.Fatal(err)
	}
	if err := db.ReleaseMemory(); err != nil {
		t.Fatal(err)
	}
	if got, err := store.WriterCacheKiB(db); err != nil || got != 8<<10 {
		t.Errorf("writer cache after ReleaseMemory = %d KiB (%v), want 8192", got, err)
	}
	if n, err := db.Record("j", manyEntries(200, 1, 1), nil, nil); err != nil || n != 1 {
		t.Errorf("record after ReleaseMemory = %d, %v; want 1 added", n, err)
	}
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			counts, err := db.Counts("j")
			if err == nil && counts[frontier.Queued] != 201 {
				err = fmt.Errorf("counts %v, want 201 queued", counts)
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Errorf("read after ReleaseMemory: %v", err)
		}
	}
}
