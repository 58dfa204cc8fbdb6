package seeds

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/fetch"
	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/store"
)

// genSeeds is a seed file made as it is read: line i (from 0) is
// line(i). It counts the bytes it gave (read while the loader enqueues).
type genSeeds struct {
	n, next int
	line    func(i int) string
	pending []byte
	read    atomic.Int64
}

func (g *genSeeds) Read(p []byte) (int, error) {
	for len(g.pending) < len(p) && g.next < g.n {
		g.pending = append(g.pending, g.line(g.next)+"\n"...)
		g.next++
	}
	if len(g.pending) == 0 {
		return 0, io.EOF
	}
	k := copy(p, g.pending)
	g.pending = g.pending[k:]
	g.read.Add(int64(k))
	return k, nil
}

// origins is the Origins of a crawl's dial policy in these tests: each
// seed's origin as the dial policy keys it, as the database keeps it.
type origins map[string]bool

func (o origins) Add(u *url.URL)   { o[fetch.OriginOf(u).String()] = true }
func (o origins) AddKept(s string) { o[s] = true }
func (o origins) List() []string   { return slices.Sorted(maps.Keys(o)) }

// enqueueSpy records each Enqueue: its size and how much of the seed file
// had been read when it began and when it returned.
type enqueueSpy struct {
	Store
	src             *genSeeds
	sizes           []int
	readAt, readEnd []int64
}

func (s *enqueueSpy) Enqueue(job string, es []frontier.Entry) (int, error) {
	s.sizes = append(s.sizes, len(es))
	s.readAt = append(s.readAt, s.src.read.Load())
	n, err := s.Store.Enqueue(job, es)
	s.readEnd = append(s.readEnd, s.src.read.Load())
	return n, err
}

// TestSeedLoadHoldsTwoBatches: the loader enqueues a batch at a time and,
// from the start of that Enqueue to its end, has read no more than that
// batch and the next (plus the reader's buffer); URLs that come back in
// later batches, with another priority, are kept once at their first
// line.
func TestSeedLoadHoldsTwoBatches(t *testing.T) {
	t.Parallel()
	const distinct = seedBatch + seedBatch/2
	const lines = 2*seedBatch + seedBatch/2 + 7
	line := func(i int) string {
		// Lines past distinct repeat earlier URLs (across batches), and
		// every tenth line repeats the one before it (within a batch).
		k := i % distinct
		if i%10 == 9 {
			k = (i - 1) % distinct
		}
		return fmt.Sprintf("http://h%d.example:8080/p/%07d %d", k/10%200, k, i)
	}
	want := map[string]bool{}
	for i := range lines {
		k := i % distinct
		if i%10 == 9 {
			k = (i - 1) % distinct
		}
		want[fmt.Sprintf("http://h%d.example:8080/p/%07d", k/10%200, k)] = true
	}
	db, err := store.Open(filepath.Join(t.TempDir(), "polite.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	gen := &genSeeds{n: lines, line: line}
	spy := &enqueueSpy{Store: db, src: gen}
	seen := origins{}
	l := &Loader{Job: "j", Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Origins: seen, sr: NewReader("gen", gen)}
	ctx := context.Background()
	if err := l.fill(ctx); err != nil {
		t.Fatal(err)
	}
	if err := l.Load(ctx, spy, time.Now(), func() error { return nil }); err != nil {
		t.Fatalf("load: %v", err)
	}
	lineLen := int64(0)
	for i := range lines {
		lineLen = max(lineLen, int64(len(line(i))+1))
	}
	if len(spy.sizes) != 3 {
		t.Errorf("%d Enqueue calls %v, want 3", len(spy.sizes), spy.sizes)
	}
	for k, n := range spy.sizes {
		if n > seedBatch {
			t.Errorf("Enqueue %d: %d entries, want at most %d", k, n, seedBatch)
		}
		// The next batch is read while this one goes in, and no more.
		limit := int64(k+2)*seedBatch*lineLen + 64<<10 + lineLen
		if got := max(spy.readAt[k], spy.readEnd[k]); got > limit {
			t.Errorf("Enqueue %d: %d bytes of the file read, want at most %d (two batches more)", k, got, limit)
		}
	}
	counts, err := db.Counts("j")
	if err != nil || counts[frontier.Queued] != len(want) || l.added != len(want) {
		t.Errorf("queued %v (%v), added %d; want %d", counts, err, l.added, len(want))
	}
	// The URL of line 5 comes back at line distinct+5 with another priority.
	e, err := db.Get("j", "http://h0.example:8080/p/0000005")
	if err != nil || e.Priority != 5 {
		t.Errorf("entry of a repeated URL: priority %d (%v), want 5 (its first line)", e.Priority, err)
	}
	if len(seen) != 200 {
		t.Errorf("%d origins, want 200", len(seen))
	}
}

// TestPrepareSortsByHost: a batch's entries go to the store host by host,
// the hosts in name order and each host's seeds in file order; Mark sees
// each entry where it is enqueued, and every seed's origin is added.
func TestPrepareSortsByHost(t *testing.T) {
	t.Parallel()
	lines := []string{"http://b.example/1", "http://a.example/1", "http://c.example/1", "http://a.example/2",
		"http://b.example/2", "http://a.example/3"}
	b := batch{urls: make([]*url.URL, len(lines))}
	for i, s := range lines {
		b.seeds = append(b.seeds, Seed{URL: s, Priority: i, Line: i + 1})
	}
	b.urls[0], _ = url.Parse(lines[0]) // the reader's parse; the others are parsed by prepare
	seen := origins{}
	l := &Loader{Job: "j", Origins: seen, Mark: func(e *frontier.Entry, u *url.URL) { e.Parent = "marked " + u.Path }}
	now := time.Unix(1_700_000_000, 0)
	l.prepare(&b, now)
	var got []string
	for _, e := range b.entries {
		got = append(got, e.URL)
		if e.Parent != "marked "+strings.TrimPrefix(e.URL, "http://"+e.Host) || e.Job != "j" || !e.NextAt.Equal(now) ||
			e.State != frontier.Queued || e.Priority != slices.Index(lines, e.URL) {
			t.Errorf("entry %+v: not the seed's, or Mark's change was lost", e)
		}
	}
	want := []string{"http://a.example/1", "http://a.example/2", "http://a.example/3", "http://b.example/1",
		"http://b.example/2", "http://c.example/1"}
	if !slices.Equal(got, want) {
		t.Errorf("entries %v, want %v", got, want)
	}
	if len(seen) != 3 {
		t.Errorf("origins %v, want 3", seen.List())
	}
}
