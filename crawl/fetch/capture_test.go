package fetch

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// With --warc an encoded answer is kept as it came: the record's payload
// is the gzip bytes sent and its head keeps Content-Encoding and
// Content-Length, while the body polite reads (links, --out) is decoded.
func TestCaptureKeepsTheBodyAsSent(t *testing.T) {
	t.Parallel()
	page := []byte(strings.Repeat("<p>hello</p>", 100))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(page)
	zw.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(gz.Bytes())
	}))
	defer srv.Close()
	cfg := DefaultOptions()
	cfg.AllowPrivate = true
	f := mustNew(t, cfg)
	t.Cleanup(f.Close)
	f.KeepExchanges()
	u, _ := url.Parse(srv.URL + "/")
	r := f.Get(context.Background(), u, nil)
	if r.Err != nil || r.Capture == nil {
		t.Fatalf("get: %v, capture %v", r.Err, r.Capture)
	}
	if !bytes.Equal(r.Body, page) {
		t.Errorf("body %.40q..., want the decoded page", r.Body)
	}
	if !bytes.Equal(r.Capture.Payload, gz.Bytes()) {
		t.Errorf("record payload of %d bytes, want the %d gzip bytes sent", len(r.Capture.Payload), gz.Len())
	}
	for _, want := range []string{"Content-Encoding: gzip\r\n", "Content-Length: " + strconv.Itoa(gz.Len()) + "\r\n"} {
		if !bytes.Contains(r.Capture.Head, []byte(want)) {
			t.Errorf("record head lacks %q:\n%s", want, r.Capture.Head)
		}
	}
}

// With --warc an HTTP/1.1 answer's head is recorded as it came: the
// status line and fields in the server's order and case, past an interim
// 100 answer; a chunked answer's Transfer-Encoding is dropped with its
// chunking. Two requests on one kept-alive connection each get their own.
func TestCaptureKeepsTheHeadAsReceived(t *testing.T) {
	t.Parallel()
	answers := []string{
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nx-lower: a\r\nETag: \"v1\"\r\nContent-Type: text/html\r\nContent-Length: 5\r\n\r\nhello",
		"HTTP/1.1 404 Not Found\r\nServer: odd\r\ncontent-type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n4\r\ngone\r\n0\r\n\r\n",
	}
	want := []string{
		"HTTP/1.1 200 OK\r\nx-lower: a\r\nETag: \"v1\"\r\nContent-Type: text/html\r\nContent-Length: 5\r\n\r\n",
		"HTTP/1.1 404 Not Found\r\nServer: odd\r\ncontent-type: text/plain\r\n\r\n",
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var conns atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for _, a := range answers {
					if _, err := http.ReadRequest(br); err != nil {
						return
					}
					c.Write([]byte(a))
				}
			}()
		}
	}()
	cfg := DefaultOptions()
	cfg.AllowPrivate = true
	f := mustNew(t, cfg)
	t.Cleanup(f.Close)
	f.KeepExchanges()
	for i, path := range []string{"/a", "/b"} {
		u, _ := url.Parse("http://" + ln.Addr().String() + path)
		r := f.Get(context.Background(), u, nil)
		if r.Capture == nil {
			t.Fatalf("%s: no capture (%v)", path, r.Err)
		}
		if string(r.Capture.Head) != want[i] {
			t.Errorf("%s: head\n%q, want\n%q", path, r.Capture.Head, want[i])
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("the two requests came on %d connections, want one kept alive", n)
	}
}

// An answer to a request that carried a secret keeps its head as
// received but for its cookies: each Set-Cookie field, whatever its case
// and folded lines, keeps its name with the value [redacted]; a chunked
// answer loses its Transfer-Encoding as well.
func TestRecordHeadRedactsCookies(t *testing.T) {
	head := "HTTP/1.1 200 OK\r\nset-cookie: a=s3cr3t\r\nX-Other: keep\r\nSet-Cookie: b=s3cr3t;\r\n Path=/\r\nTransfer-Encoding: chunked\r\nSet-Cookie2: c=s3cr3t\r\n\r\n"
	n := &connNote{raw: []byte(head)}
	resp := &http.Response{ProtoMajor: 1, TransferEncoding: []string{"chunked"}}
	want := "HTTP/1.1 200 OK\r\nset-cookie: [redacted]\r\nX-Other: keep\r\nSet-Cookie: [redacted]\r\nSet-Cookie2: [redacted]\r\n\r\n"
	if got := string(recordHead(n, resp, true)); got != want {
		t.Errorf("redacted head\n%q, want\n%q", got, want)
	}
	resp.TransferEncoding = nil
	if got := string(recordHead(n, resp, false)); got != head {
		t.Errorf("head without a secret\n%q, want it as received", got)
	}
}
