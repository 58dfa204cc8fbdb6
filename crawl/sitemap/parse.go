package sitemap

import (
	"compress/flate"
	"compress/gzip"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
)

// read sniffs the body and reads it as XML or text.
func (p *parser) read() {
	first, err := p.sniff()
	if err != nil {
		if errors.Is(err, io.EOF) {
			p.problem(p.line0, p.off0, "empty body")
			return
		}
		p.fail(err, p.line0, p.off0)
		return
	}
	switch {
	case p.res.Gzip && first == 0x1f:
		if b, _ := p.br.Peek(2); len(b) == 2 && b[1] == 0x8b {
			p.cutAt(Refused, p.line0, p.off0, "gzip inside gzip; a sitemap is compressed once")
			return
		}
		p.readText()
	case first == '<':
		p.readXML()
	default:
		p.readText()
	}
}

// sniff skips a UTF-8 byte order mark and leading white space, and returns
// the first byte after them, left unread.
func (p *parser) sniff() (byte, error) {
	p.line0 = 1
	if b, _ := p.br.Peek(3); string(b) == "\uFEFF" {
		_, _ = p.br.Discard(3)
		p.off0 = 3
	}
	for {
		c, err := p.br.ReadByte()
		if err != nil {
			return 0, err
		}
		switch c {
		case '\n':
			p.line0++
		case ' ', '\t', '\r':
		default:
			return c, p.br.UnreadByte()
		}
		p.off0++
	}
}

// problem records a problem, keeping the first MaxProblems.
func (p *parser) problem(line int, off int64, msg string) {
	if len(p.res.Problems) >= p.opt.MaxProblems {
		p.res.MoreProblems++
		return
	}
	p.res.Problems = append(p.res.Problems, Problem{Line: line, Offset: off, Msg: msg})
}

// cutAt records the problem that ends the reading.
func (p *parser) cutAt(c Cut, line int, off int64, msg string) {
	p.res.Cut = c
	p.res.cutAt = Problem{Line: line, Offset: off, Msg: msg}
	p.problem(line, off, msg)
}

// fail ends the reading on an error of the reader or the decoder, naming
// what it means.
func (p *parser) fail(err error, line int, off int64) {
	var syn *xml.SyntaxError
	var corrupt flate.CorruptInputError
	var cs *charsetError
	switch {
	case errors.Is(err, errTooLarge) && p.in.n >= p.in.max:
		msg := fmt.Sprintf("body passes %d bytes uncompressed, the protocol's limit; the rest is not read", p.in.max)
		if p.res.Gzip {
			msg += " (a gzip bomb?)"
		}
		p.cutAt(TooLarge, line, off, msg)
	case errors.Is(err, errTooLarge):
		p.cutAt(TooLarge, line, off, "compressed body too long for what it inflates to; the rest is not read")
	case errors.Is(err, errTokenTooLong):
		p.cutAt(Refused, line, off, fmt.Sprintf("text or tag longer than %d bytes; the rest is not read", maxToken))
	case errors.As(err, &cs):
		p.cutAt(Malformed, line, off, "malformed XML: "+cs.Error())
	case errors.As(err, &syn):
		p.cutAt(Malformed, syn.Line+p.line0-1, off, "malformed XML: "+syn.Msg)
	case errors.As(err, &corrupt), errors.Is(err, gzip.ErrChecksum), errors.Is(err, gzip.ErrHeader):
		p.cutAt(Malformed, line, off, "malformed gzip: "+err.Error())
	case errors.Is(err, io.ErrUnexpectedEOF):
		p.cutAt(Malformed, line, off, "body ends early")
	default:
		p.cutAt(ReadError, line, off, "read: "+err.Error())
	}
}

// entry checks one listed entry and keeps it, or counts it as skipped. It
// reports false when the URL limit is reached and reading must stop.
func (p *parser) entry(line int, off int64, raw rawEntry, index bool) bool {
	if !p.listed(line, off) {
		return false
	}
	e, bad, note, noLastMod := raw.check()
	if note != "" {
		p.problem(line, off, note)
	}
	if noLastMod {
		p.res.NoLastMod++
	}
	switch {
	case bad != "":
		p.res.Skipped++
		p.problem(line, off, bad)
	case index:
		p.res.Sitemaps = append(p.res.Sitemaps, e)
		p.pass(&p.res.Sitemaps, p.opt.Batch)
	default:
		p.res.URLs = append(p.res.URLs, e)
		p.pass(&p.res.URLs, p.opt.Batch)
	}
	return true
}

// pass hands the entries kept to Options.Each once there are at least n,
// and forgets them; without Each they stay in the Result.
func (p *parser) pass(kept *[]Entry, n int) {
	if p.opt.Each == nil || len(*kept) < n {
		return
	}
	p.opt.Each(Batch{Kind: p.res.Kind, Entries: *kept})
	*kept = nil
}
