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
// chunked). HTTP/2 is written as its status line would be in HTTP/1.1
// form, "HTTP/2.0 200 OK", which replay tools read, with its field names
// in lower case, as HTTP/2 sends them.
func ResponseHead(resp *http.Response) []byte {
	var b bytes.Buffer
	status := resp.Status
	if status == "" {
		status = strconv.Itoa(resp.StatusCode) + " " + http.StatusText(resp.StatusCode)
	}
	b.WriteString(resp.Proto + " " + status + "\r\n")
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
