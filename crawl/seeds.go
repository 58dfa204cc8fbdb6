package crawl

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxSeedLine is the longest seed line read; a longer one is rejected.
const maxSeedLine = 64 << 10

// Seed is one accepted line of a seed file.
type Seed struct {
	URL      string // normalised
	Priority int
	Line     int
}

// Rejected is a seed line that was skipped, with why.
type Rejected struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Text   string `json:"text"`
	Reason string `json:"reason"`
}

func (r Rejected) String() string { return fmt.Sprintf("%s:%d: %s", r.File, r.Line, r.Reason) }

// SeedError is a bad seed line that failed a --strict read.
type SeedError struct{ Rejected }

func (e *SeedError) Error() string { return e.Rejected.String() + " (--strict)" }

// ErrNoSeeds is returned by ReadSeeds when no line of the file is a valid seed.
var ErrNoSeeds = errors.New("no valid seed")

// ReadSeeds reads a seed file: one URL per line, an optional integer priority
// after it, blank lines and # comments ignored. Bad lines are returned as
// rejected and skipped; with strict the first bad line fails the whole file.
// Duplicate URLs (after normalisation) are kept once, at their first line.
func ReadSeeds(name string, r io.Reader, strict bool) ([]Seed, []Rejected, error) {
	var (
		seeds    []Seed
		rejected []Rejected
		seen     = map[string]bool{}
	)
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		line, tooLong, err := readLine(br)
		if err == io.EOF && line == "" && !tooLong {
			break
		}
		if err != nil && err != io.EOF {
			return nil, nil, fmt.Errorf("read seeds %s:%d: %w", name, n, err)
		}
		s, reason := parseSeedLine(line, tooLong)
		if n == 1 {
			s.URL = strings.TrimPrefix(s.URL, "\ufeff")
		}
		switch {
		case reason != "":
			// A rejected line is shown, logged and stored: without the
			// credentials it may carry.
			rj := Rejected{File: name, Line: n, Text: clip(redactUserinfo(line), 200), Reason: redactUserinfo(reason)}
			if strict {
				return nil, []Rejected{rj}, &SeedError{rj}
			}
			rejected = append(rejected, rj)
		case s.URL != "" && !seen[s.URL]:
			seen[s.URL] = true
			s.Line = n
			seeds = append(seeds, s)
		}
		if err == io.EOF {
			break
		}
	}
	if len(seeds) == 0 {
		return nil, rejected, fmt.Errorf("read seeds %s: %w", name, ErrNoSeeds)
	}
	return seeds, rejected, nil
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
	if tooLong {
		return Seed{}, fmt.Sprintf("line longer than %d bytes", maxSeedLine)
	}
	if !utf8.ValidString(line) {
		return Seed{}, "not valid UTF-8 text"
	}
	if strings.ContainsRune(line, 0) {
		return Seed{}, "contains a NUL byte"
	}
	line = strings.TrimSpace(strings.TrimPrefix(line, "\ufeff"))
	if line == "" || strings.HasPrefix(line, "#") {
		return Seed{}, ""
	}
	fields := strings.Fields(line)
	if len(fields) > 1 && strings.HasPrefix(fields[1], "#") {
		fields = fields[:1]
	}
	if len(fields) > 2 && !strings.HasPrefix(fields[2], "#") {
		return Seed{}, fmt.Sprintf("unexpected text after the priority: %q", clip(fields[2], 40))
	}
	var s Seed
	if len(fields) > 1 {
		p, err := strconv.Atoi(fields[1])
		if err != nil {
			return Seed{}, fmt.Sprintf("priority %q is not an integer", clip(fields[1], 40))
		}
		s.Priority = p
	}
	u, err := Normalize(fields[0])
	if err != nil {
		return Seed{}, err.Error()
	}
	s.URL = u
	return s, ""
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
