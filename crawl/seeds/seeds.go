// Package seeds decides which lines of a seed source are seeds (and why
// the others are skipped) and loads them into a job's frontier a batch at
// a time, unless the seed file is unchanged since the frontier took it in.
package seeds

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/polite-crawler/polite/crawl/urls"
)

// maxSeedLine is the longest seed line read; a longer one is rejected.
const maxSeedLine = 64 << 10

// Seed is one accepted line of a seed file.
type Seed struct {
	URL      string // normalised
	Priority int
	Line     int
}

// Rejected is a seed line that was skipped, with why; the run's report
// lists the first ones.
type Rejected struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Text   string `json:"text"`
	Reason string `json:"reason"`
}

func (r Rejected) String() string { return fmt.Sprintf("%s:%d: %s", r.File, r.Line, r.Reason) }

// Error is a bad seed line that failed a --strict read.
type Error struct{ Rejected }

func (e *Error) Error() string { return e.Rejected.String() + " (--strict)" }

// ErrNone is returned when no line of a seed source is a valid seed.
var ErrNone = errors.New("no valid seed")

// MaxRejectedKept is how many skipped seed lines a Reader keeps for
// the report; it counts the others.
const MaxRejectedKept = 1000

// Reader reads a seed file one line at a time: one URL per line, an
// optional integer priority after it, blank lines and # comments ignored.
// Next returns the valid seeds, normalised; bad lines are skipped, counted,
// passed to OnReject and the first MaxRejectedKept kept. It holds one line
// at a time (a Loader's batch reads a round of lines), whatever the size
// of the file, and never dedups: the frontier keeps a URL once, at its
// first line.
type Reader struct {
	OnReject func(Rejected) // told of every skipped line; nil: not told

	name     string
	br       *bufio.Reader
	line     int
	seeds    int
	rejected []Rejected
	nrej     int
	err      error
	done     bool
	parsed   *url.URL // the URL of the seed Next returned last, parsed; nil if not

	raw []rawLine    // nextBatch's lines of a round
	out []parsedLine // and those lines parsed
}

// NewReader returns a reader of the seed file r, which messages call name.
func NewReader(name string, r io.Reader) *Reader {
	return &Reader{name: name, br: bufio.NewReaderSize(r, 64<<10)}
}

// Next returns the next valid seed; false at the end of the file or on a
// read error (Err says which).
func (sr *Reader) Next() (Seed, bool) {
	for {
		line, ok := sr.readOne()
		if !ok {
			return Seed{}, false
		}
		p := parseLine(line)
		sr.parsed = p.u
		if sr.take(&p) {
			return p.seed, true
		}
	}
}

// rawLine is a line as read, before it is parsed.
type rawLine struct {
	text    string
	tooLong bool
	n       int // its number, from 1
}

// parsedLine is a line parsed: a seed (its URL not empty), a skipped
// line (reason not empty), or neither (a blank line, a comment).
type parsedLine struct {
	seed   Seed
	u      *url.URL // the seed's URL, parsed; nil if not
	reason string
	text   string // the line as read
}

// readOne reads the next line; false at the end of the file or on a
// read error (Err then says which).
func (sr *Reader) readOne() (rawLine, bool) {
	if sr.done {
		return rawLine{}, false
	}
	n := sr.line + 1
	line, tooLong, err := readLine(sr.br)
	sr.done = err != nil
	if err == io.EOF && line == "" && !tooLong {
		return rawLine{}, false
	}
	sr.line = n
	if err != nil && err != io.EOF {
		sr.err = fmt.Errorf("read seeds %s:%d: %w", sr.name, n, err)
		return rawLine{}, false
	}
	return rawLine{text: line, tooLong: tooLong, n: n}, true
}

// parseLine parses one line read; it may run on any goroutine.
func parseLine(r rawLine) parsedLine {
	s, u, reason := parseSeed(r.text, r.tooLong)
	if r.n == 1 {
		if t := strings.TrimPrefix(s.URL, "\ufeff"); t != s.URL {
			s.URL, u = t, nil
		}
	}
	s.Line = r.n
	return parsedLine{seed: s, u: u, reason: reason, text: r.text}
}

// take settles a parsed line, in the order of the file: true for a
// seed, counted; a bad line is rejected.
func (sr *Reader) take(p *parsedLine) bool {
	switch {
	case p.reason != "":
		sr.reject(Rejected{File: sr.name, Line: p.seed.Line, Text: p.text, Reason: p.reason})
	case p.seed.URL != "":
		sr.seeds++
		return true
	}
	return false
}

// reject counts a skipped line and keeps it while there is room. A
// rejected line is shown, logged and stored: without the credentials it
// may carry.
func (sr *Reader) reject(rj Rejected) {
	rj.Text, rj.Reason = urls.Clip(urls.Redact(rj.Text), 200), urls.Redact(rj.Reason)
	sr.nrej++
	if len(sr.rejected) < MaxRejectedKept {
		sr.rejected = append(sr.rejected, rj)
	}
	if sr.OnReject != nil {
		sr.OnReject(rj)
	}
}

// Err returns the read error that ended Next, if any.
func (sr *Reader) Err() error { return sr.err }

// Seeds returns how many valid seed lines Next returned.
func (sr *Reader) Seeds() int { return sr.seeds }

// Rejected returns the first MaxRejectedKept lines skipped.
func (sr *Reader) Rejected() []Rejected { return sr.rejected }

// RejectedCount returns how many lines were skipped.
func (sr *Reader) RejectedCount() int { return sr.nrej }

// Check reads a whole seed file as --strict wants it: the first bad
// line fails it (a *Error), and so does a file without a valid seed
// (ErrNone). It returns how many valid seed lines the file has.
func Check(name string, r io.Reader) (int, error) {
	sr := NewReader(name, r)
	var bad *Rejected
	sr.OnReject = func(rj Rejected) {
		if bad == nil {
			bad = &rj
		}
	}
	for bad == nil {
		if _, ok := sr.Next(); !ok {
			break
		}
	}
	switch {
	case bad != nil:
		return sr.Seeds(), &Error{*bad}
	case sr.Err() != nil:
		return sr.Seeds(), sr.Err()
	case sr.Seeds() == 0:
		return 0, fmt.Errorf("read seeds %s: %w", name, ErrNone)
	}
	return sr.Seeds(), nil
}

// readLine returns the next line without its end; tooLong reports a line
// longer than maxSeedLine, whose rest is discarded.
func readLine(br *bufio.Reader) (line string, tooLong bool, err error) {
	var b strings.Builder
	for {
		chunk, isPrefix, err := br.ReadLine()
		if b.Len()+len(chunk) <= maxSeedLine {
			b.Write(chunk)
		} else {
			tooLong = true
		}
		if err != nil {
			return b.String(), tooLong, err
		}
		if !isPrefix {
			return b.String(), tooLong, nil
		}
	}
}

// parseSeedLine parses one line. An empty URL with no reason is a blank or
// comment line.
func parseSeedLine(line string, tooLong bool) (Seed, string) {
	s, _, reason := parseSeed(line, tooLong)
	return s, reason
}

// parseSeed is parseSeedLine that also returns the URL parsed.
func parseSeed(line string, tooLong bool) (Seed, *url.URL, string) {
	if tooLong {
		return Seed{}, nil, fmt.Sprintf("line longer than %d bytes", maxSeedLine)
	}
	if !utf8.ValidString(line) {
		return Seed{}, nil, "not valid UTF-8 text"
	}
	if strings.ContainsRune(line, 0) {
		return Seed{}, nil, "contains a NUL byte"
	}
	line = strings.TrimSpace(strings.TrimPrefix(line, "\ufeff"))
	if line == "" || strings.HasPrefix(line, "#") {
		return Seed{}, nil, ""
	}
	fields := strings.Fields(line)
	if len(fields) > 1 && strings.HasPrefix(fields[1], "#") {
		fields = fields[:1]
	}
	if len(fields) > 2 && !strings.HasPrefix(fields[2], "#") {
		return Seed{}, nil, fmt.Sprintf("unexpected text after the priority: %q", urls.Clip(fields[2], 40))
	}
	var s Seed
	if len(fields) > 1 {
		p, err := strconv.Atoi(fields[1])
		if err != nil {
			return Seed{}, nil, fmt.Sprintf("priority %q is not an integer", urls.Clip(fields[1], 40))
		}
		s.Priority = p
	}
	u, str, err := urls.Normalized(fields[0])
	if err != nil {
		return Seed{}, nil, err.Error()
	}
	s.URL = str
	return s, u, ""
}
