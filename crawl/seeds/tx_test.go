package seeds

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/fetch"
	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/sitemap"
	"github.com/polite-crawler/polite/crawl/urls"
	"github.com/polite-crawler/polite/store"
)

// txSpy is a store.DB that records the load's transactions, and whether
// one was open at each Enqueue and each heartbeat.
type txSpy struct {
	*store.DB
	open      bool
	begins    int
	perTx     []int // Enqueue calls in each transaction
	outsideTx int   // Enqueue calls with no transaction open
}

func (s *txSpy) BeginLoad(bytes int64) error {
	s.open = true
	s.begins++
	s.perTx = append(s.perTx, 0)
	return s.DB.BeginLoad(bytes)
}

func (s *txSpy) EndLoad() error {
	s.open = false
	return s.DB.EndLoad()
}

// PutSeedSource refuses to store while a load's transaction is open: the
// store's writer would wait for that transaction forever.
func (s *txSpy) PutSeedSource(src frontier.SeedSource) error {
	if s.open {
		return errors.New("seed source stored while the load's transaction is open")
	}
	return s.DB.PutSeedSource(src)
}

func (s *txSpy) Enqueue(job string, es []frontier.Entry) (int, error) {
	if s.open {
		s.perTx[len(s.perTx)-1]++
	} else {
		s.outsideTx++
	}
	return s.DB.Enqueue(job, es)
}

// TestSeedLoadTransactions: with a LoadTx, seedTxBatches
// batches share a transaction, the last one is committed at the end of
// the file (whether or not the last batch is full), and the lock's
// heartbeat never comes while one is open.
func TestSeedLoadTransactions(t *testing.T) {
	t.Parallel()
	const size = 500 // seeds per batch: the transactions, not the volume, are under test
	const batches = seedTxBatches + 3
	for name, lines := range map[string]int{"last batch short": (batches-1)*size + 17, "last batch full": batches * size} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			checkLoadTransactions(t, size, batches, lines)
		})
	}
}

func checkLoadTransactions(t *testing.T, size, batches, lines int) {
	db, err := store.Open(filepath.Join(t.TempDir(), "polite.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	spy := &txSpy{DB: db}
	gen := &genSeeds{n: lines, line: func(i int) string { return fmt.Sprintf("http://h%d.example/p/%d", i%7, i) }}
	l := &Loader{size: size, Job: "j", Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Origins: origins{}, sr: NewReader("gen", gen), Tx: spy}
	ctx := context.Background()
	if err := l.fill(ctx); err != nil {
		t.Fatal(err)
	}
	beats, beatsInTx := 0, 0
	beat := func() error {
		beats++
		if spy.open {
			beatsInTx++
		}
		return nil
	}
	l.store, l.fp, l.hash = true, frontier.SeedSource{Job: "j", Name: "gen"}, sha256.New()
	if err := l.Load(ctx, spy, time.Now(), beat); err != nil {
		t.Fatalf("load: %v", err)
	}
	if spy.outsideTx != 0 || len(spy.perTx) != 2 || spy.perTx[0] != seedTxBatches || spy.perTx[1] != batches-seedTxBatches {
		t.Errorf("Enqueue calls per transaction %v, %d outside one; want [%d %d], none outside",
			spy.perTx, spy.outsideTx, seedTxBatches, batches-seedTxBatches)
	}
	if spy.open || beatsInTx != 0 || beats == 0 {
		t.Errorf("after the load: a transaction open %v; %d heartbeats, %d of them in a transaction; want closed, some, none",
			spy.open, beats, beatsInTx)
	}
	if counts, err := db.Counts("j"); err != nil || counts[frontier.Queued] != lines || l.added != lines {
		t.Errorf("queued %v (%v), added %d; want %d", counts, err, l.added, lines)
	}
}

// TestSeedParsedMatchesItsURL: the parsed URL the reader hands the
// loader with each seed (origin, host key, sitemap or not) is its URL's.
func TestSeedParsedMatchesItsURL(t *testing.T) {
	t.Parallel()
	lines := "\ufeffHTTP://Example.COM:80/a/../Sitemap.xml\n" +
		"https://[::1]:8443/%7Euser/x%2fy?b=1&a=%41 3\n" +
		"http://xn--bcher-kva.example/b%C3%BCcher#frag\n" +
		"not a url\n" +
		"http://127.0.0.1:9/./p//q?\n"
	sr := NewReader("t", strings.NewReader(lines))
	n := 0
	for s, ok := sr.Next(); ok; s, ok = sr.Next() {
		n++
		p := sr.parsed
		if p == nil {
			continue // the loader parses it
		}
		u, err := url.Parse(s.URL)
		if err != nil || p.String() != s.URL || fetch.OriginOf(p) != fetch.OriginOf(u) ||
			urls.Host(p) != urls.Host(u) || p.Path != u.Path || sitemap.Named(p) != sitemap.Named(u) {
			t.Errorf("seed %q comes with %#v, its URL parses as %#v (%v)", s.URL, p, u, err)
		}
	}
	if n != 4 {
		t.Errorf("%d seeds read, want 4 (%v)", n, sr.Rejected())
	}
}
