package fetch

import (
	"compress/flate"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// ErrBadEncoding is a compressed body that does not decode.
var ErrBadEncoding = errors.New("body does not decode")

// MaxBodyLimit is the largest --max-body: a body is held whole in memory
// before it is written, once per request in flight.
const MaxBodyLimit = 1 << 30

// readChunk is how much of a body is read at a time: what a request holds
// grows with the bytes that arrive, never with what Content-Length claims.
const readChunk = 32 << 10

// readBody reads and decodes a body of at most max bytes: over max it fails
// with errTooLarge, or with truncate returns the first max bytes; cut says
// the body was over max, and the bytes read (at most max) come back with
// errTooLarge too, for the WARC record. An identity body whose
// Content-Length is over max fails before it is read.
// An empty body is empty whatever its Content-Encoding says (a 304 or 204
// may carry the header of the body it stands for).
func readBody(resp *http.Response, max int64, truncate bool) (data []byte, cut bool, err error) {
	body := newPeekReader(resp.Body)
	var rd io.Reader = body
	identity := false
	switch enc := strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding"))); enc {
	case "", "identity":
		identity = true
	case "gzip", "x-gzip", "deflate":
		if len(body.peek(1)) == 0 {
			break
		}
		if enc == "deflate" {
			rd = newDeflateReader(body)
			break
		}
		zr, err := gzip.NewReader(body)
		if err != nil {
			return nil, false, decodeErr(err)
		}
		defer zr.Close()
		rd = zr
	default:
		// An encoding we did not ask for: keep the bytes as sent.
	}
	if identity && !truncate && resp.ContentLength > max {
		return nil, true, ErrTooLarge
	}
	hint := int64(0)
	if identity {
		hint = resp.ContentLength
	}
	data, over, err := readLimited(rd, max, hint)
	switch {
	case err != nil:
		return nil, false, decodeErr(err)
	case over && truncate:
		return data, true, nil
	case over:
		return data, true, ErrTooLarge
	case identity && resp.ContentLength >= 0 && int64(len(data)) != resp.ContentLength:
		// net/http reports a short body itself; a body that is not the
		// length announced is never kept as whole.
		return nil, false, fmt.Errorf("body of %d bytes, %d announced: %w", len(data), resp.ContentLength, io.ErrUnexpectedEOF)
	}
	return data, false, nil
}

// readLimited reads r to its end in chunks of readChunk bytes, keeping at
// most max; over reports that more than max bytes came (reading stops
// there). hint (Content-Length or 0) sizes the first allocation, at most a
// chunk: a small body is allocated once, at its size.
func readLimited(r io.Reader, max, hint int64) (data []byte, over bool, err error) {
	chunk := chunks.Get().(*[readChunk]byte)
	defer chunks.Put(chunk)
	if hint > 0 {
		data = make([]byte, 0, min(hint, max, readChunk))
	}
	for {
		n, rerr := r.Read(chunk[:])
		if n > 0 {
			if room := max - int64(len(data)); int64(n) > room {
				return append(data, chunk[:room]...), true, nil
			}
			data = append(data, chunk[:n]...)
		}
		switch {
		case rerr == io.EOF:
			return data, false, nil
		case rerr != nil:
			return nil, false, rerr
		}
	}
}

// chunks holds the buffers readLimited reads into, one per body being
// read, reused across requests.
var chunks = sync.Pool{New: func() any { return new([readChunk]byte) }}

// decodeErr marks the errors of a decoder (not of the connection under it)
// as ErrBadEncoding.
func decodeErr(err error) error {
	var corrupt flate.CorruptInputError
	if errors.Is(err, gzip.ErrHeader) || errors.Is(err, gzip.ErrChecksum) || errors.As(err, &corrupt) {
		return fmt.Errorf("%w: %v", ErrBadEncoding, err)
	}
	return err
}

// newDeflateReader reads "deflate" bodies, which servers send either as
// zlib (RFC 1950, as the spec says) or as raw DEFLATE.
func newDeflateReader(r io.Reader) io.Reader {
	br := newPeekReader(r)
	head := br.peek(2)
	if len(head) == 2 && head[0]&0x0f == 8 && (uint16(head[0])<<8|uint16(head[1]))%31 == 0 {
		// zlib header: skip it; flate reads the rest (the checksum is ignored).
		br.skip(2)
	}
	return flate.NewReader(br)
}

type peekReader struct {
	r   io.Reader
	buf []byte
}

func newPeekReader(r io.Reader) *peekReader { return &peekReader{r: r} }

func (p *peekReader) peek(n int) []byte {
	for len(p.buf) < n {
		b := make([]byte, n-len(p.buf))
		m, err := p.r.Read(b)
		p.buf = append(p.buf, b[:m]...)
		if err != nil {
			break
		}
	}
	return p.buf
}

func (p *peekReader) skip(n int) { p.buf = p.buf[min(n, len(p.buf)):] }

func (p *peekReader) Read(b []byte) (int, error) {
	if len(p.buf) > 0 {
		n := copy(b, p.buf)
		p.buf = p.buf[n:]
		return n, nil
	}
	return p.r.Read(b)
}
