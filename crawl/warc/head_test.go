package warc

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestHeads: the heads rebuilt from a real exchange on loopback.
func TestHeads(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["X-Odd"] = []string{"caf\xe9"}
		w.Header().Add("Set-Cookie", "a=1")
		w.Header().Add("Set-Cookie", "b=2")
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusTeapot)
		io.WriteString(w, "short and stout")
	}))
	defer srv.Close()
	req, err := http.NewRequest(http.MethodGet, srv.URL+"/pot?x=1", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("User-Agent", "polite/test")
	req.Header.Set("If-None-Match", `"v1"`)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()

	host := req.URL.Host
	if got, want := string(RequestHead(req)), "GET /pot?x=1 HTTP/1.1\r\nHost: "+host+"\r\nUser-Agent: polite/test\r\nIf-None-Match: \"v1\"\r\n\r\n"; got != want {
		t.Errorf("RequestHead:\n got %q\nwant %q", got, want)
	}
	want := "HTTP/1.1 418 I'm a teapot\r\nContent-Length: 15\r\nContent-Type: text/plain\r\nDate: " + resp.Header.Get("Date") +
		"\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\nX-Odd: caf\xe9\r\n\r\n"
	if got := string(ResponseHead(resp)); got != want {
		t.Errorf("ResponseHead:\n got %q\nwant %q", got, want)
	}
}

// BenchmarkHeads: the request and response heads of one fetch, as the
// crawl rebuilds them for every page.
func BenchmarkHeads(b *testing.B) {
	req, err := http.NewRequest(http.MethodGet, "http://127.0.0.1:8080/page/7", nil)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("User-Agent", "polite/test (+https://example.org/polite)")
	req.Header.Set("Accept-Encoding", "gzip, deflate")
	resp := &http.Response{Status: "200 OK", StatusCode: 200, Proto: "HTTP/1.1", Request: req, Header: http.Header{
		"Content-Type":   {"text/html; charset=utf-8"},
		"Content-Length": {"212"},
		"Date":           {"Mon, 30 Nov 2026 12:00:00 GMT"},
		"Last-Modified":  {"Mon, 30 Nov 2026 11:00:00 GMT"},
		"Etag":           {`"p7"`},
	}}
	b.ReportAllocs()
	for b.Loop() {
		RequestHead(req)
		ResponseHead(resp)
	}
}

// TestHeadOverHTTP2: an HTTP/2 answer's head in its HTTP/1.1 form, as the
// IIPC's warc-http2 proposal writes it: "HTTP/1.1 418 " (no reason
// phrase, which HTTP/2 does not carry) and the field names in lower case,
// as HTTP/2 sends them; never a "HTTP/2" status line.
func TestHeadOverHTTP2(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["ETag"] = []string{`"v1"`}
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusTeapot)
		io.WriteString(w, "short and stout")
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL + "/pot")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.ProtoMajor != 2 {
		t.Fatalf("answered over %s, want HTTP/2", resp.Proto)
	}
	want := "HTTP/1.1 418 \r\ncontent-length: 15\r\ncontent-type: text/plain\r\ndate: " + resp.Header.Get("Date") + "\r\netag: \"v1\"\r\n\r\n"
	if got := string(ResponseHead(resp)); got != want {
		t.Errorf("ResponseHead:\n got %q\nwant %q", got, want)
	}
}
