package fetch

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"time"

	"github.com/polite-crawler/polite/crawl/warc"
)

// Capture is what a WARC record keeps of one exchange.
type Capture struct {
	At      time.Time // when the request was sent
	IP      string    // the address dialled; "" through a proxy
	Request []byte    // the request head as sent
	Head    []byte    // the response head, as received but for the encoding
	Payload []byte    // the decoded body, or its first bytes when cut
	Cut     bool      // the body was over the size limit
	// Protocol is the WARC-Protocol of an exchange over HTTP/2, "h2";
	// "" for HTTP/1.x.
	Protocol string
}

// capture is what the WARC records keep of the exchange resp answered
// (r, its Response so far): the request with the operator's secret
// headers written as Redacted, and the answer's cookies too when the
// request carried one (r.Credentials), in the head as received as in the
// rebuilt one.
func (f *Client) capture(resp *http.Response, r Response, body []byte, cut bool) *Capture {
	req := *resp.Request
	req.Header = f.headers.redactRequest(req.Header)
	return newCapture(&req, resp, body, cut, r.note, r.Start, r.Credentials)
}

// newCapture gathers what the records of req and resp keep: body is the
// payload as sent, its Content-Encoding kept (the client asks for no
// decoding; polite decodes gzip and deflate itself, and keepRaw keeps
// the bytes before that), so the head keeps the header fields that speak
// of it. A chunked transfer-coding is gone (WARC 1.1 allows it), and so is
// its Transfer-Encoding field. With secret, the cookies the head as
// received sets are Redacted (resp.Header's already are: redactAnswer).
func newCapture(req *http.Request, resp *http.Response, body []byte, cut bool, note *connNote, at time.Time, secret bool) *Capture {
	head := recordHead(note, resp, secret)
	if head == nil {
		head = warc.ResponseHead(resp)
	}
	c := &Capture{At: at, IP: note.addr(), Request: warc.RequestHead(req), Head: head, Payload: body, Cut: cut}
	if resp.ProtoMajor == 2 {
		c.Protocol, c.Request = "h2", warc.LowerNames(c.Request)
	}
	return c
}

// rawBody is the body of an encoded answer as it came, kept beside its
// decoding for the WARC record; nil when the answer is not encoded.
type rawBody struct{ bytes.Buffer }

// keepRaw starts keeping resp's body as it comes when keep and the body
// is gzip or deflate encoded: what the decoder reads, so no more than it
// needs for the size limit.
func keepRaw(keep bool, resp *http.Response) *rawBody {
	switch strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding"))) {
	case "gzip", "x-gzip", "deflate":
		if !keep {
			return nil
		}
		raw := &rawBody{}
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.TeeReader(resp.Body, raw), resp.Body}
		return raw
	}
	return nil
}

// or is the raw body, or decoded when there is none.
func (r *rawBody) or(decoded []byte) []byte {
	if r == nil {
		return decoded
	}
	return r.Bytes()
}

// connNote is what one request learns of its connection: the address
// dialled (from httptrace's GotConn), unless the guard sent it through a
// proxy.
type connNote struct {
	mu      sync.Mutex
	ip      string
	proxied bool
	raw     []byte // the answer's head as received (HTTP/1.x in clear)
}

func (n *connNote) setHead(h []byte) {
	n.mu.Lock()
	n.raw = h
	n.mu.Unlock()
}

// head is the answer's head as received; nil when not recorded.
func (n *connNote) head() []byte {
	if n == nil {
		return nil
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.raw
}

type connNoteKey struct{}

// withConnNote returns ctx with a note that the request's trace fills.
func withConnNote(ctx context.Context) (context.Context, *connNote) {
	n := &connNote{}
	ctx = context.WithValue(ctx, connNoteKey{}, n)
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: n.gotConn}), n
}

func connNoteOf(ctx context.Context) *connNote {
	n, _ := ctx.Value(connNoteKey{}).(*connNote)
	return n
}

func (n *connNote) gotConn(info httptrace.GotConnInfo) {
	if hc, ok := info.Conn.(*headConn); ok {
		hc.arm(n)
	}
	host, _, err := net.SplitHostPort(info.Conn.RemoteAddr().String())
	if err != nil {
		return
	}
	n.mu.Lock()
	n.ip = host
	n.mu.Unlock()
}

func (n *connNote) viaProxy() {
	n.mu.Lock()
	n.proxied = true
	n.mu.Unlock()
}

// addr is the server's address, "" when it is not known.
func (n *connNote) addr() string {
	if n == nil {
		return ""
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.proxied {
		return ""
	}
	return n.ip
}
