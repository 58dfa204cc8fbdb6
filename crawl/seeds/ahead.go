package seeds

import (
	"cmp"
	"context"
	"maps"
	"net/url"
	"slices"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/urls"
)

// batch is one batch of seeds, as read and as the frontier's entries.
type batch struct {
	seeds   []Seed
	urls    []*url.URL       // seeds' URLs as the reader parsed them
	hosts   []string         // seeds' hosts, "" for a URL that does not parse
	entries []frontier.Entry // made of seeds, host by host: what is enqueued
}

// fill reads the next batch of seeds into the batch in hand, a round of
// lines at a time, stopping early when ctx ends.
func (l *Loader) fill(ctx context.Context) error { return l.read(ctx, &l.cur) }

// read reads the next batch of seeds into b (emptied first); at the end
// of the file it sets l.eof.
func (l *Loader) read(ctx context.Context, b *batch) error {
	b.seeds, b.urls = b.seeds[:0], b.urls[:0]
	size := cmp.Or(l.size, seedBatch)
	for len(b.seeds) < size && !l.eof {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		var more bool
		b.seeds, b.urls, more = l.sr.nextBatch(min(size-len(b.seeds), parseRound), b.seeds, b.urls)
		if !more {
			l.eof = true
			l.summary()
			return l.sr.Err()
		}
	}
	return nil
}

// readAhead starts reading and preparing the batch after the one in
// hand, into l.next, while the caller enqueues the one in hand: the
// database's work and the parsing each take a core. The function it
// returns waits for that and makes l.next the batch in hand (empty past
// the end of the file). Meanwhile only the reading goroutine touches the
// reader, l.Origins, l.Mark and the seeds' hashes.
func (l *Loader) readAhead(ctx context.Context, now time.Time) func() error {
	done := make(chan error, 1)
	if l.eof {
		l.next.seeds, l.next.entries = l.next.seeds[:0], l.next.entries[:0]
		done <- nil
	} else {
		go func() {
			err := l.read(ctx, &l.next)
			l.prepare(&l.next, now)
			done <- err
		}()
	}
	return func() error {
		err := <-done
		l.cur, l.next = l.next, l.cur
		return err
	}
}

// prepare makes b's seeds into frontier entries, host by host (hosts
// in name order, each host's seeds in file order), and tells l.Origins,
// l.Mark and the seeds' hashes of each. The store's indexes lead with
// the host, so a batch so sorted inserts into a few places at a time: a
// quarter less CPU than the file's interleaving of 200 hosts.
func (l *Loader) prepare(b *batch, now time.Time) {
	// Where each host's entries start: a stable counting sort.
	b.hosts = b.hosts[:0]
	at := map[string]int{}
	for i := range b.seeds {
		h := ""
		if u := b.url(i); u != nil {
			h = urls.Host(u)
			at[h]++
		}
		b.hosts = append(b.hosts, h)
	}
	hosts := slices.Sorted(maps.Keys(at))
	n := 0
	for _, h := range hosts {
		n, at[h] = n+at[h], n
	}
	b.entries = slices.Grow(b.entries[:0], n)[:n]
	for i, s := range b.seeds {
		u := b.urls[i]
		if u == nil {
			continue
		}
		l.Origins.Add(u)
		if l.prune {
			l.hashes.add(s.URL)
		}
		h := b.hosts[i]
		k := at[h]
		at[h] = k + 1
		b.entries[k] = frontier.Entry{Job: l.Job, URL: s.URL, Host: h, State: frontier.Queued, Priority: s.Priority, NextAt: now}
		if l.Mark != nil {
			l.Mark(&b.entries[k], u)
		}
	}
}

// url returns seed i's URL as the reader parsed it, or else parses it;
// nil when it does not parse (the reader normalised it, so it does).
func (b *batch) url(i int) *url.URL {
	if b.urls[i] == nil {
		b.urls[i], _ = url.Parse(b.seeds[i].URL)
	}
	return b.urls[i]
}
