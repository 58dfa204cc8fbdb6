package main

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/polite-crawler/polite/crawl/crawltest"
)

// TestCLIMaxBodyRange: a --max-body out of range is exit 2 naming the flag
// and the range, before anything is fetched (9223372036854775807 once made
// every body empty and "done"); the largest allowed value keeps bodies whole.
func TestCLIMaxBodyRange(t *testing.T) {
	o, srv := serve(t, crawltest.Config{})
	seeds := writeFile(t, "seeds.txt", srv.URL+"/a/1\n")
	tests := []struct {
		name string
		max  string
		code int
	}{
		{"the largest int64", "9223372036854775807", 2},
		{"one byte over 1 GiB", "1073741825", 2},
		{"zero", "0", 2},
		{"1 GiB", "1073741824", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out")
			before := o.Stats().Requests
			args := append([]string{"crawl", "--db", filepath.Join(dir, "polite.db"), "--out", out}, fast...)
			r := run(t, "", append(args, "--max-body", tt.max, seeds)...)
			if r.code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, tt.code, r.stdout, r.stderr)
			}
			if tt.code == 2 {
				if !strings.Contains(r.stderr, "--max-body") || !strings.Contains(r.stderr, "1GiB") {
					t.Errorf("stderr does not name --max-body and its range:\n%s", r.stderr)
				}
				if n := o.Stats().Requests - before; n != 0 {
					t.Errorf("%d requests made with a bad --max-body, want none", n)
				}
				return
			}
			bodies := bodiesOnDisk(t, out)
			if len(bodies) != 1 {
				t.Fatalf("%d bodies on disk, want 1", len(bodies))
			}
			for name, b := range bodies {
				if len(b) == 0 {
					t.Errorf("%s is empty: the body was not kept whole", name)
				}
			}
		})
	}
}

// TestCLICredentialsNeverLeaveTheSeedFile: seed lines carrying a password
// (with and without a scheme, in --strict too) are rejected, and the
// password appears in no output: stdout, stderr (with -v), the output
// folder, the database files, and what status, runs and report print.
// Links and redirects that carry a server's password are refused as well,
// and only the page and the manifest (the server's own words) keep it.
func TestCLICredentialsNeverLeaveTheSeedFile(t *testing.T) {
	const secret, theirs = "S3cretPass", "TheirPassw0rd"
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			http.NotFound(w, r)
		case "/links":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, `<a href="http://carol:%s@%s/d">d</a>`, theirs, srv.Listener.Addr())
		case "/redirect":
			http.Redirect(w, r, "http://bob:"+theirs+"@"+srv.Listener.Addr().String()+"/c", http.StatusFound)
		default:
			w.Write([]byte("ok"))
		}
	}))
	defer srv.Close()
	host := srv.Listener.Addr().String()
	seeds := writeFile(t, "seeds.txt", strings.Join([]string{
		"http://alice:" + secret + "@" + host + "/a",
		"alice:" + secret + "@" + host + "/b 3",
		"https://" + secret + "@" + host + "/token",
		srv.URL + "/links",
		srv.URL + "/redirect",
	}, "\n")+"\n")
	dir := t.TempDir()
	db, out := filepath.Join(dir, "polite.db"), filepath.Join(dir, "out")
	outputs := map[string]string{}
	r := run(t, "", append([]string{"crawl", "-v", "--job", "seeds", "--db", db, "--out", out, "--depth", "1", seeds}, fast...)...)
	if r.code != 1 { // the redirect carrying credentials is dead: bad-redirect
		t.Fatalf("crawl exit %d, want 1\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "alice:xxxxx@") {
		t.Errorf("stderr does not show the rejected seed redacted:\n%s", r.stderr)
	}
	outputs["crawl stdout"], outputs["crawl stderr"] = r.stdout, r.stderr
	strict := run(t, "", append([]string{"crawl", "--strict", "--db", filepath.Join(dir, "strict.db"), "--out", filepath.Join(dir, "strict"), seeds}, fast...)...)
	if strict.code != 2 {
		t.Errorf("--strict exit %d, want 2", strict.code)
	}
	outputs["strict stdout"], outputs["strict stderr"] = strict.stdout, strict.stderr
	for _, args := range [][]string{{"report"}, {"report", "--json"}, {"report", "--html", "-"}, {"runs"}, {"runs", "--json"}, {"status"}, {"status", "--json"}, {"status", "--job", "seeds"}} {
		r := run(t, "", append(args, "--db", db)...)
		if r.code != 0 {
			t.Errorf("%v: exit %d: %s", args, r.code, r.stderr)
		}
		outputs[strings.Join(args, " ")] = r.stdout + r.stderr
	}
	rc := run(t, "", "robots", "check", "--db", db, "http://alice:"+secret+"@"+host+"/a")
	outputs["robots check"] = rc.stdout + rc.stderr
	for name, text := range outputs {
		for _, pw := range []string{secret, theirs} {
			if strings.Contains(text, pw) {
				t.Errorf("%s shows the password %s:\n%s", name, pw, text)
			}
		}
	}
	for _, root := range []string{out, dir} {
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || p == seeds {
				return err
			}
			b, err := os.ReadFile(p)
			if err == nil && bytes.Contains(b, []byte(secret)) {
				t.Errorf("%s holds the password of the seed file", p)
			}
			if err == nil && bytes.Contains(b, []byte(theirs)) && strings.Contains(filepath.Base(p), ".db") {
				t.Errorf("%s holds the password of a link", p)
			}
			return nil
		})
	}
}

// TestCLIForgetReleasesAHeldHost: a 429 with Retry-After: 99999999999
// parks the host's URLs; polite forget HOST clears the hold and makes them
// eligible, so the next run fetches the host.
func TestCLIForgetReleasesAHeldHost(t *testing.T) {
	var refuse atomic.Bool
	refuse.Store(true)
	var fetched atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/robots.txt":
			http.NotFound(w, r)
		case refuse.Load():
			w.Header().Set("Retry-After", "99999999999")
			w.WriteHeader(http.StatusTooManyRequests)
		default:
			fetched.Add(1)
			w.Write([]byte("at last"))
		}
	}))
	defer srv.Close()
	seeds := writeFile(t, "seeds.txt", srv.URL+"/a\n"+srv.URL+"/b\n")
	dir := t.TempDir()
	db := filepath.Join(dir, "polite.db")
	crawlArgs := append([]string{"crawl", "--job", "seeds", "--db", db, "--out", filepath.Join(dir, "out"), seeds}, fast...)
	if r := run(t, "", crawlArgs...); r.code != 0 {
		t.Fatalf("first crawl exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	refuse.Store(false)
	if r := run(t, "", crawlArgs...); r.code != 0 || fetched.Load() != 0 {
		t.Fatalf("held crawl: exit %d, %d fetched; want 0 and none before forget\n%s", r.code, fetched.Load(), r.stdout)
	}
	host := srv.Listener.Addr().String()
	if r := run(t, "", "forget", "--db", db, host); r.code != 0 || !strings.Contains(r.stdout, "forgot "+host) {
		t.Fatalf("forget exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	r := run(t, "", crawlArgs...)
	if r.code != 0 || fetched.Load() != 2 {
		t.Errorf("after forget: exit %d, %d URLs fetched, want 2\n%s\n%s", r.code, fetched.Load(), r.stdout, r.stderr)
	}
}

// TestCLIProxyNeverAskedForLoopback: with HTTP_PROXY set to a proxy on
// loopback, redirects and links to loopback in every numeric form a
// resolver reads are refused before the proxy hears of them (a proxy would
// resolve them to the loopback service), while a public name still goes
// through the proxy.
func TestCLIProxyNeverAskedForLoopback(t *testing.T) {
	var mu sync.Mutex
	var asked []string
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r.Host)
		mu.Unlock()
		w.Write([]byte("from the proxy"))
	}))
	defer proxy.Close()
	seed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			http.NotFound(w, r)
		case "/links":
			w.Header().Set("Content-Type", "text/html")
			for _, h := range []string{"2130706433:9", "127.1:9", "0x7f000001:9", "0177.0.0.1:9", "[::ffff:127.0.0.1]:9", "foo.localhost:9", "public.example"} {
				fmt.Fprintf(w, `<a href="http://%s/x">x</a>`, h)
			}
		case "/redirect":
			http.Redirect(w, r, "http://2130706433:9/r", http.StatusFound)
		default:
			w.Write([]byte("ok"))
		}
	}))
	defer seed.Close()
	seeds := writeFile(t, "seeds.txt", seed.URL+"/links\n"+seed.URL+"/redirect\n")
	dir := t.TempDir()
	db := filepath.Join(dir, "polite.db")
	cmd := exec.Command(polite, append([]string{"crawl", "--job", "seeds", "--db", db, "--out", filepath.Join(dir, "out"), "--depth", "1", "--scope", "any", seeds}, fast...)...)
	cmd.Env = append(os.Environ(), "POLITE_DB=", "XDG_STATE_HOME="+t.TempDir(), "HTTP_PROXY="+proxy.URL, "http_proxy="+proxy.URL, "NO_PROXY=", "no_proxy=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("crawl: %v\n%s", err, out)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, h := range asked {
		if !strings.HasPrefix(h, "public.example") {
			t.Errorf("the proxy was asked for %s", h)
		}
	}
	if len(asked) == 0 {
		t.Errorf("the proxy was never asked for public.example: the test does not go through it\n%s", out)
	}
	r := run(t, "", "status", "--db", db, "--job", "seeds")
	// 127.0.0.1:9/x (every numeric form), 127.0.0.1:9/r and foo.localhost:9/x.
	if !strings.Contains(r.stdout, "excluded 3,") {
		t.Errorf("status does not show the 3 loopback URLs excluded:\n%s", r.stdout)
	}
}

// TestCLISeedExemptsItsOriginOnly: a seed on http://127.0.0.1:P/ does not
// exempt https://127.0.0.1:P/ (another scheme, so another service): a link
// there is excluded as a private address without a connection, not dialled.
func TestCLISeedExemptsItsOriginOnly(t *testing.T) {
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			http.NotFound(w, r)
		case "/links":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, `<a href="https://%s/tls">tls</a><a href="/own">own</a>`, r.Host)
		default:
			w.Write([]byte("ok"))
		}
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	seeds := writeFile(t, "seeds.txt", srv.URL+"/links\n")
	dir := t.TempDir()
	db := filepath.Join(dir, "polite.db")
	r := run(t, "", append([]string{"crawl", "--job", "seeds", "--db", db, "--out", filepath.Join(dir, "out"), "--depth", "1", seeds}, fast...)...)
	if r.code != 0 {
		t.Fatalf("crawl exit %d, want 0 (a refused address is no failure)\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "2 done, 0 not modified, 1 excluded") {
		t.Errorf("summary: want 2 done and the https link excluded:\n%s", r.stdout)
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("%d connections reached the server, want 1 (the seed's, kept alive)", n)
	}
}
