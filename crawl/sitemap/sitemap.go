// Package sitemap decides what a sitemap body lists, and which of its URLs
// a polite crawl may use: it reads one sitemap (XML urlset, XML
// sitemapindex or plain text, gzip-compressed or not) as a stream within the
// protocol's limits, and holds the sitemaps.org rules on where a listed URL
// may live and when its lastmod makes a request unnecessary.
//
// It does no I/O of its own beyond reading the io.Reader it is given: the
// crawl fetches sitemaps through robots.txt and pacing like any URL, and
// hands the body here. Nothing in a body is fatal; what cannot be read is
// reported in Result.Problems and Result.Cut, and what was read before it
// is kept.
package sitemap

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"time"
)

// The protocol's limits (sitemaps.org): 50,000 URLs and 50 MB
// (52,428,800 bytes) uncompressed per file, whether urlset or index.
const (
	MaxBytes = 50 << 20
	MaxURLs  = 50_000
	// MaxURLLength is the longest <loc> the protocol allows ("less than
	// 2,048 characters"); a longer one is a bad entry.
	MaxURLLength = 2047
	// MaxProblems is how many problems a Result keeps by default; the
	// rest are only counted in Result.MoreProblems.
	MaxProblems = 100
)

// Kind is what a sitemap body turned out to be.
type Kind int

const (
	Unknown Kind = iota // empty, or not a sitemap
	URLSet              // XML <urlset>
	Index               // XML <sitemapindex>
	Text                // one URL per line
)

func (k Kind) String() string {
	switch k {
	case URLSet:
		return "urlset"
	case Index:
		return "sitemapindex"
	case Text:
		return "text"
	}
	return "unknown"
}

// Cut says why reading stopped before the end of the body; None means the
// body was read to its end. Entries read before a cut are kept.
type Cut int

const (
	None      Cut = iota
	TooLarge      // past Options.MaxBytes uncompressed (an endless body, a gzip bomb)
	TooMany       // more than Options.MaxURLs entries
	Malformed     // XML or gzip syntax error
	Refused       // a DOCTYPE or ENTITY declaration, nesting or a token past the bounds, a root that is no sitemap
	ReadError     // the reader failed (connection reset, timeout)
)

func (c Cut) String() string {
	switch c {
	case None:
		return "none"
	case TooLarge:
		return "too large"
	case TooMany:
		return "too many URLs"
	case Malformed:
		return "malformed"
	case Refused:
		return "refused"
	case ReadError:
		return "read error"
	}
	return fmt.Sprintf("cut(%d)", int(c))
}

// Entry is one <url> of a urlset, one <sitemap> of an index (Loc and
// LastMod only), or one line of a text sitemap (Loc only).
type Entry struct {
	Loc string // absolute http or https URL, as listed (entities decoded, whitespace trimmed)

	// LastMod is the <lastmod>, zero when absent. A date without a time
	// (YYYY, YYYY-MM, YYYY-MM-DD) is the start of that period in UTC, and
	// LastModUntil is the last instant it can mean: the period's end in
	// the furthest time zone (UTC-12). With a time, LastModUntil equals
	// LastMod. Unchanged compares LastModUntil.
	LastMod      time.Time
	LastModUntil time.Time

	// Priority is the <priority>, 0.0 to 1.0; 0.5 when absent, as the
	// protocol says. SeedPriority maps it onto polite's integers.
	Priority float64

	// ChangeFreq is the <changefreq> in lower case (always, hourly, daily,
	// weekly, monthly, yearly, never), "" when absent or unknown. It is a
	// hint only; polite does not schedule by it.
	ChangeFreq string
}

// SeedPriority maps a sitemap priority onto polite's integer priority
// (higher first, seeds without one are 0): round(10*p) - 5, so the
// default 0.5 is 0, 1.0 is 5 and 0.0 is -5.
func (e Entry) SeedPriority() int { return SeedPriority(e.Priority) }

// SeedPriority maps a priority in [0, 1] to an integer in [-5, 5]; see
// Entry.SeedPriority. Values outside [0, 1] are clamped.
func SeedPriority(p float64) int {
	p = max(0, min(1, p))
	return int(p*10+0.5) - 5
}

// Problem is one thing wrong in a body: where (1-based line, 0-based
// byte offset in the uncompressed body) and what.
type Problem struct {
	Line   int
	Offset int64
	Msg    string
}

func (p Problem) String() string {
	return fmt.Sprintf("line %d (byte %d): %s", p.Line, p.Offset, p.Msg)
}

// Result is what Read found in one body.
type Result struct {
	Kind Kind
	Gzip bool // the body was gzip-compressed (detected by its magic bytes)

	URLs     []Entry // a urlset's <url>s or a text sitemap's lines (none with Options.Each)
	Sitemaps []Entry // an index's <sitemap>s (none with Options.Each)

	Listed  int // entries met in the body, good and bad (the count the URL limit applies to)
	Skipped int // bad entries left out (bad URL or priority)

	// NoLastMod counts the entries kept without their lastmod, which was
	// empty or could not be read (lastmod is optional).
	NoLastMod int

	Bytes int64 // uncompressed bytes read
	Cut   Cut   // why reading stopped early; None when the body was read to its end

	Problems     []Problem // the first Options.MaxProblems problems, in order
	MoreProblems int       // problems past those, counted only

	cutAt Problem // the problem that set Cut
}

// Err returns the problem that cut the body short, as an error naming its
// line, or nil when Cut is None.
func (r *Result) Err() error {
	if r.Cut == None {
		return nil
	}
	return &CutError{Cut: r.Cut, Problem: r.cutAt}
}

// CutError is the error Result.Err returns.
type CutError struct {
	Cut     Cut
	Problem Problem
}

func (e *CutError) Error() string { return "sitemap " + e.Cut.String() + ": " + e.Problem.String() }

// DefaultBatch is how many entries Options.Each is handed at a time when
// Options.Batch is 0.
const DefaultBatch = 5_000

// Batch is entries read from one body, in their order: a urlset's or a
// text sitemap's URLs, or an index's sitemaps (Kind says which).
type Batch struct {
	Kind    Kind
	Entries []Entry
}

// Options bounds a Read; the zero value (or nil) is the protocol's limits.
type Options struct {
	MaxBytes    int64 // uncompressed bytes; 0 means MaxBytes
	MaxURLs     int   // entries per body; 0 means MaxURLs
	MaxProblems int   // problems kept; 0 means MaxProblems

	// Each, when not nil, is handed the entries as they are read, at
	// most Batch at a time (0 means DefaultBatch), the last batch before
	// Read returns; Result.URLs and Result.Sitemaps then stay empty, so
	// that a body of 50,000 URLs is held one batch at a time. Each may
	// keep the batch's slice.
	Each  func(Batch)
	Batch int
}

func (o *Options) withDefaults() Options {
	var v Options
	if o != nil {
		v = *o
	}
	if v.MaxBytes <= 0 {
		v.MaxBytes = MaxBytes
	}
	if v.MaxURLs <= 0 {
		v.MaxURLs = MaxURLs
	}
	if v.MaxProblems <= 0 {
		v.MaxProblems = MaxProblems
	}
	if v.Batch <= 0 {
		v.Batch = DefaultBatch
	}
	return v
}

// Read reads one sitemap body from r, never holding more of the body than
// one token in memory (nor, with Options.Each, more of its entries than one
// batch), and returns what it found. It never fails: an empty
// body, an error of r, a gzip or XML syntax error, a limit reached or a
// hostile construct ends the reading and is told in Result.Cut and
// Result.Problems; the entries read up to there are kept. opt nil means
// the protocol's limits. The caller bounds the time (the request's
// context or deadline); Read bounds the size.
func Read(r io.Reader, opt *Options) *Result {
	o := opt.withDefaults()
	res := &Result{}
	p := &parser{opt: o, res: res}
	raw := &countReader{r: r, max: o.MaxBytes + o.MaxBytes/16 + 1<<20}
	br := bufio.NewReaderSize(raw, 32<<10)
	var body io.Reader = br
	if magic, _ := br.Peek(2); bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		res.Gzip = true
		z, err := gzip.NewReader(br)
		if err != nil {
			p.cutAt(Malformed, 1, 0, fmt.Sprintf("malformed gzip header: %v", err))
			return res // no entry read: nothing to pass to Each
		}
		defer z.Close()
		body = z
	}
	p.in = &countReader{r: body, max: o.MaxBytes}
	p.br = bufio.NewReaderSize(p.in, 32<<10)
	p.read()
	p.pass(&res.URLs, 1)
	p.pass(&res.Sitemaps, 1)
	res.Bytes = p.in.n
	return res
}

// parser is the state of one Read.
type parser struct {
	opt Options
	res *Result
	in  *countReader  // the uncompressed body, limited
	br  *bufio.Reader // over in

	// Where the sniffed prefix (BOM and leading whitespace) ended, added
	// to the positions the XML decoder reports.
	line0 int
	off0  int64
}

var errTooLarge = errors.New("too large")

// countReader counts what it reads and fails with errTooLarge once more
// than max bytes are asked for, after returning the first max.
type countReader struct {
	r   io.Reader
	n   int64
	max int64
}

func (c *countReader) Read(b []byte) (int, error) {
	if c.n >= c.max {
		return 0, errTooLarge
	}
	if left := c.max - c.n; int64(len(b)) > left {
		b = b[:left]
	}
	k, err := c.r.Read(b)
	c.n += int64(k)
	return k, err
}
