package fetch

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/polite-crawler/polite/crawl/fetch/fetchtest"
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
// Over TLS too: the head is read after decryption, the same way.
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
	ca := fetchtest.NewCA(t, "capture CA")
	for _, scheme := range []string{"http", "https"} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		cfg := DefaultOptions()
		cfg.AllowPrivate = true
		if scheme == "https" {
			ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{ca.Leaf(t, fetchtest.Always, "127.0.0.1")}})
			cfg.CAFile = ca.WriteFile(t)
		}
		conns := serveAnswers(ln, answers)
		f := mustNew(t, cfg)
		t.Cleanup(f.Close)
		f.KeepExchanges()
		for i, path := range []string{"/a", "/b"} {
			u, _ := url.Parse(scheme + "://" + ln.Addr().String() + path)
			r := f.Get(context.Background(), u, nil)
			if r.Capture == nil {
				t.Fatalf("%s %s: no capture (%v)", scheme, path, r.Err)
			}
			if string(r.Capture.Head) != want[i] || r.Capture.Protocol != "" {
				t.Errorf("%s %s: head\n%q, protocol %q; want\n%q, none", scheme, path, r.Capture.Head, r.Capture.Protocol, want[i])
			}
		}
		if n := conns.Load(); n != 1 {
			t.Errorf("%s: the two requests came on %d connections, want one kept alive", scheme, n)
		}
	}
}

// serveAnswers answers the requests of each connection ln accepts with
// answers, in turn, as they are written; it counts the connections.
func serveAnswers(ln net.Listener, answers []string) *atomic.Int32 {
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
	return &conns
}

// An answer over HTTP/2 has no head in bytes: its record keeps the
// HTTP/1.1 form of what came, "HTTP/1.1 200 " and the field names in
// lower case as HTTP/2 sends them, and says h2 (WARC-Protocol); a secret
// request's cookies are redacted there too. Its request is written in
// HTTP/1.1 form too, its names in lower case.
func TestCaptureOverHTTP2(t *testing.T) {
	t.Parallel()
	ca := fetchtest.NewCA(t, "h2 CA")
	srv := fetchtest.StartTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header()["ETag"] = []string{`"v2"`}
		w.Header().Set("Set-Cookie", "session=s3cr3t")
		w.Write([]byte("hello over " + r.Proto))
	}), fetchtest.ServerOptions{Cert: ca.Leaf(t, fetchtest.Always, "127.0.0.1"), HTTP2: true})
	for _, secret := range []bool{false, true} {
		cfg := DefaultOptions()
		cfg.AllowPrivate, cfg.CAFile = true, ca.WriteFile(t)
		cookie := "session=s3cr3t"
		if secret {
			cfg.Headers, cookie = Headers{{Name: "Authorization", Value: "Bearer t0ken", Secret: true}}, Redacted
		}
		f := mustNew(t, cfg)
		t.Cleanup(f.Close)
		f.KeepExchanges()
		f.Origins().Add(mustURLOf(t, srv.URL))
		r := f.Get(context.Background(), mustURLOf(t, srv.URL+"/"), nil)
		if r.Err != nil || r.Capture == nil || string(r.Body) != "hello over HTTP/2.0" || r.Credentials != secret {
			t.Fatalf("secret %v: %q, %v, capture %v, credentials sent %v", secret, r.Body, r.Err, r.Capture, r.Credentials)
		}
		want := "HTTP/1.1 200 \r\ncontent-length: 19\r\ncontent-type: text/html\r\ndate: " + r.Header.Get("Date") +
			"\r\netag: \"v2\"\r\nset-cookie: " + cookie + "\r\n\r\n"
		if got := string(r.Capture.Head); got != want || r.Capture.Protocol != "h2" {
			t.Errorf("secret %v: head\n%q, protocol %q; want\n%q, h2", secret, got, r.Capture.Protocol, want)
		}
		if req := string(r.Capture.Request); !strings.HasPrefix(req, "GET / HTTP/1.1\r\nhost: ") || !strings.Contains(req, "\r\nuser-agent: ") {
			t.Errorf("secret %v: request head %q, want its HTTP/1.1 form with lower-case names", secret, req)
		}
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
