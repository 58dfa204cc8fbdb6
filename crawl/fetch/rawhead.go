package fetch

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"sync"
)

// The WARC response record keeps an HTTP/1.x answer's head as it came
// off the connection: the status line and header fields in the server's
// order and case, which net/http's parsed Header (canonical names, a
// map) has lost. Every connection the client dials is a headConn; a
// request that keeps its exchange arms its connection when it gets it
// (httptrace's GotConn), and the bytes read after that, up to the blank
// line that ends the head (past any 1xx interim answer), are the head.
// Over TLS the transport wraps the connection itself, so the bytes read
// here are not the head: HTTPS and HTTP/2 answers keep the rebuilt head.

// dialHeads dials with dial and records heads on the connections.
func dialHeads(dial func(context.Context, string, string) (net.Conn, error)) func(context.Context, string, string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &headConn{Conn: c}, nil
	}
}

// headConn is a connection that can record the head of the next answer.
type headConn struct {
	net.Conn
	mu   sync.Mutex
	note *connNote // the request whose answer's head is read; nil: none
	buf  []byte
}

// arm records the head of the next answer for n.
func (c *headConn) arm(n *connNote) {
	c.mu.Lock()
	c.note, c.buf = n, c.buf[:0]
	c.mu.Unlock()
}

func (c *headConn) Read(p []byte) (int, error) {
	k, err := c.Conn.Read(p)
	if k > 0 {
		c.mu.Lock()
		if c.note != nil {
			c.take(p[:k])
		}
		c.mu.Unlock()
	}
	return k, err
}

// take adds bytes read; once the head is whole it goes to the note.
func (c *headConn) take(b []byte) {
	c.buf = append(c.buf, b...)
	for {
		i := bytes.Index(c.buf, []byte("\r\n\r\n"))
		if i < 0 {
			if len(c.buf) > maxHeaderBytes {
				c.note, c.buf = nil, nil // not a head polite keeps
			}
			return
		}
		head := c.buf[:i+4]
		if len(head) > 9 && bytes.HasPrefix(head, []byte("HTTP/1.")) && head[9] == '1' {
			c.buf = c.buf[i+4:] // an interim 1xx answer: the head is the next one
			continue
		}
		c.note.setHead(bytes.Clone(head))
		c.note, c.buf = nil, nil
		return
	}
}

// recordHead returns the head as received, adjusted to the body as the
// record keeps it: without Transfer-Encoding when net/http removed the
// chunking; with the values of its Set-Cookie fields Redacted when
// redactCookies (the request carried a secret), their names as received.
// nil when no head was recorded.
func recordHead(n *connNote, resp *http.Response, redactCookies bool) []byte {
	head := n.head()
	if head == nil || resp.ProtoMajor != 1 {
		return nil
	}
	chunked := len(resp.TransferEncoding) > 0
	if !chunked && !redactCookies {
		return head
	}
	var out bytes.Buffer
	folded := false // the line continues a field dropped or redacted
	for i, line := range bytes.SplitAfter(head, []byte("\r\n")) {
		if i > 0 && folded && len(line) > 0 && (line[0] == ' ' || line[0] == '\t') {
			continue // obsolete line folding: the value goes on
		}
		folded = false
		if i == 0 {
			out.Write(line)
			continue
		}
		name, _, ok := bytes.Cut(line, []byte(":"))
		switch lower := string(bytes.ToLower(bytes.TrimSpace(name))); {
		case !ok:
		case chunked && lower == "transfer-encoding":
			folded = true
			continue
		case redactCookies && (lower == "set-cookie" || lower == "set-cookie2"):
			out.Write(name)
			out.WriteString(": " + Redacted + "\r\n")
			folded = true
			continue
		}
		out.Write(line)
	}
	return out.Bytes()
}
