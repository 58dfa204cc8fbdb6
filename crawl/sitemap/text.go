package sitemap

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// readText reads a plain-text sitemap: one URL per line, UTF-8, blank
// lines ignored. A line too long to be a URL is skipped as a bad entry
// without being held in memory.
func (p *parser) readText() {
	p.res.Kind = Text
	line, off := p.line0, p.off0
	for {
		b, err := p.br.ReadSlice('\n')
		long := errors.Is(err, bufio.ErrBufferFull)
		n := int64(len(b))
		if long {
			// Keep enough of the line to report it: b is overwritten
			// by the next ReadSlice.
			b = []byte(string(b[:maxField]))
			// Skip the rest of the line, whatever its length.
			for errors.Is(err, bufio.ErrBufferFull) {
				var more []byte
				more, err = p.br.ReadSlice('\n')
				n += int64(len(more))
			}
		}
		text := string(bytes.TrimSpace(b))
		if err != nil && !errors.Is(err, io.EOF) && !long {
			// A line cut by an error is not trusted.
			text = ""
		}
		switch {
		case long:
			if !p.entry(line, off, rawEntry{loc: text}, false) {
				return
			}
		case text == "":
		case !utf8.ValidString(text):
			if !p.listed(line, off) {
				return
			}
			p.res.Skipped++
			p.problem(line, off, fmt.Sprintf("bad URL %s: not UTF-8", quote(text)))
		default:
			if !p.entry(line, off, rawEntry{loc: text}, false) {
				return
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				p.fail(err, line, off+n)
			}
			return
		}
		line++
		off += n
	}
}

// listed counts an entry met in the body, and reports false (with the cut
// recorded) when it is one past the limit.
func (p *parser) listed(line int, off int64) bool {
	if p.res.Listed >= p.opt.MaxURLs {
		p.cutAt(TooMany, line, off, fmt.Sprintf("more than %d entries, the protocol's limit; the rest is not read", p.opt.MaxURLs))
		return false
	}
	p.res.Listed++
	return true
}
