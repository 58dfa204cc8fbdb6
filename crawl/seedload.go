package crawl

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/polite-crawler/polite/crawl/fetch"
	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/urls"
)

// seedBatch is how many seeds enter the frontier in one transaction, and
// the most a run holds in memory at once.
const seedBatch = 10_000

// maxRejectedShown is how many skipped seed lines the log lists one by
// one; a last line counts the others.
const maxRejectedShown = 5

// SeedSource is where a crawl's seeds come from: a seed file, read as the
// run starts and streamed into the frontier a batch at a time, or a few
// lines held in memory (URL arguments). Each run reads it anew.
//
// A resume does not read a file again when it has not changed since the
// job's frontier took it in (see seedLoad.fingerprint).
type SeedSource struct {
	Name  string   // how messages name it: NAME:12: reason
	Path  string   // the seed file; "" for Lines
	Lines []string // the lines of a seed file, when there is no file
}

// SeedFile is the seed file at path, named by its path.
func SeedFile(path string) SeedSource { return SeedSource{Name: path, Path: path} }

// SeedLines is seeds given as lines of a seed file, e.g. URL arguments.
func SeedLines(name string, lines ...string) SeedSource {
	return SeedSource{Name: name, Lines: lines}
}

// seedLoad is one run's reading of its seeds: the file's fingerprint, the
// reader, the batch in hand and the origins seen. It holds at most one
// batch of seeds.
type seedLoad struct {
	job  string
	log  *slog.Logger
	file *os.File // nil for text, or when the file is not read
	hash hash.Hash
	sr   *SeedReader

	fp      frontier.SeedSource // stored once everything is enqueued; Job "" for text
	store   bool                // fp is to be stored
	size    int                 // seeds per batch; 0 is seedBatch (tests make it small)
	batch   []Seed
	urls    []*url.URL // batch's URLs as the reader parsed them
	entries []frontier.Entry
	sorted  []frontier.Entry                // entries, host by host
	origins map[fetch.Origin]bool           // the dial policy's: what the seeds exempt
	mark    func(*frontier.Entry, *url.URL) // makes a seed that is a sitemap an entry of that kind (--sitemaps)
	eof     bool
	skipped bool // unchanged since its last load: not read
	added   int  // entries new to the frontier
}

// openSeeds starts reading the run's seeds before the run is recorded:
// an unchanged seed file is not read at all (its origins come from the
// database); otherwise the first batch is read, so that a source without
// a valid seed fails here, as a usage error.
// The seeds' origins go to origins (the dial policy's); with --sitemaps
// (maps not nil) a seed that is a sitemap becomes an entry of that kind.
func openSeeds(ctx context.Context, db Store, cfg *Config, log *slog.Logger, origins map[fetch.Origin]bool, maps *sitemapRun) (*seedLoad, error) {
	src := cfg.Seeds
	l := &seedLoad{job: cfg.Job, log: log, origins: origins}
	if maps != nil {
		l.mark = maps.seedEntry
	}
	var r io.Reader
	if len(src.Lines) > 0 {
		r = strings.NewReader(strings.Join(src.Lines, "\n"))
	}
	if src.Path != "" {
		f, err := os.Open(src.Path)
		if err != nil {
			return nil, fmt.Errorf("%w: seed file: %v", ErrUsage, err)
		}
		l.file = f
		if err := l.fingerprint(db, src.Name); err != nil || l.skipped {
			l.close()
			return l, err
		}
		l.hash = sha256.New()
		r = io.TeeReader(f, l.hash)
	}
	if r == nil {
		return nil, fmt.Errorf("read seeds %s: %w", src.Name, ErrNoSeeds)
	}
	l.sr = NewSeedReader(src.Name, r)
	l.sr.OnReject = l.warn
	if err := l.fill(ctx); err != nil {
		l.close()
		return nil, err
	}
	if len(l.batch) == 0 {
		l.close()
		return nil, fmt.Errorf("read seeds %s: %w", src.Name, ErrNoSeeds)
	}
	return l, nil
}

// fingerprint stats the open file and decides whether the job's frontier
// already holds it: the same name and size, and the same modification
// time or (read once to tell) the same SHA-256, and a frontier that is
// not empty. Then nothing is read or enqueued and the seeds' origins are
// the stored ones.
func (l *seedLoad) fingerprint(db Store, name string) error {
	fi, err := l.file.Stat()
	if err != nil {
		return fmt.Errorf("read seeds %s: %w", name, err)
	}
	l.fp = frontier.SeedSource{Job: l.job, Name: name, Size: fi.Size(), ModTime: fi.ModTime()}
	l.store = true
	prev, ok, err := db.SeedSource(l.job)
	if err != nil || !ok || prev.Name != name || prev.Size != fi.Size() {
		return err
	}
	counts, err := db.Counts(l.job)
	if err != nil || total(counts) == 0 {
		return err
	}
	if !prev.ModTime.Equal(fi.ModTime()) {
		sum, err := fileSHA256(l.file)
		if err != nil {
			return fmt.Errorf("read seeds %s: %w", name, err)
		}
		if sum != prev.SHA256 {
			return nil
		}
	}
	l.skipped = true
	l.store = !prev.ModTime.Equal(fi.ModTime()) // the next run's check is a stat again
	prev.ModTime = fi.ModTime()
	l.fp = prev
	for _, s := range prev.Origins {
		if o, ok := parseOrigin(s); ok {
			l.origins[o] = true
		}
	}
	l.log.Info("seed file unchanged since the frontier took it in: not read again",
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

// fill reads the next batch of seeds, stopping early when ctx ends.
func (l *seedLoad) fill(ctx context.Context) error {
	l.batch, l.urls = l.batch[:0], l.urls[:0]
	for len(l.batch) < cmp.Or(l.size, seedBatch) && !l.eof {
		if len(l.batch)%1024 == 0 && ctx.Err() != nil {
			return context.Cause(ctx)
		}
		s, ok := l.sr.Next()
		if !ok {
			l.eof = true
			l.summary()
			return l.sr.Err()
		}
		l.batch = append(l.batch, s)
		l.urls = append(l.urls, l.sr.parsed)
	}
	return nil
}

// load enqueues the batch in hand and every batch after it, then stores
// the file's fingerprint. ctx ending stops it between batches; what was
// enqueued is kept.
func (l *seedLoad) load(ctx context.Context, db Store, now time.Time, beat func() error) (err error) {
	defer l.close()
	tx, _ := db.(loadTx)
	open := false
	defer func() {
		if open {
			err = errors.Join(err, tx.EndLoad())
		}
	}()
	for n := 0; !l.skipped; n++ {
		if tx != nil && !open {
			if err := tx.BeginLoad(); err != nil {
				return err
			}
			open = true
		}
		if err := l.enqueue(db, now); err != nil {
			return err
		}
		// The lock's heartbeat writes: only between transactions.
		if open && (l.eof || (n+1)%seedTxBatches == 0) {
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
		if l.eof {
			break
		}
		if err := context.Cause(ctx); ctx.Err() != nil {
			return err
		}
		if err := l.fill(ctx); err != nil {
			return err
		}
	}
	if !l.store {
		return nil
	}
	if !l.skipped {
		l.fp.SHA256 = hex.EncodeToString(l.hash.Sum(nil))
		l.fp.Seeds = l.sr.Seeds()
		l.fp.Origins = originList(l.origins)
		l.fp.LoadedAt = now
	}
	return db.PutSeedSource(l.fp)
}

// enqueue puts the batch in hand into the frontier in one transaction.
func (l *seedLoad) enqueue(db Store, now time.Time) error {
	es := l.entries[:0]
	for i, s := range l.batch {
		u := l.urls[i] // the reader's parse of s.URL, or nil
		if u == nil {
			var err error
			if u, err = url.Parse(s.URL); err != nil {
				continue // the reader normalised it
			}
		}
		l.origins[fetch.OriginOf(u)] = true
		e := frontier.Entry{Job: l.job, URL: s.URL, Host: urls.Host(u), State: frontier.Queued, Priority: s.Priority, NextAt: now}
		if l.mark != nil {
			l.mark(&e, u)
		}
		es = append(es, e)
	}
	// urls.Host by host, each in file order: the store's indexes lead with
	// the host, so a batch sorted so inserts into a few places at a time
	// (a quarter less CPU than the file's interleaving of 200 hosts).
	l.entries = es
	l.sorted = byHost(es, l.sorted)
	es = l.sorted
	n, err := db.Enqueue(l.job, es)
	l.added += n
	l.batch = l.batch[:0]
	return err
}

// read returns how many valid seed lines were read.
func (l *seedLoad) read() int {
	if l.sr == nil {
		return 0
	}
	return l.sr.Seeds()
}

func (l *seedLoad) close() {
	if l.file != nil {
		l.file.Close()
		l.file = nil
	}
}

// rejected returns the skipped lines kept for the report.
func (l *seedLoad) rejected() []Rejected {
	if l == nil || l.sr == nil {
		return nil
	}
	return l.sr.Rejected()
}

// warn logs the first skipped lines one by one.
func (l *seedLoad) warn(r Rejected) {
	if l.sr.RejectedCount() <= maxRejectedShown {
		WarnRejected(l.log, r)
	}
}

// summary logs how many skipped lines warn left out.
func (l *seedLoad) summary() {
	n := l.sr.RejectedCount()
	if n <= maxRejectedShown {
		return
	}
	where := "the report lists them all"
	if n > MaxRejectedKept {
		where = fmt.Sprintf("the report lists the first %d", MaxRejectedKept)
	}
	more := n - maxRejectedShown
	l.log.Warn(fmt.Sprintf("... and %d more seed lines skipped (%s)", more, where), "more", more)
}

// WarnRejected logs one skipped seed line as NAME:LINE: reason.
func WarnRejected(log *slog.Logger, r Rejected) {
	log.Warn("seed line skipped", "seed", r.String(), "file", r.File, "line", r.Line, "reason", r.Reason)
}

// originList is the origins as the database keeps them, sorted:
// "scheme://host:port".
func originList(m map[fetch.Origin]bool) []string {
	out := make([]string, 0, len(m))
	for o := range m {
		out = append(out, o.Scheme+"://"+net.JoinHostPort(o.Host, o.Port))
	}
	sort.Strings(out)
	return out
}

func parseOrigin(s string) (fetch.Origin, bool) {
	scheme, hostport, ok := strings.Cut(s, "://")
	host, port, err := net.SplitHostPort(hostport)
	if !ok || err != nil || scheme == "" || port == "" {
		return fetch.Origin{}, false
	}
	return fetch.Origin{Scheme: scheme, Host: host, Port: port}, true
}

// lockBeat returns what refreshes the crawl lock of run runID while the
// seeds load: a heartbeat once frontier.Beat has passed since the last,
// called between two batches. A lock taken over stops the loading. Like
// the heartbeat, it goes by the wall clock, whatever clock paces the run.
func lockBeat(db Store, h frontier.Holder, runID int64, log *slog.Logger) func() error {
	last := time.Now()
	return func() error {
		now := time.Now()
		if now.Sub(last) < frontier.Beat {
			return nil
		}
		last = now
		err := db.Heartbeat(h, runID)
		if err != nil && !errors.Is(err, frontier.ErrLockLost) {
			log.Warn("cannot refresh the crawl lock", "err", err)
			return nil
		}
		return err
	}
}

// endLoad records that run runID, whose seeds could not be loaded, ended
// at now: with the signal's code when it was interrupted.
func endLoad(db Store, runID int64, now time.Time, err error) {
	code, summary := ExitFailure, "could not load the seeds: "+err.Error()
	var intr *Interrupted
	if errors.As(err, &intr) {
		code, summary = intr.Code, "interrupted while loading the seeds"
	}
	db.EndRun(runID, now, code, summary, nil)
}
