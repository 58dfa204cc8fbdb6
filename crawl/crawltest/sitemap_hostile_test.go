package crawltest

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/polite-crawler/polite/crawl/sitemap"
)

// TestHostileSitemaps reads each hostile sitemap with polite's reader and
// checks that it is what its name promises, and bounded as it should be.
func TestHostileSitemaps(t *testing.T) {
	cfg := &SitemapConfig{Pages: 3, Hostile: AllHostileSitemaps}
	o, srv := Serve(Config{Sitemap: cfg})
	defer srv.Close()
	c := rawClient()
	lines := robotsSitemaps(t, c, srv.URL)
	var want []string
	for _, p := range cfg.SitemapPaths() {
		want = append(want, srv.URL+p)
	}
	if !slices.Equal(lines, want) || len(lines) != 10 {
		t.Fatalf("robots.txt Sitemap lines %q, want %q", lines, want)
	}
	const mb = 1 << 20
	// Whole padded entries in the first MiB.
	inMB := (mb - len(urlsetOpen)) / len(hugeEntry(srv.URL, 0))
	cases := []struct {
		path    string
		opt     *sitemap.Options
		cut     sitemap.Cut
		gzip    bool
		urls    []string // the first few, without the base
		nURLs   int
		skipped int
	}{
		// Read with a small limit to keep the test fast; the size of the
		// whole body is checked below.
		{path: "/sitemap-huge.xml", opt: &sitemap.Options{MaxBytes: mb}, cut: sitemap.TooLarge, urls: []string{"/huge/00000000", "/huge/00000001"}, nURLs: inMB},
		{path: "/sitemap-endless.xml", opt: &sitemap.Options{MaxBytes: mb}, cut: sitemap.TooLarge, urls: []string{"/huge/00000000"}, nURLs: inMB},
		{path: "/sitemap-bomb.xml.gz", opt: &sitemap.Options{MaxBytes: 2 * mb}, cut: sitemap.TooLarge, gzip: true, urls: []string{"/bomb/0"}, nURLs: 1},
		// TestManySitemap counts all 60,000; the limit is sitemap's to test.
		{path: "/sitemap-60k.xml", opt: &sitemap.Options{MaxURLs: 1000}, cut: sitemap.TooMany, urls: []string{"/many/00000", "/many/00001"}, nURLs: 1000},
		{path: "/sitemap-broken.xml", cut: sitemap.Malformed, urls: []string{"/broken/ok/1", "/broken/ok/2", "/broken/bad-lastmod", "/broken/ok/3"}, nURLs: 4, skipped: 2},
		{path: "/sitemap-laughs.xml", cut: sitemap.Refused},
		{path: "/sitemap-xxe.xml", cut: sitemap.Refused},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			r := readSitemap(t, c, srv.URL+tc.path, tc.opt)
			if r.Cut != tc.cut || r.Gzip != tc.gzip || len(r.URLs) != tc.nURLs || r.Skipped != tc.skipped {
				t.Errorf("cut %v gzip %v, %d URLs, %d skipped; want %v %v %d %d (problems %q)", r.Cut, r.Gzip, len(r.URLs), r.Skipped, tc.cut, tc.gzip, tc.nURLs, tc.skipped, r.Problems)
			}
			got := locs(r.URLs[:min(len(r.URLs), len(tc.urls))])
			var want []string
			for _, u := range tc.urls {
				want = append(want, srv.URL+u)
			}
			if !slices.Equal(got, want) {
				t.Errorf("first URLs %q, want %q", got, want)
			}
		})
	}
	if n := o.Stats().ByPath["/xxe-target"] + o.Stats().ByPath["/xxe-target.dtd"]; n != 0 {
		t.Errorf("the external entities were fetched %d times", n)
	}
}

func locs(es []sitemap.Entry) []string {
	var s []string
	for _, e := range es {
		s = append(s, e.Loc)
	}
	return s
}

// TestHugeSitemapSize reads the whole huge sitemap without parsing it:
// past 50 MB, with a Content-Length that matches, and well-formed at its
// end.
func TestHugeSitemapSize(t *testing.T) {
	_, srv := Serve(Config{Sitemap: &SitemapConfig{Pages: 1, Hostile: SitemapHuge}})
	defer srv.Close()
	resp, err := rawClient().Get(srv.URL + "/sitemap-huge.xml")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var tail tailWriter
	n, err := io.Copy(&tail, resp.Body)
	if err != nil || n < HugeSize || n <= sitemap.MaxBytes || n != resp.ContentLength {
		t.Errorf("read %d bytes (%v), Content-Length %d; want at least %d", n, err, resp.ContentLength, HugeSize)
	}
	if !bytes.HasSuffix(tail.last, []byte("</pad></url>\n</urlset>\n")) {
		t.Errorf("ends with %q, want the urlset closed", tail.last)
	}
}

// tailWriter keeps the last bytes written.
type tailWriter struct{ last []byte }

func (w *tailWriter) Write(b []byte) (int, error) {
	w.last = append(w.last, b...)
	w.last = w.last[max(0, len(w.last)-64):]
	return len(b), nil
}

// TestManySitemap: 60,000 URLs, past the protocol's 50,000, and a 304 for
// a generated body too.
func TestManySitemap(t *testing.T) {
	_, srv := Serve(Config{Sitemap: &SitemapConfig{Pages: 1, Hostile: SitemapMany}})
	defer srv.Close()
	c := rawClient()
	resp, body := get(t, c, srv.URL+"/sitemap-60k.xml")
	if n := bytes.Count(body, []byte("<url><loc>")); n != ManyURLs || n <= sitemap.MaxURLs || int64(len(body)) != resp.ContentLength {
		t.Errorf("%d URLs in %d bytes of %d, want %d", n, len(body), resp.ContentLength, ManyURLs)
	}
	if !bytes.HasSuffix(body, []byte("/many/59999</loc></url>\n</urlset>\n")) {
		t.Errorf("ends with %q", body[max(0, len(body)-60):])
	}
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/sitemap-60k.xml", nil)
	req.Header.Set("If-None-Match", resp.Header.Get("ETag"))
	again, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	again.Body.Close()
	if again.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match %s: status %d, want 304", resp.Header.Get("ETag"), again.StatusCode)
	}
}

// TestEndlessSitemapEnds: the endless sitemap has no length, and its
// handler stops when the client goes away (Close waits for it).
func TestEndlessSitemapEnds(t *testing.T) {
	_, srv := Serve(Config{Sitemap: &SitemapConfig{Pages: 1, Hostile: SitemapEndless}})
	resp, err := rawClient().Get(srv.URL + "/sitemap-endless.xml")
	if err != nil {
		t.Fatal(err)
	}
	if resp.ContentLength != -1 {
		t.Errorf("Content-Length %d, want none", resp.ContentLength)
	}
	if n, err := io.CopyN(io.Discard, resp.Body, 8<<20); n != 8<<20 || err != nil {
		t.Errorf("read %d bytes (%v), want 8 MiB and more", n, err)
	}
	resp.Body.Close()
	srv.Close()
}

// TestBombSitemap: about a megabyte on the wire, each member inflating to
// bombPadSize, so the whole to about BombInflated.
func TestBombSitemap(t *testing.T) {
	o, srv := Serve(Config{Sitemap: &SitemapConfig{Pages: 1, Hostile: SitemapBomb}})
	defer srv.Close()
	resp, body := get(t, rawClient(), srv.URL+"/sitemap-bomb.xml.gz")
	if resp.Header.Get("Content-Type") != "application/gzip" || resp.Header.Get("Content-Encoding") != "" || int64(len(body)) != resp.ContentLength {
		t.Errorf("Content-Type %q, Content-Encoding %q, %d bytes of %d", resp.Header.Get("Content-Type"), resp.Header.Get("Content-Encoding"), len(body), resp.ContentLength)
	}
	if len(body) > 4<<20 {
		t.Errorf("%d bytes on the wire, want a small bomb", len(body))
	}
	z, err := gzip.NewReader(bytes.NewReader(bombMember()))
	if err != nil {
		t.Fatal(err)
	}
	if n, err := io.Copy(io.Discard, z); n != int64(bombPadSize) || err != nil {
		t.Errorf("one member inflates to %d bytes (%v), want %d", n, err, bombPadSize)
	}
	if total := (BombInflated / bombPadSize) * bombPadSize; total < BombInflated*99/100 {
		t.Errorf("inflates to %d bytes, want about %d", total, BombInflated)
	}
	if s := o.Stats(); s.BytesServed != int64(len(body)) {
		t.Errorf("BytesServed %d, want %d", s.BytesServed, len(body))
	}
}

// TestForeignSitemaps: every URL of /sitemap-foreign.xml fails the
// protocol's rule, as do URLs outside /sub/sitemap.xml's folder.
func TestForeignSitemaps(t *testing.T) {
	_, srv := Serve(Config{Sitemap: &SitemapConfig{Pages: 1, Hostile: SitemapForeign, Foreign: []string{"https://elsewhere.invalid/x"}}})
	defer srv.Close()
	c := rawClient()
	lines := robotsSitemaps(t, c, srv.URL)
	fsm := srv.URL + "/sitemap-foreign.xml"
	r := readSitemap(t, c, fsm, nil)
	if r.Cut != sitemap.None || len(r.URLs) != 9 {
		t.Fatalf("cut %v, %d URLs, want 9 (problems %q)", r.Cut, len(r.URLs), r.Problems)
	}
	hosts := map[string]bool{}
	for _, e := range r.URLs {
		// Other hosts' robots.txt name nothing, or the same server
		// under another name names its own sitemaps.
		if err := sitemap.CheckURL(e.Loc, sitemap.Listed{Sitemap: fsm}, nil); !errors.Is(err, sitemap.ErrOtherHost) {
			t.Errorf("%s: %v, want %v", e.Loc, err, sitemap.ErrOtherHost)
		}
		h, _, _ := strings.Cut(strings.SplitN(e.Loc, "/", 4)[2], ":")
		hosts[h] = true
	}
	for _, h := range []string{"other.invalid", "localhost", "127.0.0.2", "[", "10.0.0.1", "192.168.1.1", "169.254.169.254", "elsewhere.invalid"} {
		if !hosts[h] {
			t.Errorf("no URL on %s in %v", h, hosts)
		}
	}
	sub := srv.URL + "/sub/sitemap.xml"
	r = readSitemap(t, c, sub, nil)
	for _, e := range r.URLs {
		err := sitemap.CheckURL(e.Loc, sitemap.Listed{Sitemap: sub}, lines)
		if inside := strings.Contains(e.Loc, "/sub/"); inside != (err == nil) || !inside && !errors.Is(err, sitemap.ErrOutsideFolder) {
			t.Errorf("%s: %v", e.Loc, err)
		}
	}
	if len(r.URLs) != 3 {
		t.Errorf("%d URLs in /sub/sitemap.xml, want 3", len(r.URLs))
	}
}

// TestCrossSubmit: origin B's robots.txt names A's foreign sitemap, which
// lists a page of B: the protocol allows it. Both listeners are opened
// first, so that each configuration can name the other.
func TestCrossSubmit(t *testing.T) {
	la, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	lb, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a, b := "http://"+la.Addr().String(), "http://"+lb.Addr().String()
	srvA := &httptest.Server{Listener: la, Config: &http.Server{Handler: New(Config{Sitemap: &SitemapConfig{Pages: 1, Hostile: SitemapForeign, Foreign: []string{b + "/vouched"}}})}}
	srvB := &httptest.Server{Listener: lb, Config: &http.Server{Handler: New(Config{Robots: "Sitemap: " + a + "/sitemap-foreign.xml\n"})}}
	srvA.Start()
	defer srvA.Close()
	srvB.Start()
	defer srvB.Close()

	c := rawClient()
	r := readSitemap(t, c, a+"/sitemap-foreign.xml", nil)
	var allowed []string
	for _, e := range r.URLs {
		if !strings.HasPrefix(e.Loc, b) {
			continue
		}
		if err := sitemap.CheckURL(e.Loc, sitemap.Listed{Sitemap: a + "/sitemap-foreign.xml"}, robotsSitemaps(t, c, b)); err != nil {
			t.Errorf("%s: %v", e.Loc, err)
		}
		allowed = append(allowed, e.Loc)
	}
	if want := []string{b + "/vouched"}; !slices.Equal(allowed, want) {
		t.Errorf("B's URLs in A's sitemap %q, want %q", allowed, want)
	}
}
