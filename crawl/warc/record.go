package warc

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	gowarc "github.com/nlnwa/gowarc/v3"
)

// Exchange is one fetch as polite made it: the request as sent and the
// response as received.
type Exchange struct {
	URL  string    // the target URI
	Date time.Time // when the request was sent
	IP   string    // the address dialled; "" when not known
	// Request is the request as sent: request line, header lines and the
	// blank line, then the body if any.
	Request []byte
	// ResponseHead is the status line and header lines as received, ending
	// in the blank line. Odd bytes are kept as they came.
	ResponseHead []byte
	// Payload is the body as received (not decoded), or its first bytes
	// when Truncated.
	Payload []byte
	// Truncated says the body was cut at the size limit: the response
	// record says WARC-Truncated: length.
	Truncated bool
	// Protocol is the application protocol when it is not HTTP/1.x
	// ("h2"): the request, response or revisit records say
	// WARC-Protocol: h2, as the IIPC's warc-http2 proposal does.
	Protocol string
}

// Capture is what was written for one fetch: what a later revisit must
// refer to, and where the response or revisit record lies.
type Capture struct {
	RequestID     string    // WARC-Record-ID of the request record, "<urn:uuid:…>"
	RecordID      string    // WARC-Record-ID of the response or revisit record
	Date          time.Time // its WARC-Date
	PayloadDigest string    // WARC-Payload-Digest, "sha256:…"
	File          string    // the WARC file's base name
	Offset        int64     // where the record's gzip member starts
	Length        int64     // the member's length
}

// Profile is a revisit record's kind.
type Profile int

const (
	// NotModified is a 304 to a conditional request.
	NotModified Profile = iota + 1
	// IdenticalPayload is a 200 whose payload digest equals the last
	// capture's.
	IdenticalPayload
)

func (p Profile) uri() string {
	switch p {
	case NotModified:
		return gowarc.ProfileServerNotModifiedV1_1
	case IdenticalPayload:
		return gowarc.ProfileIdenticalPayloadDigestV1_1
	}
	return ""
}

// Ref names the capture a revisit refers to, as Capture gave it.
type Ref struct {
	RecordID      string
	URL           string
	Date          time.Time
	PayloadDigest string
}

// Revisit is a fetch whose payload is not stored again: a 304, or a 200
// whose payload is the one already captured at Ref.
type Revisit struct {
	Profile Profile
	Exchange
	Ref Ref
}

// WriteExchange writes a request record and a response record, tied by
// WARC-Concurrent-To, and returns the response's Capture.
func (w *Writer) WriteExchange(ex Exchange) (Capture, error) {
	if err := ex.check(); err != nil {
		return Capture{}, err
	}
	req, resp, err := w.buildPair(ex, ex.Payload, false)
	if err != nil {
		return Capture{}, err
	}
	if ex.Truncated {
		resp.WarcHeader().Set(gowarc.WarcTruncated, "length")
	}
	return w.writePair(ex, req, resp)
}

// WriteRevisit writes a request record and a revisit record referring to
// rv.Ref, tied by WARC-Concurrent-To. The revisit's block is the response
// head alone. For IdenticalPayload, rv.Payload is the body received; its
// digest must equal rv.Ref.PayloadDigest. For NotModified the revisit
// carries the original's payload digest, when Ref has it.
func (w *Writer) WriteRevisit(rv Revisit) (Capture, error) {
	if err := rv.check(); err != nil {
		return Capture{}, err
	}
	if rv.Profile.uri() == "" {
		return Capture{}, fmt.Errorf("warc: revisit of %s: unknown profile %d", rv.URL, rv.Profile)
	}
	if rv.Ref.RecordID == "" || rv.Ref.URL == "" || rv.Ref.Date.IsZero() {
		return Capture{}, fmt.Errorf("warc: revisit of %s: the original's record id, URL and date are needed", rv.URL)
	}
	payload := rv.Payload
	if rv.Profile == NotModified {
		payload = nil
	}
	req, resp, err := w.buildPair(rv.Exchange, payload, true)
	if err != nil {
		return Capture{}, err
	}
	defer resp.Close()
	digest := resp.WarcHeader().Get(gowarc.WarcPayloadDigest)
	if rv.Profile == IdenticalPayload && digest != rv.Ref.PayloadDigest {
		req.Close()
		return Capture{}, fmt.Errorf("warc: revisit of %s: payload digest %s is not the original's %s", rv.URL, digest, rv.Ref.PayloadDigest)
	}
	rec, err := resp.ToRevisitRecord(&gowarc.RevisitRef{
		Profile:        rv.Profile.uri(),
		TargetRecordId: rv.Ref.RecordID,
		TargetUri:      rv.Ref.URL,
		TargetDate:     formatDate(rv.Ref.Date),
	})
	if err != nil {
		req.Close()
		return Capture{}, fmt.Errorf("warc: revisit of %s: %w", rv.URL, err)
	}
	// The revisit keeps the record id the request's WARC-Concurrent-To
	// names; the response it was made from is never written.
	h := rec.WarcHeader()
	h.Delete(gowarc.WarcPayloadDigest)
	if d := rv.Ref.PayloadDigest; d != "" {
		h.Set(gowarc.WarcPayloadDigest, d)
	}
	return w.writePair(rv.Exchange, req, rec)
}

func (ex *Exchange) check() error {
	switch {
	case ex.URL == "":
		return errors.New("warc: exchange without a URL")
	case ex.Date.IsZero():
		return fmt.Errorf("warc: exchange of %s without a date", ex.URL)
	case len(ex.Request) == 0:
		return fmt.Errorf("warc: exchange of %s without the request", ex.URL)
	case len(ex.ResponseHead) == 0:
		return fmt.Errorf("warc: exchange of %s without the response head", ex.URL)
	case strings.ContainsAny(ex.URL, " \r\n\t"):
		return fmt.Errorf("warc: URL %q has white space", ex.URL)
	}
	return nil
}

// writePair writes req and resp together and indexes resp.
func (w *Writer) writePair(ex Exchange, req, resp gowarc.WarcRecord) (Capture, error) {
	defer req.Close()
	defer resp.Close()
	c := Capture{
		RequestID:     "<" + req.RecordId() + ">",
		RecordID:      "<" + resp.RecordId() + ">",
		Date:          ex.Date,
		PayloadDigest: resp.WarcHeader().Get(gowarc.WarcPayloadDigest),
	}
	line := newCDXLine(ex, resp)
	err := w.write([]gowarc.WarcRecord{req, resp}, func(wf *warcFile, spans []span) {
		sp := spans[1]
		c.File, c.Offset, c.Length = wf.name, sp.offset, sp.length
		line.File, line.Offset, line.Length = wf.name, sp.offset, sp.length
		wf.index = append(wf.index, line)
	})
	if err != nil {
		return Capture{}, err
	}
	return c, nil
}

// warcinfo builds the record that opens the file called name.
func (w *Writer) warcinfo(name string) (gowarc.WarcRecord, error) {
	b, id := newBuilder(gowarc.Warcinfo, w.rec)
	b.AddWarcHeader(gowarc.WarcRecordID, id)
	b.AddWarcHeader(gowarc.WarcDate, formatDate(w.opts.Now()))
	b.AddWarcHeader(gowarc.WarcFilename, name)
	b.AddWarcHeader(gowarc.ContentType, gowarc.ApplicationWarcFields)
	in := w.opts.Info
	fields := [][2]string{
		{"software", in.Software},
		{"format", "WARC File Format 1.1"},
		{"conformsTo", "http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/"},
		{"http-header-user-agent", in.UserAgent},
		{"robots", in.Robots},
		{"isPartOf", in.Job},
		{"run", in.Run},
		{"requisites", in.Requisites},
		{"purpose", in.Purpose},
		{"redacted", in.Redacted},
	}
	var buf bytes.Buffer
	for _, f := range fields {
		if f[1] == "" {
			continue
		}
		if strings.ContainsAny(f[1], "\r\n") {
			return nil, fmt.Errorf("warc: warcinfo field %s: %q has a line break", f[0], f[1])
		}
		fmt.Fprintf(&buf, "%s: %s\r\n", f[0], f[1])
	}
	if _, err := b.Write(buf.Bytes()); err != nil {
		return nil, err
	}
	r, _, err := b.Build()
	if err != nil {
		return nil, fmt.Errorf("warc: warcinfo of %s: %w", name, err)
	}
	return r, nil
}

func formatDate(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// PayloadDigest is the WARC-Payload-Digest a record of payload gets:
// "sha256:" and the digest in lower-case base 16. A caller compares it
// with a Capture's to tell an unchanged payload.
func PayloadDigest(payload []byte) string {
	sum := sha256.Sum256(payload)
	return digestAlgorithm + ":" + hex.EncodeToString(sum[:])
}
