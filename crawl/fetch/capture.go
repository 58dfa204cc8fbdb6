package fetch

import (
	"context"
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

// newCapture gathers what the records of req and resp keep. polite
// decodes gzip and deflate bodies itself (the size limit applies to what
// is decoded), and the record keeps that decoded payload: its head then
// drops Content-Encoding and Content-Length, which spoke of the bytes on
// the wire, so that a replay tool serves the payload as it is.
func newCapture(req *http.Request, resp *http.Response, body []byte, cut bool, note *connNote, at time.Time) *Capture {
	rec := *resp
	switch strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding"))) {
	case "gzip", "x-gzip", "deflate":
		rec.Header = resp.Header.Clone()
		rec.Header.Del("Content-Encoding")
		rec.Header.Del("Content-Length")
	}
	c := &Capture{At: at, IP: note.addr(), Request: warc.RequestHead(req), Head: warc.ResponseHead(&rec), Payload: body, Cut: cut}
	if resp.ProtoMajor == 2 {
		c.Protocol = "h2"
	}
	return c
}

// connNote is what one request learns of its connection: the address
// dialled (from httptrace's GotConn), unless the guard sent it through a
// proxy.
type connNote struct {
	mu      sync.Mutex
	ip      string
	proxied bool
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
