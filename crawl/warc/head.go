package warc

import (
	"bytes"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// RequestHead is the head of req as net/http writes it for HTTP/1.1: the
// request line, Host, User-Agent and req's header fields, and the blank
// line. polite's requests have no body. Fields the transport adds on the
// wire (none for polite's transport, which does not ask for compression
// itself) are not in it.
func RequestHead(req *http.Request) []byte {
	var b bytes.Buffer
	r := *req // Write reads the fields it needs and changes none
	r.Body, r.GetBody, r.ContentLength = nil, nil, 0
	if err := r.Write(&b); err != nil {
		// Write fails only on a bad URL or header, which Do refused first;
		// keep what can be said.
		return fmt.Appendf(nil, "%s %s HTTP/1.1\r\n\r\n", req.Method, req.URL.RequestURI())
	}
	return b.Bytes()
}

// ResponseHead is the status line and header fields of resp, ending in
// the blank line, rebuilt from what net/http parsed: the values are the
// bytes received, odd ones included, but field names are in canonical
// case and sorted, and Transfer-Encoding is gone (the payload is not
// chunked). An HTTP/2 answer is written in its HTTP/1.1 form, as the
// IIPC's proposal for HTTP/2 in WARC (warc-http2) asks: "HTTP/1.1 200 "
// (HTTP/2 carries no reason phrase), its field names in lower case, as
// HTTP/2 sends them; its record says WARC-Protocol: h2.
func ResponseHead(resp *http.Response) []byte {
	var b bytes.Buffer
	status := resp.Status
	switch {
	case resp.ProtoMajor == 2:
		b.WriteString("HTTP/1.1 " + strconv.Itoa(resp.StatusCode) + " \r\n")
	case status == "":
		status = strconv.Itoa(resp.StatusCode) + " " + http.StatusText(resp.StatusCode)
		fallthrough
	default:
		b.WriteString(resp.Proto + " " + status + "\r\n")
	}
	for _, k := range slices.Sorted(maps.Keys(resp.Header)) {
		for _, v := range resp.Header[k] {
			if strings.ContainsAny(v, "\r\n") {
				v = lineBreaks.Replace(v)
			}
			if resp.ProtoMajor == 2 {
				b.WriteString(strings.ToLower(k))
			} else {
				b.WriteString(k)
			}
			b.WriteString(": ")
			b.WriteString(v)
			b.WriteString("\r\n")
		}
	}
	b.WriteString("\r\n")
	return b.Bytes()
}

var lineBreaks = strings.NewReplacer("\r", " ", "\n", " ")

// LowerNames is head with its field names in lower case, its first line
// (request or status line) as it is: the HTTP/1.1 form of a message sent
// over HTTP/2, whose field names are lower case on the wire.
func LowerNames(head []byte) []byte {
	out := bytes.Clone(head)
	lines := bytes.SplitAfter(out, []byte("\r\n"))
	for _, line := range lines[1:] {
		if i := bytes.IndexByte(line, ':'); i > 0 {
			copy(line, bytes.ToLower(line[:i]))
		}
	}
	return out
}
