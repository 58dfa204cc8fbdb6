package crawl_test

import (
	"bytes"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/crawltest"
)

// TestHostileHeaderBytes sends headers net/http will not write: NUL and
// control bytes (a malformed answer: the URL is dead, not retried) and
// invalid UTF-8 in a Location (followed, percent-encoded).
func TestHostileHeaderBytes(t *testing.T) {
	t.Parallel()
	base := rawServer(t, map[string]string{
		"/nul-location": "HTTP/1.1 302 Found\r\nLocation: /x\x00y\r\nContent-Length: 0\r\n\r\n",
		"/control":      "HTTP/1.1 200 OK\r\nX-A: a\x01b\r\nContent-Length: 2\r\n\r\nok",
		"/nul-name":     "HTTP/1.1 200 OK\r\nX\x00Y: a\r\nContent-Length: 2\r\n\r\nok",
		"/utf8-location": "HTTP/1.1 301 Moved\r\nLocation: /caf\xe9\xff\r\nX-Bad: \xff\xfe\r\n" +
			"ETag: \"\xff\"\r\nContent-Length: 0\r\n\r\n",
		"/caf%E9%FF": "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=\xff\r\nContent-Length: 5\r\n\r\nfine!",
	})
	cfg := fastConfig(t, base+"/nul-location", base+"/control", base+"/nul-name", base+"/utf8-location")
	db := mustOpen(t)
	if _, err := runBounded(t, db, cfg, 3*time.Second); err != nil {
		t.Fatalf("Run: %v", err)
	}
	got := jobEntries(t, db, cfg.Job)
	want := map[string]string{
		"/nul-location":  "dead bad-headers",
		"/control":       "dead bad-headers",
		"/nul-name":      "dead bad-headers",
		"/utf8-location": "done ",
		"/caf%E9%FF":     "done ",
	}
	for p, w := range want {
		e, ok := got[base+p]
		if g := string(e.State) + " " + e.Reason.String(); !ok || g != w {
			t.Errorf("%s: %q (in frontier: %v), want %q", p, g, ok, w)
		}
	}
	for _, m := range readManifest(t, cfg.OutDir) {
		if m.Status == 200 {
			b, err := os.ReadFile(filepath.Join(cfg.OutDir, m.File))
			if err != nil || string(b) != "fine!" {
				t.Errorf("%s: body %q, %v; want the 5 bytes of Content-Length", m.URL, b, err)
			}
		}
	}
}

// TestIPv6LiteralHost crawls an origin on [::1].
func TestIPv6LiteralHost(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		t.Fatalf("listen on [::1]: %v", err)
	}
	o := crawltest.New(crawltest.Config{Robots: "User-agent: *\nDisallow: /private\n"})
	srv := httptest.NewUnstartedServer(o)
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	if !strings.HasPrefix(srv.URL, "http://[::1]:") {
		t.Fatalf("server URL %s, want one on [::1]", srv.URL)
	}
	cfg := fastConfig(t, srv.URL+"/doc", srv.URL+"/private/x")
	db := mustOpen(t)
	rep, err := runBounded(t, db, cfg, 3*time.Second)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if rep.Totals.Done != 1 || rep.Totals.Excluded != 1 {
		t.Errorf("totals %+v, want 1 done and 1 excluded by robots.txt", rep.Totals)
	}
	lines := readManifest(t, cfg.OutDir)
	if len(lines) != 1 {
		t.Fatalf("manifest %+v, want one line", lines)
	}
	body, err := os.ReadFile(filepath.Join(cfg.OutDir, lines[0].File))
	if err != nil || !bytes.Equal(body, crawltest.Body("/doc")) {
		t.Errorf("body of %s: %q, %v; want the origin's", lines[0].URL, body, err)
	}
	if strings.ContainsAny(lines[0].File, "[]:") {
		t.Errorf("body file %q keeps characters of the IPv6 literal", lines[0].File)
	}
}

// TestHostileURLsStayInsideOut crawls URLs crafted to escape the output
// folder and checks that every body lands inside it, whole, one file per
// URL, and that nothing beside the folder changes.
func TestHostileURLsStayInsideOut(t *testing.T) {
	t.Parallel()
	paths := []string{
		"/../../../../etc/passwd",
		"/%2e%2e/%2e%2e/%2e%2e/tmp/x",
		"/..%2f..%2f..%2fescape",
		"/..%5c..%5cwindows%5cescape",
		"/a\\..\\..\\b",
		"//absolute//path",
		"/%2Fabsolute",
		"/C:/Windows/system32",
		"/CON", "/nul.txt", "/com1.log", "/AUX.",
		"/" + strings.Repeat("long", 2000),
		"/" + strings.Repeat("%C3%A9", 1000),
		"/.hidden", "/..", "/.", "/...",
		"/a%00b",
		"/trailing. ",
		"/?q=../../../x",
		"/dir/",
		"/dir",
		"/dir/index.html",
		"/x.ht%6dl",
		"/name.with.many.dots.tar.gz",
	}
	base := t.TempDir()
	sentinel := filepath.Join(base, "sentinel")
	if err := os.WriteFile(sentinel, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv, _ := hostileServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte("body of " + r.RequestURI))
	})
	var seeds []string
	want := map[string]bool{}
	for _, p := range paths {
		seeds = append(seeds, srv.URL+p)
		want[mustNormalize(t, srv.URL+p)] = true
	}
	cfg := fastConfig(t, seeds...)
	cfg.OutDir = filepath.Join(base, "out")
	cfg.Concurrency, cfg.PerHost = 4, 4
	db := mustOpen(t)
	if _, err := runBounded(t, db, cfg, 3*time.Second); err != nil {
		t.Fatalf("Run: %v", err)
	}
	lines := readManifest(t, cfg.OutDir)
	files := map[string]string{}
	for _, m := range lines {
		if !want[m.URL] || m.Status != 200 {
			t.Errorf("manifest: %s status %d, want one of the seeds, 200", m.URL, m.Status)
			continue
		}
		if !filepath.IsLocal(m.File) || strings.Contains(m.File, "\\") {
			t.Errorf("%s: file %q is not a plain local path", m.URL, m.File)
		}
		if prev, dup := files[m.File]; dup {
			t.Errorf("%s and %s share the file %s", prev, m.URL, m.File)
		}
		files[m.File] = m.URL
		b, err := os.ReadFile(filepath.Join(cfg.OutDir, m.File))
		u, _ := url.Parse(m.URL)
		if err != nil || string(b) != "body of "+u.RequestURI() {
			t.Errorf("%s: %s holds %q (%v)", m.URL, m.File, b, err)
		}
	}
	if len(lines) != len(want) {
		t.Errorf("manifest has %d lines, want %d (one per distinct URL)", len(lines), len(want))
	}
	if got := bodyFiles(t, cfg.OutDir); len(got) != len(want) {
		t.Errorf("output folder holds %d files, want %d: %q", len(got), len(want), got)
	}
	entries, err := os.ReadDir(base)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "out sentinel" {
		t.Errorf("beside the output folder: %q, want only out and the sentinel", names)
	}
	if b, _ := os.ReadFile(sentinel); string(b) != "keep" {
		t.Errorf("sentinel holds %q", b)
	}
}
