package fetch

import (
	"bytes"
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"sync"
	"time"
)

// The WARC response record keeps an HTTP/1.x answer's head as it came
// off the connection: the status line and header fields in the server's
// order and case, which net/http's parsed Header (canonical names, a
// map) has lost. Every connection the client dials is a headConn; a
// request that keeps its exchange arms its connection when it gets it
// (httptrace's GotConn), and the bytes read after that, up to the blank
// line that ends the head (past any 1xx interim answer), are the head.
// Over TLS the client makes the handshake itself (dialTLSHeads), so the
// headConn reads the bytes after decryption: HTTPS answers are recorded
// the same way. HTTP/2 sends no such bytes (its fields come compressed in
// binary frames): its answers keep the head rebuilt (warc.ResponseHead).

type dialFunc = func(context.Context, string, string) (net.Conn, error)

// dialHeads dials with dial and records heads on the connections.
func dialHeads(dial dialFunc) dialFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &headConn{Conn: c}, nil
	}
}

// dialTLSHeads is the transport's TLS dial: dial, then the handshake
// with cfg (offering h2 and http/1.1) within timeout. An HTTP/1.1
// connection comes back as a headConn over the TLS connection; one that
// negotiated h2, or one to a proxy, as the *tls.Conn itself, which the
// transport needs to speak HTTP/2 or to tunnel.
func dialTLSHeads(dial dialFunc, cfg *tls.Config, timeout time.Duration, isProxy func(string) bool) dialFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		raw, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		c := cfg.Clone()
		if c.ServerName == "" {
			c.ServerName, _, _ = net.SplitHostPort(addr)
		}
		proxy := isProxy(addr)
		if c.NextProtos = []string{"h2", "http/1.1"}; proxy {
			c.NextProtos = []string{"http/1.1"}
		}
		if timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, timeout)
			defer cancel()
		}
		tc := tls.Client(raw, c)
		if err := tc.HandshakeContext(ctx); err != nil {
			raw.Close()
			return nil, err
		}
		if proxy || tc.ConnectionState().NegotiatedProtocol == "h2" {
			return tc, nil
		}
		return &headConn{Conn: tc}, nil
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
