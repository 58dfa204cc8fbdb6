package seeds

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// seedBatch is how many seeds enter the frontier in one Enqueue. A run
// holds two batches at most: the one going in and the next, read
// meanwhile. Each seed's entry is about 460 bytes: 5,000 a batch loads a
// million seeds as fast as 10,000 did, with 18 MB less at the peak.
const seedBatch = 5_000

// maxRejectedShown is how many skipped seed lines the log lists one by
// one; a last line counts the others.
const maxRejectedShown = 5

// Source is where a crawl's seeds come from: a seed file, read as the
// run starts and streamed into the frontier a batch at a time, or a few
// lines held in memory (URL arguments). Each run reads it anew.
//
// A resume does not read a file again when it has not changed since the
// job's frontier took it in (see Loader.Open).
type Source struct {
	Name  string   // how messages name it: NAME:12: reason
	Path  string   // the seed file; "" for Lines
	Lines []string // the lines of a seed file, when there is no file
}

// File is the seed file at path, named by its path.
func File(path string) Source { return Source{Name: path, Path: path} }

// Lines is seeds given as lines of a seed file, e.g. URL arguments.
func Lines(name string, lines ...string) Source {
	return Source{Name: name, Lines: lines}
}

// Store is what loading seeds needs of a job's database: its frontier
// and the fingerprint of the seed file it last took in.
type Store interface {
	// Enqueue adds the entries job does not have yet (by URL) and returns how many were new.
	Enqueue(job string, es []frontier.Entry) (int, error)
	// Counts returns how many entries of job are in each state.
	Counts(job string) (map[frontier.State]int, error)
	// SeedSource returns what job's frontier last took from its seed file, if anything.
	SeedSource(job string) (frontier.SeedSource, bool, error)
	// PutSeedSource records what job's frontier took from its seed file.
	PutSeedSource(s frontier.SeedSource) error
	// DropRemovedSeeds deletes job's seeds (depth 0, no parent) that
	// kept says the seed file no longer has, and returns how many.
	DropRemovedSeeds(job string, kept func(url string) bool) (int, error)
}

// Origins is where a Loader puts the origins of the seeds (what a crawl's
// dial policy lets them reach), and the list of them the fingerprint of a
// seed file keeps.
type Origins interface {
	Add(u *url.URL)   // the origin of a seed's URL
	AddKept(s string) // an origin as List gave it, from a stored fingerprint
	List() []string   // the origins, as a fingerprint keeps them
}

// ErrOpen marks a seed file that cannot be opened.
var ErrOpen = errors.New("seed file")

// Loader is one run's reading of its seeds: the file's fingerprint, the
// reader, the batch in hand and the origins seen. It holds at most two
// batches of seeds: while Load enqueues one, it reads the next. Open,
// then Load, and Close.
type Loader struct {
	Job     string
	Log     *slog.Logger
	Origins Origins                         // the seeds' origins go here
	Mark    func(*frontier.Entry, *url.URL) // if not nil, told of each seed's entry (a sitemap under --sitemaps)
	Tx      LoadTx                          // if not nil, seedTxBatches batches share one of its transactions

	file *os.File // nil for text, or when the file is not read
	hash hash.Hash
	sr   *Reader

	fp       frontier.SeedSource // stored once everything is enqueued; Job "" for text
	store    bool                // fp is to be stored
	size     int                 // seeds per batch; 0 is seedBatch (tests make it small)
	srcBytes int64               // the source's size, which sizes the store's cache for the load
	cur      batch               // the batch in hand
	next     batch               // the batch after it, read while cur is enqueued
	eof      bool
	skipped  bool // unchanged since its last load: not read
	prune    bool // the job took in a seed file before: its seeds no longer there are dropped
	hashes   seedSet
	added    int // entries new to the frontier
}

// Open starts reading src before the run is recorded: an unchanged seed
// file is not read at all (its origins come from the database); otherwise
// the first batch is read, so that a source without a valid seed fails
// here (ErrNone), and so does a file that cannot be opened (ErrOpen).
// The seeds' origins go to l.Origins.
func (l *Loader) Open(ctx context.Context, db Store, src Source) error {
	var r io.Reader
	if len(src.Lines) > 0 {
		text := strings.Join(src.Lines, "\n")
		r, l.srcBytes = strings.NewReader(text), int64(len(text))
	}
	if src.Path != "" {
		f, err := os.Open(src.Path)
		if err != nil {
			return fmt.Errorf("%w: %v", ErrOpen, err)
		}
		l.file = f
		if err := l.fingerprint(db, src.Name); err != nil || l.skipped {
			l.Close()
			return err
		}
		l.hash = sha256.New()
		r = io.TeeReader(f, l.hash)
	}
	if r == nil {
		return fmt.Errorf("read seeds %s: %w", src.Name, ErrNone)
	}
	l.sr = NewReader(src.Name, r)
	l.sr.OnReject = l.warn
	if err := l.fill(ctx); err != nil {
		l.Close()
		return err
	}
	if len(l.cur.seeds) == 0 {
		l.Close()
		return fmt.Errorf("read seeds %s: %w", src.Name, ErrNone)
	}
	return nil
}

// fingerprint stats the open file and decides whether the job's frontier
// already holds it: the same name, size and SHA-256 (the file is read
// once to tell), and a frontier that is not empty. Then nothing is read or enqueued and the seeds' origins are
// the stored ones.
func (l *Loader) fingerprint(db Store, name string) error {
	fi, err := l.file.Stat()
	if err != nil {
		return fmt.Errorf("read seeds %s: %w", name, err)
	}
	l.fp = frontier.SeedSource{Job: l.Job, Name: name, Size: fi.Size(), ModTime: fi.ModTime()}
	l.srcBytes = fi.Size()
	l.store = true
	prev, ok, err := db.SeedSource(l.Job)
	if err != nil || !ok {
		return err
	}
	l.prune = true
	l.hashes.grow(prev.Seeds + prev.Seeds/16) // room for the file as it was, and some more
	if prev.Name != name || prev.Size != fi.Size() {
		return nil
	}
	counts, err := db.Counts(l.Job)
	if err != nil || total(counts) == 0 {
		return err
	}
	// The content decides, not the modification time: a file replaced by
	// another of the same size and time (cp -p, rsync -t) is read again.
	sum, err := fileSHA256(l.file)
	if err != nil {
		return fmt.Errorf("read seeds %s: %w", name, err)
	}
	if sum != prev.SHA256 {
		return nil
	}
	l.skipped, l.prune = true, false
	l.store = !prev.ModTime.Equal(fi.ModTime()) // the next run's check is a stat again
	prev.ModTime = fi.ModTime()
	l.fp = prev
	for _, s := range prev.Origins {
		l.Origins.AddKept(s)
	}
	l.Log.Info("seed file unchanged since the frontier took it in: not read again",
		"seeds", name, "loaded", prev.LoadedAt.UTC().Format(time.RFC3339), "lines", prev.Seeds)
	return nil
}

func total(counts map[frontier.State]int) int {
	n := 0
	for _, c := range counts {
		n += c
	}
	return n
}

func fileSHA256(f *os.File) (string, error) {
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Load enqueues the batch in hand and every batch after it, then stores
// the file's fingerprint. ctx ending stops it between batches; what was
// enqueued is kept.
// beat is called between transactions (a crawl refreshes its lock there).
func (l *Loader) Load(ctx context.Context, db Store, now time.Time, beat func() error) (err error) {
	defer l.Close()
	tx := l.Tx
	open := false
	defer func() {
		if open {
			err = errors.Join(err, tx.EndLoad())
		}
	}()
	l.prepare(&l.cur, now)
	for n := 0; !l.skipped && len(l.cur.seeds) > 0; n++ {
		if tx != nil && !open {
			if err := tx.BeginLoad(l.srcBytes); err != nil {
				return err
			}
			open = true
		}
		next := l.readAhead(ctx, now)
		added, err := db.Enqueue(l.Job, l.cur.entries)
		l.added += added
		if err := errors.Join(err, next()); err != nil {
			return err
		}
		// The lock's heartbeat writes: only between transactions. The
		// last batch (the one after it empty) ends its transaction,
		// whether or not it was full.
		if open && (len(l.cur.seeds) == 0 || (n+1)%seedTxBatches == 0) {
			open = false
			if err := tx.EndLoad(); err != nil {
				return err
			}
		}
		if !open {
			if err := beat(); err != nil {
				return err
			}
		}
		if err := context.Cause(ctx); ctx.Err() != nil {
			return err
		}
	}
	if err := l.dropRemoved(db); err != nil {
		return err
	}
	if !l.store {
		return nil
	}
	if !l.skipped {
		l.fp.SHA256 = hex.EncodeToString(l.hash.Sum(nil))
		l.fp.Seeds = l.sr.Seeds()
		l.fp.Origins = l.Origins.List()
		l.fp.LoadedAt = now
	}
	return db.PutSeedSource(l.fp)
}

// Read returns how many valid seed lines were read.
func (l *Loader) Read() int {
	if l.sr == nil {
		return 0
	}
	return l.sr.Seeds()
}

// Added returns how many entries were new to the frontier.
func (l *Loader) Added() int { return l.added }

// Close closes the seed file, if open, and lets go of the batch's
// buffers and the seeds' hashes: a run keeps its Loader to its end (for
// Read, Added and Rejected), and they were half of what a crawl of 50,000
// seeds held.
func (l *Loader) Close() {
	if l.file != nil {
		l.file.Close()
		l.file = nil
	}
	l.cur, l.next, l.hashes = batch{}, batch{}, seedSet{}
	if l.sr != nil {
		l.sr.br, l.sr.parsed, l.sr.raw, l.sr.out = nil, nil, nil, nil // read no more
	}
}

// Rejected returns the skipped lines kept for the report.
func (l *Loader) Rejected() []Rejected {
	if l == nil || l.sr == nil {
		return nil
	}
	return l.sr.Rejected()
}

// warn logs the first skipped lines one by one.
func (l *Loader) warn(r Rejected) {
	if l.sr.RejectedCount() <= maxRejectedShown {
		WarnRejected(l.Log, r)
	}
}

// summary logs how many skipped lines warn left out.
func (l *Loader) summary() {
	n := l.sr.RejectedCount()
	if n <= maxRejectedShown {
		return
	}
	where := "the report lists them all"
	if n > MaxRejectedKept {
		where = fmt.Sprintf("the report lists the first %d", MaxRejectedKept)
	}
	more := n - maxRejectedShown
	l.Log.Warn(fmt.Sprintf("... and %d more seed lines skipped (%s)", more, where), "more", more)
}

// WarnRejected logs one skipped seed line as NAME:LINE: reason.
func WarnRejected(log *slog.Logger, r Rejected) {
	log.Warn("seed line skipped", "seed", r.String(), "file", r.File, "line", r.Line, "reason", r.Reason)
}
