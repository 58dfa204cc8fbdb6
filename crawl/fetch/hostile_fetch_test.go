package fetch

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/polite-crawler/polite/crawl/fetch/fetchtest"
	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/urls"
)

func gzipped(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

func deflated(t *testing.T, b []byte, zlibWrap bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	var w io.WriteCloser
	if zlibWrap {
		w = zlib.NewWriter(&buf)
	} else {
		w, _ = flate.NewWriter(&buf, flate.DefaultCompression)
	}
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

func TestBombInflatesToItsSize(t *testing.T) {
	t.Parallel()
	for _, enc := range []string{"gzip", "deflate", "raw"} {
		t.Run(enc, func(t *testing.T) {
			b := fetchtest.Bomb(enc, 4<<20)
			var r io.Reader
			switch enc {
			case "gzip":
				zr, err := gzip.NewReader(bytes.NewReader(b))
				if err != nil {
					t.Fatal(err)
				}
				r = zr
			case "deflate":
				r = flate.NewReader(bytes.NewReader(b[2:]))
			default:
				r = flate.NewReader(bytes.NewReader(b))
			}
			n, err := io.Copy(io.Discard, r)
			if err != nil || n != 4<<20 {
				t.Errorf("%s bomb of %d bytes inflates to %d (%v), want %d", enc, len(b), n, err, 4<<20)
			}
			if len(b) > 64<<10 {
				t.Errorf("%s bomb is %d bytes on the wire, want a few KiB", enc, len(b))
			}
		})
	}
}

func TestReadBody(t *testing.T) {
	t.Parallel()
	text := []byte(strings.Repeat("polite body ", 100))
	zeros := make([]byte, 1000)
	gz := gzipped(t, text)
	tests := []struct {
		name     string
		encoding string
		body     []byte
		max      int64
		truncate bool
		announce int64 // Content-Length when not 0; the body's length otherwise
		want     []byte
		wantErr  frontier.Reason // a classify reason
	}{
		{name: "the largest int64 limit keeps the body whole", body: text, max: math.MaxInt64, want: text},
		{name: "the largest int64 limit, gzip", encoding: "gzip", body: gz, max: math.MaxInt64, want: text},
		{name: "announced over the limit", body: text, max: 100, announce: 1 << 40, wantErr: "too-large"},
		{name: "shorter than announced is not whole", body: text, max: 1 << 20, announce: int64(len(text)) + 1, wantErr: "reset"},
		{name: "unknown length", body: text, max: 1 << 20, announce: -1, want: text},
		{name: "identity", body: text, max: 1 << 20, want: text},
		{name: "gzip", encoding: "gzip", body: gz, max: 1 << 20, want: text},
		{name: "x-gzip, odd case and spaces", encoding: " X-Gzip ", body: gz, max: 1 << 20, want: text},
		{name: "deflate as zlib", encoding: "deflate", body: deflated(t, text, true), max: 1 << 20, want: text},
		{name: "deflate raw", encoding: "deflate", body: deflated(t, text, false), max: 1 << 20, want: text},
		{name: "empty gzip body (a 304 with the header)", encoding: "gzip", body: nil, max: 1 << 20, want: []byte{}},
		{name: "empty deflate body", encoding: "deflate", body: nil, max: 1 << 20, want: []byte{}},
		{name: "an encoding not asked for is kept as sent", encoding: "br", body: []byte{1, 2, 3}, max: 1 << 20, want: []byte{1, 2, 3}},
		{name: "over the limit", body: text, max: 100, wantErr: "too-large"},
		{name: "exactly the limit", body: text, max: int64(len(text)), want: text},
		{name: "gzip bomb", encoding: "gzip", body: fetchtest.Bomb("gzip", 64<<20), max: 1 << 20, wantErr: "too-large"},
		{name: "deflate bomb", encoding: "deflate", body: fetchtest.Bomb("deflate", 64<<20), max: 1 << 20, wantErr: "too-large"},
		{name: "raw deflate bomb", encoding: "deflate", body: fetchtest.Bomb("raw", 64<<20), max: 1 << 20, wantErr: "too-large"},
		{name: "gzip bomb cut for robots.txt", encoding: "gzip", body: fetchtest.Bomb("gzip", 64<<20), max: 1000, truncate: true, want: zeros[:1000]},
		{name: "not gzip", encoding: "gzip", body: []byte("plain text, not gzip"), max: 1 << 20, wantErr: "bad-encoding"},
		{name: "not deflate", encoding: "deflate", body: []byte{0xff, 0xff, 0xff, 0xff, 0xff}, max: 1 << 20, wantErr: "bad-encoding"},
		{name: "gzip with a bad checksum", encoding: "gzip", body: append(gz[:len(gz)-8:len(gz)-8], 0, 0, 0, 0, 0, 0, 0, 0), max: 1 << 20, wantErr: "bad-encoding"},
		{name: "gzip cut short", encoding: "gzip", body: gz[:len(gz)/2], max: 1 << 20, wantErr: "reset"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := &http.Response{
				Header:        http.Header{},
				Body:          io.NopCloser(bytes.NewReader(tt.body)),
				ContentLength: int64(len(tt.body)),
			}
			if tt.announce != 0 {
				resp.ContentLength = tt.announce
			}
			if tt.encoding != "" {
				resp.Header.Set("Content-Encoding", tt.encoding)
			}
			got, _, err := readBody(resp, tt.max, tt.truncate)
			if tt.wantErr != "" {
				if err == nil || Classify(err) != tt.wantErr {
					t.Fatalf("err = %v (%s), want %s", err, classifyOrNil(err), tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("err = %v", err)
			}
			if !bytes.Equal(got, tt.want) {
				t.Errorf("got %d bytes %q…, want %d bytes", len(got), urls.Clip(string(got), 20), len(tt.want))
			}
		})
	}
}

func classifyOrNil(err error) frontier.Reason {
	if err == nil {
		return "nil"
	}
	return Classify(err)
}

// TestGzipBombMemoryBounded: a 1 GiB gzip bomb from a loopback origin is
// refused after about --max-body bytes of decoding, not inflated whole.
func TestGzipBombMemoryBounded(t *testing.T) {
	// Not parallel: it measures the process's allocations, which the parallel tests would share.
	bomb := fetchtest.Bomb("gzip", 1<<30)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(bomb)
	}))
	defer srv.Close()
	path := "/bomb"
	cfg := DefaultOptions()
	cfg.MaxBody = 1 << 20
	cfg.AllowPrivate = true
	f := mustNew(t, cfg)
	defer f.Close()

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	resp := f.Get(context.Background(), mustURLOf(t, srv.URL+path), nil)
	runtime.ReadMemStats(&after)
	if resp.Reason != "too-large" {
		t.Fatalf("reason %q (%v), want too-large", resp.Reason, resp.Err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32<<20 {
		t.Errorf("the refused 1 GiB bomb allocated %d MiB, want under 32 MiB for a 1 MiB limit", alloc>>20)
	}
}

// TestIDNHostGoesOutInPunycode: an internationalised host name is
// requested in its ASCII form, in the dialled address and the urls.Host header.
func TestIDNHostGoesOutInPunycode(t *testing.T) {
	t.Parallel()
	var gotHost string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotHost = r.Host
		w.Write([]byte("willkommen"))
	}))
	defer srv.Close()
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	u, err := urls.Parse("http://Bücher.Example:" + port + "/ö")
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultOptions()
	cfg.AllowPrivate = true
	f := mustNew(t, cfg)
	defer f.Close()
	var dialled string
	tr := f.client.Transport.(*http.Transport)
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		dialled = addr // the name stands for the loopback server
		var d net.Dialer
		return d.DialContext(ctx, network, srv.Listener.Addr().String())
	}
	resp := f.Get(context.Background(), u, nil)
	if resp.Err != nil || string(resp.Body) != "willkommen" {
		t.Fatalf("get %s: %v %q", u, resp.Err, resp.Body)
	}
	want := "xn--bcher-kva.example:" + port
	if dialled != want || gotHost != want {
		t.Errorf("dialled %q, urls.Host header %q; want both %q", dialled, gotHost, want)
	}
}

func TestClassify(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		want frontier.Reason
	}{
		{"too large", fmt.Errorf("x: %w", ErrTooLarge), "too-large"},
		{"private", fmt.Errorf("dial: %w 10.0.0.1", ErrPrivate), "private-address"},
		{"bad encoding", fmt.Errorf("%w: gzip: invalid header", ErrBadEncoding), "bad-encoding"},
		{"canceled", context.Canceled, "canceled"},
		{"deadline", context.DeadlineExceeded, "timeout"},
		{"dns", &net.DNSError{Err: "no such host", Name: "x.invalid"}, "dns"},
		{"cut", io.ErrUnexpectedEOF, "reset"},
		{"malformed header", errors.New(`net/http: HTTP/1.x transport connection broken: malformed MIME header line: "X\x00: y"`), "bad-headers"},
		{"headers too big", errors.New("net/http: server response headers exceeded 65536 bytes; aborted"), "bad-headers"},
		{"TLS version the server chose", errors.New("tls: server selected unsupported protocol version 301"), "tls-version"},
		{"plain HTTP to https", fmt.Errorf("get: %w", http.ErrSchemeMismatch), "tls"},
		{"other", errors.New("something else"), "network"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Classify(tt.err); got != tt.want {
				t.Errorf("classify(%v) = %q, want %q", tt.err, got, tt.want)
			}
		})
	}
}

// TestHostileLinks: a page cannot move its links with a second <base>, and
// addresses have no registrable domain, so --scope domain does not join
// 10.0.0.1 to 127.0.0.1 (both "0.1" to a public suffix list).
func TestHostileLinks(t *testing.T) {
	t.Parallel()
	base := mustURLOf(t, "http://example.org/dir/page")
	got := urls.Links([]byte(`<base href="/first/"><base href="http://169.254.169.254/"><a href="x">x</a>`), base, nil)
	if len(got) != 1 || got[0].String() != "http://example.org/first/x" {
		t.Errorf("links under two <base> tags = %v, want [http://example.org/first/x]", got)
	}
	scope := []struct {
		from, to string
		want     bool
	}{
		{"http://127.0.0.1/", "http://10.0.0.1/", false},
		{"http://127.0.0.1/", "http://127.0.0.1:8080/", true},
		{"http://[::1]/", "http://[fe80::1]/", false},
		{"http://www.example.org/", "http://10.0.0.1/", false},
		{"http://www.example.org/", "http://img.example.org/", true},
	}
	for _, tt := range scope {
		if g := urls.InScope(urls.ScopeDomain, mustURLOf(t, tt.from), mustURLOf(t, tt.to)); g != tt.want {
			t.Errorf("InScope(domain, %s, %s) = %v, want %v", tt.from, tt.to, g, tt.want)
		}
	}
}
