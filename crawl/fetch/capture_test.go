package fetch

import (
	"bytes"
	"compress/gzip"
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
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
