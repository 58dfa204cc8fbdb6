package store_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/store"
)

// manyEntries builds n entries spread over hosts, with priorities cycling
// 0..3, starting at number from.
func manyEntries(from, n, hosts int) []frontier.Entry {
	es := make([]frontier.Entry, n)
	for i := range es {
		k := from + i
		host := fmt.Sprintf("h%02d.example", k%hosts)
		es[i] = frontier.Entry{URL: fmt.Sprintf("https://%s/page/%d", host, k), Host: host, Priority: k % 4}
	}
	return es
}

func TestFrontierHundredThousand(t *testing.T) {
	const total, hosts, batch = 100_000, 10, 4_000
	db := mustOpen(t)
	for from := 0; from < total; from += batch {
		n, err := db.Enqueue("big", manyEntries(from, batch, hosts))
		if err != nil {
			t.Fatalf("Enqueue batch at %d: %v", from, err)
		}
		if n != batch {
			t.Fatalf("Enqueue batch at %d = %d new, want %d", from, n, batch)
		}
	}
	// Enqueueing a batch again adds nothing.
	if n, err := db.Enqueue("big", manyEntries(0, batch, hosts)); err != nil || n != 0 {
		t.Fatalf("Enqueue again = %d, %v; want 0, nil", n, err)
	}

	hs, err := db.QueuedHosts("big")
	if err != nil {
		t.Fatalf("QueuedHosts: %v", err)
	}
	if len(hs) != hosts {
		t.Fatalf("QueuedHosts = %d hosts, want %d", len(hs), hosts)
	}
	for _, h := range hs {
		if h.Queued != total/hosts {
			t.Errorf("QueuedHosts %s = %d queued, want %d", h.Host, h.Queued, total/hosts)
		}
	}

	// Take everything of one host in chunks: priorities never rise, and
	// within a priority ids grow.
	host := hs[3].Host
	seen := make(map[string]bool)
	lastPrio, lastID := 1<<30, int64(0)
	for {
		es, err := db.Take("big", host, t0, 1_000)
		if err != nil {
			t.Fatalf("Take: %v", err)
		}
		if len(es) == 0 {
			break
		}
		for _, e := range es {
			if e.Host != host || e.State != frontier.InFlight {
				t.Fatalf("took %+v, want an in-flight entry of %s", e, host)
			}
			if seen[e.URL] {
				t.Fatalf("took %s twice", e.URL)
			}
			seen[e.URL] = true
			if e.Priority > lastPrio || (e.Priority == lastPrio && e.ID <= lastID) {
				t.Fatalf("took %s (priority %d, id %d) after priority %d, id %d", e.URL, e.Priority, e.ID, lastPrio, lastID)
			}
			lastPrio, lastID = e.Priority, e.ID
		}
	}
	if len(seen) != total/hosts {
		t.Errorf("took %d entries of %s, want %d", len(seen), host, total/hosts)
	}
	counts, err := db.Counts("big")
	if err != nil {
		t.Fatalf("Counts: %v", err)
	}
	if counts[frontier.Queued] != total-total/hosts || counts[frontier.InFlight] != total/hosts {
		t.Errorf("Counts = %v, want %d queued, %d in flight", counts, total-total/hosts, total/hosts)
	}
	hs, err = db.QueuedHosts("big")
	if err != nil {
		t.Fatalf("QueuedHosts: %v", err)
	}
	if len(hs) != hosts-1 {
		t.Errorf("QueuedHosts after draining %s = %d hosts, want %d", host, len(hs), hosts-1)
	}
}

// BenchmarkEnqueueTakeUpdate runs a frontier's life in batches of 4,000:
// enqueue, take per host, write back as done.
func BenchmarkEnqueueTakeUpdate(b *testing.B) {
	const batch, hosts = 4_000, 20
	db, err := store.Open(b.TempDir() + "/bench.db")
	if err != nil {
		b.Fatalf("Open: %v", err)
	}
	defer db.Close()
	now := time.Now()
	next := 0
	b.ResetTimer()
	for b.Loop() {
		if _, err := db.Enqueue("bench", manyEntries(next, batch, hosts)); err != nil {
			b.Fatalf("Enqueue: %v", err)
		}
		next += batch
		for h := range hosts {
			es, err := db.Take("bench", fmt.Sprintf("h%02d.example", h), now, batch)
			if err != nil {
				b.Fatalf("Take: %v", err)
			}
			for i := range es {
				es[i].State = frontier.Done
				es[i].LastStatus = 200
				es[i].FetchedAt = now
			}
			if err := db.Update(es); err != nil {
				b.Fatalf("Update: %v", err)
			}
		}
	}
	b.ReportMetric(float64(next)/b.Elapsed().Seconds(), "entries/s")
}

func TestEnqueueBatchSpeed(t *testing.T) {
	// Not a timing test: it logs how long a 4,000-entry batch takes, so a
	// regression shows in -v output without failing a slow machine.
	db := mustOpen(t)
	start := time.Now()
	n, err := db.Enqueue("speed", manyEntries(0, 4_000, 20))
	if err != nil || n != 4_000 {
		t.Fatalf("Enqueue = %d, %v; want 4000, nil", n, err)
	}
	t.Logf("enqueued 4,000 entries in %s", time.Since(start))
}

// BenchmarkTake takes the queued entries of 200 hosts, 20 each, a host at
// a time, as a crawl's first pass over them does.
func BenchmarkTake(b *testing.B) {
	const hosts, per = 200, 20
	db, err := store.Open(b.TempDir() + "/bench.db")
	if err != nil {
		b.Fatalf("Open: %v", err)
	}
	defer db.Close()
	now := time.Now()
	job := 0
	for b.Loop() {
		b.StopTimer()
		job++
		name := fmt.Sprintf("bench-%d", job)
		es := manyEntries(0, hosts*per, hosts)
		for i := range es {
			es[i].Job = name
		}
		if _, err := db.Enqueue(name, es); err != nil {
			b.Fatalf("Enqueue: %v", err)
		}
		b.StartTimer()
		for h := range hosts {
			got, err := db.Take(name, fmt.Sprintf("h%02d.example", h), now, 32)
			if err != nil || len(got) != per {
				b.Fatalf("Take: %d entries, %v; want %d", len(got), err, per)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*hosts), "us/take")
}
