package sitemap

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Bounds on XML beyond the protocol's: no sitemap needs a text, comment or
// tag longer than maxToken bytes, or elements nested deeper than maxDepth
// (a urlset with extensions is four deep). Each bounds what one token may
// hold in memory.
const (
	maxToken = 64 << 10
	maxDepth = 64
)

var errTokenTooLong = errors.New("token too long")

// charsetError is a declared encoding other than UTF-8 (or ASCII).
type charsetError struct{ name string }

func (e *charsetError) Error() string {
	return fmt.Sprintf("encoding %q declared; a sitemap is UTF-8", e.name)
}

// xmlReader is the state of reading an XML sitemap.
type xmlReader struct {
	p     *parser
	d     *xml.Decoder
	depth int
	index bool   // the root is <sitemapindex>
	space string // the root's namespace, which entries and fields share
	done  bool   // the root has ended

	cur   *rawEntry // the <url> or <sitemap> being read
	line  int       // where cur began
	off   int64
	field *string // the field of cur whose text is being read
}

// readXML reads an XML urlset or sitemapindex, token by token. encoding/xml
// never expands entities beyond the five predefined ones and character
// references, nor fetches anything; a DOCTYPE (where entities would be
// declared) is refused outright.
func (p *parser) readXML() {
	x := &xmlReader{p: p, d: xml.NewDecoder(&tokenGuard{r: p.br})}
	x.d.Strict = true
	x.d.CharsetReader = func(charset string, r io.Reader) (io.Reader, error) {
		if strings.EqualFold(charset, "us-ascii") || strings.EqualFold(charset, "ascii") {
			return r, nil // a subset of UTF-8
		}
		return nil, &charsetError{charset}
	}
	for {
		tok, err := x.d.Token()
		if err == io.EOF {
			if !x.done {
				p.cutAt(Malformed, x.pos().line, x.pos().off, "malformed XML: no sitemap element")
			}
			return
		}
		if err != nil {
			pos := x.pos()
			p.fail(err, pos.line, pos.off)
			return
		}
		if !x.token(tok) {
			return
		}
	}
}

type position struct {
	line int
	off  int64
}

func (x *xmlReader) pos() position {
	line, _ := x.d.InputPos()
	return position{line: line + x.p.line0 - 1, off: x.d.InputOffset() + x.p.off0}
}

// token handles one token; false ends the reading.
func (x *xmlReader) token(tok xml.Token) bool {
	switch t := tok.(type) {
	case xml.StartElement:
		return x.start(t)
	case xml.EndElement:
		return x.end()
	case xml.CharData:
		if x.field != nil && len(*x.field) < maxField {
			*x.field += string(t[:min(len(t), maxField-len(*x.field))])
		}
	case xml.Directive:
		pos := x.pos()
		d := strings.Join(strings.Fields(string(t)), " ")
		x.p.cutAt(Refused, pos.line, pos.off, fmt.Sprintf("refused <!%s>: a sitemap has no DOCTYPE, and entity declarations are never expanded", clip([]byte(d), 40)))
		return false
	}
	return true
}

func (x *xmlReader) start(t xml.StartElement) bool {
	x.depth++
	pos := x.pos()
	switch {
	case x.depth > maxDepth:
		x.p.cutAt(Refused, pos.line, pos.off, fmt.Sprintf("elements nested deeper than %d", maxDepth))
		return false
	case x.depth == 1 && x.done:
		x.p.cutAt(Malformed, pos.line, pos.off, fmt.Sprintf("malformed XML: element <%s> after the root element", t.Name.Local))
		return false
	case x.depth == 1:
		switch t.Name.Local {
		case "urlset":
			x.p.res.Kind = URLSet
		case "sitemapindex":
			x.p.res.Kind, x.index = Index, true
		default:
			x.p.cutAt(Refused, pos.line, pos.off, fmt.Sprintf("root element <%s> is not urlset or sitemapindex", clip([]byte(t.Name.Local), 40)))
			return false
		}
		x.space = t.Name.Space
	case x.depth == 2 && t.Name.Space == x.space:
		want, other := "url", "sitemap"
		if x.index {
			want, other = other, want
		}
		switch t.Name.Local {
		case want:
			x.cur, x.line, x.off = &rawEntry{}, pos.line, pos.off
		case other:
			x.p.problem(pos.line, pos.off, fmt.Sprintf("<%s> in a %s, ignored", other, x.p.res.Kind))
		}
	case x.depth == 3 && x.cur != nil && t.Name.Space == x.space:
		x.field = x.cur.fieldFor(t.Name.Local)
	}
	return true
}

func (x *xmlReader) end() bool {
	switch x.depth {
	case 1:
		x.done = true
	case 2:
		if x.cur != nil {
			e := *x.cur
			x.cur = nil
			if !x.p.entry(x.line, x.off, e, x.index) {
				return false
			}
		}
	case 3:
		x.field = nil
	}
	x.depth--
	return true
}

// fieldFor returns where the text of child element name goes, marking it
// given, or nil for an element the protocol does not define.
func (r *rawEntry) fieldFor(name string) *string {
	switch name {
	case "loc":
		return &r.loc
	case "lastmod":
		r.hasLastmod = true
		return &r.lastmod
	case "priority":
		r.hasPriority = true
		return &r.priority
	case "changefreq":
		r.hasChangefreq = true
		return &r.changefreq
	}
	return nil
}

func clip(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}

// tokenGuard fails with errTokenTooLong when more than maxToken bytes
// pass without a '<': that bounds the text and the tags the XML decoder
// holds. (A comment or CDATA section with a '<' every few KiB slips
// through; the body's size limit still bounds it.)
type tokenGuard struct {
	r   io.Reader
	run int
}

func (g *tokenGuard) Read(b []byte) (int, error) {
	n, err := g.r.Read(b)
	rest := b[:n]
	for len(rest) > 0 {
		i := bytes.IndexByte(rest, '<')
		if i < 0 {
			g.run += len(rest)
			break
		}
		g.run += i
		if g.run > maxToken {
			break
		}
		g.run, rest = 0, rest[i+1:]
	}
	if g.run > maxToken {
		return n, errTokenTooLong
	}
	return n, err
}
