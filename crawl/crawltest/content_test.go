package crawltest

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/clock"
	"github.com/polite-crawler/polite/crawl/urls"
)

func TestBodyEqualsServed(t *testing.T) {
	// On a fake clock that moves whenever the origin waits (/trickle,
	// /slow): no real time passes.
	clk := clock.NewFake(t0)
	t.Cleanup(clk.Auto())
	o := New(Config{Pages: 5, Links: 2, Robots: "User-agent: *\nDisallow: /x\n", Clock: clk})
	srv := httptest.NewServer(o)
	defer srv.Close()
	cases := []struct {
		path   string
		status int
		ctype  string
	}{
		{"/page/0", 200, "text/html; charset=utf-8"},
		{"/page/4", 200, "text/html; charset=utf-8"},
		{"/page/9", 404, "text/plain; charset=utf-8"},
		{"/status/404", 404, "text/plain; charset=utf-8"},
		{"/status/503", 503, "text/plain; charset=utf-8"},
		{"/status/200", 200, "text/plain; charset=utf-8"},
		{"/redirect/1?to=/x", 302, "text/plain; charset=utf-8"},
		{"/loop/a", 302, "text/plain; charset=utf-8"},
		{"/big/100000", 200, "application/octet-stream"},
		{"/gzipbomb/5000", 200, "text/plain; charset=utf-8"},
		{"/trickle/3", 200, "text/plain; charset=utf-8"},
		{"/slow/1", 200, "text/plain; charset=utf-8"},
		{"/weird-headers", 200, "text/plain; charset=utf-8"},
		{"/softblock", 200, "text/plain; charset=utf-8"},
		{"/robots.txt", 200, "text/plain; charset=utf-8"},
		{"/some/other?q=1", 200, "text/plain; charset=utf-8"},
		{"/a%20b", 200, "text/plain; charset=utf-8"},
	}
	c := rawClient()
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			resp, got := get(t, c, srv.URL+tc.path)
			if resp.StatusCode != tc.status {
				t.Errorf("status %d, want %d", resp.StatusCode, tc.status)
			}
			if ct := resp.Header.Get("Content-Type"); ct != tc.ctype {
				t.Errorf("Content-Type %q, want %q", ct, tc.ctype)
			}
			if want := o.Body(tc.path); !bytes.Equal(got, want) {
				t.Errorf("served %d bytes %.80q, Body gives %d bytes %.80q", len(got), got, len(want), want)
			}
		})
	}

	// The package Body is the zero Config's, where /page/N is a plain path.
	_, plain := Serve(Config{})
	defer plain.Close()
	for _, p := range []string{"/page/1", "/robots.txt", "/x/y?z", "/big/10"} {
		if _, got := get(t, c, plain.URL+p); !bytes.Equal(got, Body(p)) {
			t.Errorf("zero config %s: served %q, Body gives %q", p, got, Body(p))
		}
	}
}

func TestBodies(t *testing.T) {
	cfg := Config{Pages: 5, Links: 2}
	cases := []struct {
		name, path string
		want       []string // substrings
		not        []string
	}{
		{"page links wrap", "/page/4", []string{"<title>Page 4</title>", `href="/page/0"`, `href="/page/1"`}, []string{`href="/page/2"`}},
		{"generic names its path", "/a/b?c=d", []string{"polite test origin\n", "path: /a/b?c=d\n"}, nil},
		{"softblock", "/softblock", []string{"Please slow down"}, nil},
		{"status", "/status/418", []string{"418"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := string(cfg.body(tc.path))
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("body %q lacks %q", got, w)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(got, w) {
					t.Errorf("body %q has %q", got, w)
				}
			}
		})
	}
	if a, b := Body("/a"), Body("/b"); bytes.Equal(a, b) {
		t.Errorf("Body(/a) = Body(/b) = %q, want different", a)
	}
	if got := len(Body("/big/12345")); got != 12345 {
		t.Errorf("len(Body(/big/12345)) = %d, want 12345", got)
	}
}

func TestStatusAndWeirdHeaders(t *testing.T) {
	o := New(Config{})
	cases := []struct {
		path   string
		status int
		header string
		want   []string
	}{
		{"/status/503", 503, "Retry-After", []string{"1"}},
		{"/status/429", 429, "Retry-After", []string{"1"}},
		{"/status/500", 500, "Retry-After", nil},
		{"/status/204", 204, "Content-Length", nil},
		{"/weird-headers", 200, "Retry-After", []string{"-10", "99999999999999999999", "soon, maybe"}},
		{"/weird-headers", 200, "RateLimit-Remaining", []string{"-5"}},
		{"/weird-headers", 200, "X-RateLimit-Reset", []string{"-1700000000"}},
		{"/weird-headers", 200, "RateLimit-Reset", []string{"18446744073709551616"}},
	}
	for _, tc := range cases {
		t.Run(tc.path+" "+tc.header, func(t *testing.T) {
			w := do(o, tc.path)
			if w.Code != tc.status {
				t.Errorf("status %d, want %d", w.Code, tc.status)
			}
			got := w.Header().Values(tc.header)
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("%s = %q, want %q", tc.header, got, tc.want)
			}
		})
	}
	// Weird headers win over the origin's own RateLimit headers.
	w := do(New(Config{Rate: 5, Burst: 5, RateLimitHeaders: true}), "/weird-headers")
	if got := w.Header().Get("RateLimit-Limit"); got != "ten" {
		t.Errorf("weird RateLimit-Limit = %q, want ten", got)
	}
}

func TestConditional(t *testing.T) {
	lm := LastModified.Format(http.TimeFormat)
	etag := ETag(Body("/doc"))
	cases := []struct {
		name   string
		path   string
		header []string
		want   int
	}{
		{"plain", "/doc", nil, 200},
		{"matching etag", "/doc", []string{"If-None-Match", etag}, 304},
		{"weak and listed etag", "/doc", []string{"If-None-Match", `"zz", W/` + etag}, 304},
		{"star", "/doc", []string{"If-None-Match", "*"}, 304},
		{"other etag", "/doc", []string{"If-None-Match", `"zz"`}, 200},
		{"since last-modified", "/doc", []string{"If-Modified-Since", lm}, 304},
		{"since later", "/doc", []string{"If-Modified-Since", LastModified.Add(time.Hour).Format(http.TimeFormat)}, 304},
		{"since earlier", "/doc", []string{"If-Modified-Since", LastModified.Add(-time.Hour).Format(http.TimeFormat)}, 200},
		{"since garbage", "/doc", []string{"If-Modified-Since", "yesterday"}, 200},
		{"etag wins over date", "/doc", []string{"If-None-Match", `"zz"`, "If-Modified-Since", lm}, 200},
		{"not for errors", "/status/404", []string{"If-None-Match", "*"}, 404},
		{"streamed body", "/big/10", []string{"If-None-Match", ETag([]byte("stream /big/10"))}, 304},
	}
	o := New(Config{})
	wantCond, want304 := 0, 0
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := do(o, tc.path, tc.header...)
			if w.Code != tc.want {
				t.Fatalf("status %d, want %d", w.Code, tc.want)
			}
			if tc.want == 304 && w.Body.Len() != 0 {
				t.Errorf("304 with a body of %d bytes", w.Body.Len())
			}
			if tc.want != 200 && tc.want != 304 {
				return
			}
			if got := w.Header().Get("Last-Modified"); got != lm {
				t.Errorf("Last-Modified %q, want %q", got, lm)
			}
			if tc.path == "/doc" {
				if got := w.Header().Get("ETag"); got != etag {
					t.Errorf("ETag %q, want %q", got, etag)
				}
			}
		})
		if len(tc.header) > 0 {
			wantCond++
		}
		if tc.want == 304 {
			want304++
		}
	}
	s := o.Stats()
	if s.Conditional != wantCond || s.NotModified != want304 {
		t.Errorf("Conditional %d, NotModified %d; want %d, %d", s.Conditional, s.NotModified, wantCond, want304)
	}
}

func TestRedirects(t *testing.T) {
	o, srv := Serve(Config{})
	defer srv.Close()
	c := rawClient()
	chain := []struct{ from, to string }{
		{"/redirect/2?to=/done", "/redirect/1?to=%2Fdone"},
		{"/redirect/1?to=%2Fdone", "/redirect/0?to=%2Fdone"},
		{"/redirect/0?to=%2Fdone", "/done"},
		{"/redirect/0?to=//evil.example/", "/"},
		{"/redirect/0", "/"},
		{"/loop/a", "/loop/b"},
		{"/loop/b", "/loop/a"},
	}
	for _, tc := range chain {
		t.Run(tc.from, func(t *testing.T) {
			resp, _ := get(t, c, srv.URL+tc.from)
			if resp.StatusCode != http.StatusFound {
				t.Errorf("status %d, want 302", resp.StatusCode)
			}
			if got := resp.Header.Get("Location"); got != tc.to {
				t.Errorf("Location %q, want %q", got, tc.to)
			}
		})
	}

	// A following client walks the chain to its end, and gives up on the loop.
	o.Reset()
	follow := srv.Client()
	resp, _ := get(t, follow, srv.URL+"/redirect/3?to=/end")
	if got := resp.Request.URL.RequestURI(); got != "/end" {
		t.Errorf("chain ended at %s, want /end", got)
	}
	if got := o.Stats().Requests; got != 5 {
		t.Errorf("chain took %d requests, want 5", got)
	}
	_, err := follow.Get(srv.URL + "/loop/a")
	if err == nil || !strings.Contains(err.Error(), "redirects") {
		t.Errorf("loop: err = %v, want too many redirects", err)
	}
	if s := o.Stats(); s.ByPath["/loop/a"] < 5 || s.ByPath["/loop/b"] < 5 {
		t.Errorf("loop hits a=%d b=%d, want at least 5 each", s.ByPath["/loop/a"], s.ByPath["/loop/b"])
	}
}

func TestGzipBombSmallOnTheWire(t *testing.T) {
	const n = 1 << 20
	o, srv := Serve(Config{})
	defer srv.Close()
	resp, wire := get(t, rawClient(), srv.URL+"/gzipbomb/1048576")
	if got := resp.Header.Get("Content-Encoding"); got != "gzip" {
		t.Errorf("Content-Encoding %q, want gzip", got)
	}
	if len(wire) > n/100 {
		t.Errorf("%d bytes on the wire, want under %d", len(wire), n/100)
	}
	if got := o.Stats().BytesServed; got != int64(len(wire)) {
		t.Errorf("BytesServed %d, want %d", got, len(wire))
	}
	z, err := gzip.NewReader(bytes.NewReader(wire))
	if err != nil {
		t.Fatalf("gzip: %v", err)
	}
	inflated, err := io.ReadAll(z)
	if err != nil {
		t.Fatalf("inflate: %v", err)
	}
	if len(inflated) != n || bytes.Count(inflated, []byte{0}) != n {
		t.Errorf("inflated to %d bytes, want %d zeros", len(inflated), n)
	}
}

func TestCancellation(t *testing.T) {
	cases := []struct {
		name      string
		cfg       Config
		path      string
		wantBytes int64 // at most
	}{
		{"trickle stops", Config{}, "/trickle/1000", 10},
		{"slow stops", Config{}, "/slow/60000", 0},
		{"queue wait stops", Config{Capacity: 0.01, QueueMax: 5}, "/q", 0},
		{"latency stops", Config{Latency: time.Minute}, "/l", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// The origin's clock stands still: the client goes away while
			// the origin holds its request (or, trickling, its body).
			clk := newWaitClock()
			tc.cfg.Clock = clk
			o, srv := Serve(tc.cfg)
			defer srv.Close()
			if tc.cfg.Capacity > 0 {
				// Occupy the server so /q has to wait its turn.
				o.mu.Lock()
				o.nextFree = clk.Now().Add(time.Minute)
				o.mu.Unlock()
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			errc := make(chan error, 1)
			go func() {
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+tc.path, nil)
				resp, err := srv.Client().Do(req)
				if err == nil {
					_, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				errc <- err
			}()
			<-clk.waits
			cancel()
			if err := <-errc; !errors.Is(err, context.Canceled) {
				t.Errorf("err = %v, want canceled", err)
			}
			srv.Close() // once the origin's handler has seen its client go
			s := o.Stats()
			if s.Canceled != 1 {
				t.Errorf("Canceled = %d, want 1", s.Canceled)
			}
			if s.BytesServed > tc.wantBytes {
				t.Errorf("BytesServed = %d, want at most %d", s.BytesServed, tc.wantBytes)
			}
		})
	}
}

func TestTrickleIsSlow(t *testing.T) {
	clk := newWaitClock()
	o, srv := Serve(Config{Clock: clk})
	defer srv.Close()
	answered := getAsync(srv, "/trickle/4")
	// 4 bytes, with trickleEvery between them: 3 waits, and the body
	// complete only after the last.
	for i := range 3 {
		if end := <-clk.waits; end.Sub(clk.Now()) != o.trickleEvery {
			t.Errorf("wait %d: %v, want %v", i, end.Sub(clk.Now()), o.trickleEvery)
		}
		select {
		case body := <-answered:
			t.Fatalf("answered %q after %d waits, want 3", body, i)
		default:
		}
		clk.Advance(o.trickleEvery)
	}
	if body := <-answered; body != "xxxx" {
		t.Errorf("body %q, want xxxx", body)
	}
}

func TestHeadSendsNoBody(t *testing.T) {
	o, srv := Serve(Config{})
	defer srv.Close()
	for _, p := range []string{"/big/1000000", "/trickle/50", "/doc"} {
		u, _ := url.JoinPath(srv.URL, p)
		resp, err := srv.Client().Head(u)
		if err != nil {
			t.Fatalf("HEAD %s: %v", p, err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("HEAD %s: status %d, want 200", p, resp.StatusCode)
		}
	}
	if got := o.Stats().BytesServed; got != 0 {
		t.Errorf("BytesServed after HEADs = %d, want 0", got)
	}
}

// With Requisites, each page needs that many requisites of its own, an
// image, a stylesheet and a script in turn, which the origin serves with
// their types; the image is a PNG that decodes.
func TestPageRequisites(t *testing.T) {
	t.Parallel()
	_, srv := Start(t, Config{Pages: 2, Requisites: 3})
	base, _ := url.Parse(srv.URL + "/page/1")
	resp, err := http.Get(base.String())
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	reqs := urls.PageRequisites(body, base)
	want := []string{"/req/1/0.png", "/req/1/1.css", "/req/1/2.js"}
	types := []string{"image/png", "text/css", "text/javascript"}
	if len(reqs) != len(want) {
		t.Fatalf("page 1 needs %v, want %v", reqs, want)
	}
	for i, u := range reqs {
		if u.Path != want[i] {
			t.Errorf("requisite %d: %s, want %s", i, u.Path, want[i])
		}
		r, err := http.Get(u.String())
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(r.Body)
		r.Body.Close()
		ct := r.Header.Get("Content-Type")
		if r.StatusCode != 200 || ct != types[i] {
			t.Errorf("%s: %d %s, want 200 %s", u.Path, r.StatusCode, ct, types[i])
		}
		if ct == "image/png" {
			if img, err := png.Decode(bytes.NewReader(b)); err != nil || img.Bounds().Dx() != 1 {
				t.Errorf("%s: not a 1x1 PNG: %v", u.Path, err)
			}
		}
	}
}
