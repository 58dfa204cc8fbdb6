package warc

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"sync"

	"github.com/google/uuid"
	gowarc "github.com/nlnwa/gowarc/v3"
)

// digestAlgorithm is the digest of every record: SHA-256 in base 16, as
// WARC 1.1 suggests and warcio writes.
const digestAlgorithm = "sha256"

// recordOptions are those of the records whose block gowarc parses: the
// warcinfo, and the response a revisit is made from.
func recordOptions() []gowarc.WarcRecordOption {
	return []gowarc.WarcRecordOption{
		gowarc.WithVersion(gowarc.V1_1),
		gowarc.WithDefaultDigestAlgorithm(digestAlgorithm),
		gowarc.WithAddMissingDigest(true),
		// A server's odd bytes are kept, not judged: the block is what came.
		gowarc.WithBlockErrorPolicy(gowarc.ErrIgnore),
		gowarc.WithSyntaxErrorPolicy(gowarc.ErrIgnore),
	}
}

// exchangeOptions are those of an exchange's request and response
// records, two per fetch. gowarc neither parses their HTTP block again
// (polite holds the head and the payload apart already, and computes the
// payload digest itself) nor checks the WARC fields polite has just set
// (which cost a WHATWG URL parse per field); it still builds the record
// and computes its block digest (see build).
func exchangeOptions() []gowarc.WarcRecordOption {
	return append(recordOptions(),
		gowarc.WithSkipParseBlock(),
		gowarc.WithSpecViolationPolicy(gowarc.ErrIgnore),
	)
}

// bufferMem is the most of a record's block gowarc keeps in memory, as by
// default; the rest goes to a temporary file.
const bufferMem = 1 << 20

// buildPair builds the request record and a response record holding the
// response head and payload, tied by WARC-Concurrent-To. parse says
// gowarc parses the response's block, as a revisit made from it needs.
func (w *Writer) buildPair(ex Exchange, payload []byte, parse bool) (req, resp gowarc.WarcRecord, err error) {
	req, err = w.build(gowarc.Request, ex, "application/http;msgtype=request", false, ex.Request, nil)
	if err != nil {
		return nil, nil, err
	}
	resp, err = w.build(gowarc.Response, ex, "application/http;msgtype=response", parse, ex.ResponseHead, payload)
	if err != nil {
		req.Close()
		return nil, nil, err
	}
	req.WarcHeader().AddId(gowarc.WarcConcurrentTo, resp.RecordId())
	resp.WarcHeader().AddId(gowarc.WarcConcurrentTo, req.RecordId())
	return req, resp, nil
}

// warcProtocol names the protocol of an exchange that is not HTTP/1.x:
// the IIPC's WARC-Protocol field proposal (warc-specifications issue 42),
// which readers that do not know it keep as an extension field.
const warcProtocol = "WARC-Protocol"

// build builds a record of type typ whose block is head then payload, an
// HTTP message. Unless parse is set, or head is one gowarc would split
// elsewhere than at its end, the block is not parsed: the payload digest
// is computed here from what follows the head, and the block digest by
// gowarc, and both are set where gowarc sets them, after Content-Length.
func (w *Writer) build(typ gowarc.RecordType, ex Exchange, contentType string, parse bool, head, payload []byte) (gowarc.WarcRecord, error) {
	end := headEnd(head)
	fast := !parse && end >= 0 && len(head)+len(payload) >= 4
	opts := w.rec
	if fast {
		opts = w.fast
	}
	// A block's buffer is its size, not gowarc's default 16 KiB.
	mem := min(max(len(head)+len(payload), 512), bufferMem)
	opts = append(opts[:len(opts):len(opts)], gowarc.WithBufferMaxMemBytes(int64(mem)))
	b, id := newBuilder(typ, opts)
	b.AddWarcHeader(gowarc.WarcRecordID, id)
	b.AddWarcHeader(gowarc.WarcDate, formatDate(ex.Date))
	b.AddWarcHeader(gowarc.WarcTargetURI, ex.URL)
	if ex.IP != "" {
		b.AddWarcHeader(gowarc.WarcIPAddress, ex.IP)
	}
	if ex.Protocol != "" {
		b.AddWarcHeader(warcProtocol, ex.Protocol)
	}
	b.AddWarcHeader(gowarc.ContentType, contentType)
	for _, p := range [][]byte{head, payload} {
		if _, err := b.Write(p); err != nil {
			b.Close()
			return nil, fmt.Errorf("warc: %s record of %s: %w", typ, ex.URL, err)
		}
	}
	r, _, err := b.Build()
	if err != nil {
		return nil, fmt.Errorf("warc: %s record of %s: %w", typ, ex.URL, err)
	}
	if fast {
		h := r.WarcHeader()
		h.Set(gowarc.WarcBlockDigest, r.Block().BlockDigest())
		d := sha256.New()
		d.Write(head[end:])
		d.Write(payload)
		h.Set(gowarc.WarcPayloadDigest, digestAlgorithm+":"+hex.EncodeToString(d.Sum(nil)))
	}
	// gowarc writes a field it does not know in HTTP's canonical case,
	// "Warc-Protocol": it is named back as the proposal spells it.
	for _, f := range *r.WarcHeader() {
		if f.Name == http.CanonicalHeaderKey(warcProtocol) {
			f.Name = warcProtocol
		}
	}
	return r, nil
}

// headEnd is where gowarc's HTTP block parser ends the head that starts a
// block: after the first line, its '\n' included, shorter than three
// bytes. It is -1 when head holds no such line.
func headEnd(head []byte) int {
	at := 0
	for {
		i := bytes.IndexByte(head[at:], '\n')
		if i < 0 {
			return -1
		}
		at += i + 1
		if i+1 < 3 {
			return at
		}
	}
}

// uuidMu serialises gowarc.NewRecordBuilder, which switches on
// google/uuid's random pool each time it is called by writing a global
// without a lock, with the reads of that global by uuid.NewString.
var uuidMu sync.Mutex

// newBuilder is a record builder and a fresh WARC-Record-ID for it.
func newBuilder(typ gowarc.RecordType, opts []gowarc.WarcRecordOption) (gowarc.WarcRecordBuilder, string) {
	uuidMu.Lock()
	defer uuidMu.Unlock()
	return gowarc.NewRecordBuilder(typ, opts...), "<urn:uuid:" + uuid.NewString() + ">"
}
