// Package warc decides how polite's fetches are kept as WARC/1.1 files: one
// warcinfo record per file, a request and a response (or a revisit) per
// fetch, gzip per record, rotated at a size, with a CDXJ index beside them.
//
// The records themselves are built and serialised by
// github.com/nlnwa/gowarc/v3; this package owns the files: naming,
// rotation, writing a fetch's records whole or not at all, and the index.
package warc

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"sync/atomic"
	"time"

	gowarc "github.com/nlnwa/gowarc/v3"
)

// DefaultMaxSize is where a WARC file is closed and the next begun when
// Options.MaxSize is zero: 1 GB, as Heritrix and wget do.
const DefaultMaxSize = 1_000_000_000

// Info is what the warcinfo record at the head of every file says about
// the crawl that wrote it.
type Info struct {
	Software  string // name and version, "polite/1.4.0"
	UserAgent string // the User-Agent sent with every request
	Robots    string // the robots.txt policy, "obey"
	Job       string // the job the run belongs to
	Run       string // the run's id
	Purpose   string // what the crawl declares it is for (--purpose), "" for none
	Redacted  string // which secrets the records hide, in words; "" for none
	// Requisites is which page requisites the crawl fetches (--requisites).
	Requisites string
}

// Options says where the files go and what they are called.
type Options struct {
	// Prefix starts every file name: PREFIX-SERIAL.warc.gz. polite uses
	// JOB-RUN-TIMESTAMP so that a new run never reuses a name.
	Prefix string
	// MaxSize is the size on disk at which a file is closed and the next
	// one begun; 0 means DefaultMaxSize. A file ends after the first
	// fetch that takes it to MaxSize or beyond.
	MaxSize int64
	// Worker, when set, ends every file name, PREFIX-SERIAL-WORKER.warc.gz:
	// the machine and process writing it, so that two workers writing
	// one job into one folder never take the same name.
	Worker string
	// OnFile, when set, is told the path of each file begun, before any
	// fetch is written to it; its error fails the write that began it.
	OnFile func(path string) error
	Info   Info
	// Now stamps the warcinfo records; nil means time.Now.
	Now func() time.Time
}

// Writer writes fetches as WARC records. It is safe for concurrent use;
// each fetch's records are written together and in order. Open one per
// run, call WriteExchange or WriteRevisit per fetch, and Close at the end.
type Writer struct {
	dir    string
	opts   Options
	create func(path string) (file, error)
	rec    []gowarc.WarcRecordOption // of records gowarc parses
	fast   []gowarc.WarcRecordOption // of an exchange's records (see build)
	enc    encoders                  // compress fetches, before mu is taken
	// info is the WARC-Record-ID of the current file's warcinfo, which a
	// fetch's records name, read before mu is taken.
	info atomic.Pointer[string]

	mu     sync.Mutex
	gz     *members // compresses the warcinfo records, under mu
	serial int
	cur    *warcFile
	closed bool
}

// file is what the Writer needs of an open WARC file; *os.File has it.
type file interface {
	io.Writer
	Truncate(size int64) error
	Seek(offset int64, whence int) (int64, error)
	Sync() error
	Close() error
}

// warcFile is the open WARC file and the index lines of its records.
type warcFile struct {
	f      file
	path   string
	name   string // base name, as the index and WARC-Filename give it
	size   int64  // bytes on disk, all of them whole records
	infoID string
	index  []cdxLine
	cw     countingWriter
	// broken: a failed record could not be cut back; nothing more is
	// written to this file.
	broken bool
}

var (
	prefixRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$`)
	workerRE = regexp.MustCompile(`^[A-Za-z0-9._~-]{1,100}$`)
)

// Open starts a new WARC file in dir (created if missing). It never
// appends to a file that exists: if PREFIX-00000.warc.gz is taken, the
// serial goes on until a free name is found.
func Open(dir string, opts Options) (*Writer, error) {
	return open(dir, opts, createFile)
}

func createFile(path string) (file, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
}

func open(dir string, opts Options, create func(string) (file, error)) (*Writer, error) {
	if !prefixRE.MatchString(opts.Prefix) {
		return nil, fmt.Errorf("warc: prefix %q: want letters, digits, '.', '_' or '-', 1 to 200 of them", opts.Prefix)
	}
	if opts.Worker != "" && !workerRE.MatchString(opts.Worker) {
		return nil, fmt.Errorf("warc: worker %q: want letters, digits, '.', '_', '~' or '-', 1 to 100 of them", opts.Worker)
	}
	if opts.MaxSize < 0 {
		return nil, fmt.Errorf("warc: max size %d is negative", opts.MaxSize)
	}
	if opts.MaxSize == 0 {
		opts.MaxSize = DefaultMaxSize
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("warc: %w", err)
	}
	w := &Writer{dir: dir, opts: opts, create: create, rec: recordOptions(), fast: exchangeOptions(), enc: newEncoders(), gz: newMembers()}
	if err := w.startFile(); err != nil {
		if w.cur != nil {
			w.finishFile() // begun, but not recorded: closed with its index
		}
		return nil, err
	}
	return w, nil
}

// ErrClosed is returned by writes after Close.
var ErrClosed = errors.New("warc: writer is closed")

// startFile opens the next free PREFIX-SERIAL.warc.gz and writes its
// warcinfo record.
func (w *Writer) startFile() error {
	for {
		if w.serial > 99999 {
			return fmt.Errorf("warc: %s: no free file name for prefix %s", w.dir, w.opts.Prefix)
		}
		name := fmt.Sprintf("%s-%05d.warc.gz", w.opts.Prefix, w.serial)
		if w.opts.Worker != "" {
			name = fmt.Sprintf("%s-%05d-%s.warc.gz", w.opts.Prefix, w.serial, w.opts.Worker)
		}
		w.serial++
		path := filepath.Join(w.dir, name)
		f, err := w.create(path)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("warc: create %s: %w", path, err)
		}
		wf := &warcFile{f: f, path: path, name: name}
		wf.cw.w = f
		info, err := w.warcinfo(name)
		if err == nil {
			if err = w.gz.encode("", info); err == nil {
				_, err = w.writeMembers(wf, w.gz)
			} else {
				err = fmt.Errorf("warc: write %s: %w", path, err)
			}
			info.Close()
		}
		if err != nil {
			_ = f.Close()
			_ = os.Remove(path) // holds no whole record
			return err
		}
		wf.infoID = info.RecordId()
		w.cur = wf
		w.info.Store(&wf.infoID)
		if w.opts.OnFile != nil {
			if err := w.opts.OnFile(path); err != nil {
				return fmt.Errorf("warc: record %s: %w", path, err)
			}
		}
		return nil
	}
}

// writeMembers appends the records in m to wf and returns each one's
// offset and length on disk. Either all of them are written, or wf is cut
// back to where it was and the error returned.
func (w *Writer) writeMembers(wf *warcFile, m *members) ([]span, error) {
	start := wf.size
	_, err := wf.cw.Write(m.buf.Bytes())
	if err == nil {
		wf.size = start + wf.cw.n
		wf.cw.n = 0
		spans := make([]span, len(m.ends))
		at := 0
		for i, end := range m.ends {
			spans[i] = span{offset: start + int64(at), length: int64(end - at)}
			at = end
		}
		return spans, nil
	}
	wf.cw.n = 0
	if terr := cutBack(wf.f, start); terr != nil {
		wf.broken = true
		return nil, fmt.Errorf("warc: write %s: %w; cutting back the partial record: %w", wf.path, err, terr)
	}
	return nil, fmt.Errorf("warc: write %s: %w", wf.path, err)
}

// cutBack truncates f to size and puts the write position there.
func cutBack(f file, size int64) error {
	if err := f.Truncate(size); err != nil {
		return err
	}
	_, err := f.Seek(size, io.SeekStart)
	return err
}

// span is where one record lies in its file.
type span struct{ offset, length int64 }

// countingWriter counts the bytes that reached the file.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// write writes one fetch's records into the current file, starting the
// next file first when the current one is full, and indexes them. The
// records are compressed before the lock is taken, naming the current
// file's warcinfo, and again under it in the rare case that a new file
// was begun meanwhile: fetches compress side by side, and only append in
// turn.
func (w *Writer) write(recs []gowarc.WarcRecord, index func(wf *warcFile, spans []span)) error {
	m := w.enc.get()
	defer w.enc.put(m)
	info := ""
	if p := w.info.Load(); p != nil {
		info = *p
	}
	encErr := m.encode(info, recs...)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return ErrClosed
	}
	if w.cur != nil && w.cur.size >= w.opts.MaxSize {
		if err := w.finishFile(); err != nil {
			return err
		}
	}
	if w.cur == nil {
		if err := w.startFile(); err != nil {
			return err
		}
	}
	if encErr == nil && m.info != w.cur.infoID {
		encErr = m.encode(w.cur.infoID, recs...)
	}
	if encErr != nil {
		return fmt.Errorf("warc: write %s: %w", w.cur.path, encErr)
	}
	spans, err := w.writeMembers(w.cur, m)
	if err != nil && w.cur.broken {
		// Its index still lists only whole records.
		return errors.Join(err, w.finishFile())
	}
	if err != nil {
		return err
	}
	index(w.cur, spans)
	return nil
}

// finishFile syncs and closes the current file, then writes its index:
// the index is written only once every record it points at is on disk.
func (w *Writer) finishFile() error {
	wf := w.cur
	w.cur = nil
	err := wf.f.Sync()
	if cerr := wf.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("warc: close %s: %w", wf.path, err)
	}
	return writeIndex(indexPath(wf.path), wf.index)
}

// Close finishes the current file and its index. Writes after Close
// return ErrClosed; a second Close does nothing.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	w.closed = true
	if w.cur == nil {
		return nil
	}
	return w.finishFile()
}
