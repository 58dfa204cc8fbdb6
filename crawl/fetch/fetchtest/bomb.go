// Package fetchtest makes what the fetch client's tests and the crawl's
// serve: hostile bodies (compression bombs, cheap to build) and TLS
// certificates made in the test (a CA, leaves valid, expired or for
// other names) with an HTTPS server on loopback.
package fetchtest

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
)

// bombChunk is how many zero bytes one repeated piece of a bomb inflates to.
const bombChunk = 256 << 10

// Bomb returns a body in the given Content-Encoding (gzip, deflate for
// zlib, raw for raw DEFLATE) that inflates to n zero bytes (rounded up to
// 256 KiB), built by repeating one compressed piece: cheap to make even
// under the race detector, whose instrumented compressor would take
// seconds to squeeze hundreds of MiB. A zlib bomb's checksum is wrong: a
// reader stops at its size limit long before it.
func Bomb(encoding string, n int) []byte {
	zeros := make([]byte, bombChunk)
	var buf bytes.Buffer
	if encoding == "gzip" {
		w := gzip.NewWriter(&buf)
		w.Write(zeros)
		w.Close()
		return bytes.Repeat(buf.Bytes(), (n+bombChunk-1)/bombChunk) // members of one stream
	}
	// DEFLATE: a first piece fills the window with zeros; a second,
	// flushed to a byte boundary, only refers back to zeros, so it can be
	// repeated; an empty final block ends the stream.
	w, _ := flate.NewWriter(&buf, flate.BestSpeed)
	w.Write(zeros)
	w.Flush()
	first := buf.Len()
	w.Write(zeros)
	w.Flush()
	piece := append([]byte(nil), buf.Bytes()[first:]...)
	head := append([]byte(nil), buf.Bytes()[:first]...)
	buf.Reset()
	w.Close()
	var out []byte
	if encoding == "deflate" {
		out = append(out, 0x78, 0x01) // zlib header, no dictionary
	}
	out = append(out, head...)
	out = append(out, bytes.Repeat(piece, max((n+bombChunk-1)/bombChunk-1, 0))...)
	out = append(out, buf.Bytes()...)
	if encoding == "deflate" {
		out = append(out, 0, 0, 0, 0) // adler32, not computed
	}
	return out
}
