package robotscache

import (
	"testing"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// countingCache is a memCache that counts the PutRobots calls reaching it.
type countingCache struct {
	memCache
	puts int
}

func (c *countingCache) PutRobots(cs ...frontier.RobotsCopy) error {
	c.puts++
	return c.memCache.PutRobots(cs...)
}

// TestDeferredStoresOnFlushInOneCall: copies put between two flushes reach
// the store in one call, the newest of each host; until then reads see
// them, and a copy without a host is refused at once.
func TestDeferredStoresOnFlushInOneCall(t *testing.T) {
	store := &countingCache{memCache: memCache{"old.test": {Host: "old.test", Status: 404}}}
	d := Defer(store)
	for _, c := range []frontier.RobotsCopy{{Host: "a.test", Status: 503}, {Host: "b.test", Status: 200}, {Host: "a.test", Status: 200}} {
		if err := d.PutRobots(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.PutRobots(frontier.RobotsCopy{}); err == nil {
		t.Error("PutRobots without a host: no error")
	}
	if store.puts != 0 || len(store.memCache) != 1 {
		t.Fatalf("before Flush: %d calls, %d copies stored; want none of this run's", store.puts, len(store.memCache))
	}
	if c, ok, err := d.Robots("a.test"); err != nil || !ok || c.Status != 200 {
		t.Errorf("Robots(a.test) before Flush = %+v, %v, %v; want the newest waiting copy (200)", c, ok, err)
	}
	if c, ok, err := d.Robots("old.test"); err != nil || !ok || c.Status != 404 {
		t.Errorf("Robots(old.test) = %+v, %v, %v; want the stored copy", c, ok, err)
	}
	if err := d.Flush(); err != nil {
		t.Fatal(err)
	}
	if store.puts != 1 || store.memCache["a.test"].Status != 200 || store.memCache["b.test"].Status != 200 {
		t.Errorf("after Flush: %d calls, stored %v; want one call storing a.test 200 and b.test 200", store.puts, store.memCache)
	}
	if err := d.Flush(); err != nil || store.puts != 1 {
		t.Errorf("a Flush with nothing waiting: %v, %d calls; want no call", err, store.puts)
	}
}
