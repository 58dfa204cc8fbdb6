package main

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/polite-crawler/polite/crawl/fetch/fetchtest"
)

// tlsSite is an HTTPS site on loopback: robots.txt disallows /private;
// it records what it served, with the protocol.
type tlsSite struct {
	*fetchtest.TLSServer
	mu     sync.Mutex
	served []string // "HTTP/2.0 /a"
}

func startTLSSite(t *testing.T, o fetchtest.ServerOptions) *tlsSite {
	t.Helper()
	s := &tlsSite{}
	s.TLSServer = fetchtest.StartTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.served = append(s.served, r.Proto+" "+r.URL.Path)
		s.mu.Unlock()
		if r.URL.Path == "/robots.txt" {
			w.Write([]byte("User-agent: *\nDisallow: /private\n"))
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("page " + r.URL.Path))
	}), o)
	return s
}

func (s *tlsSite) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.served
	s.served = nil
	return out
}

// gunzipAll reads every gzip member of the files matching pattern.
func gunzipAll(t *testing.T, pattern string) string {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("no file matches %s (%v)", pattern, err)
	}
	var all strings.Builder
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b, err := io.ReadAll(zr)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		all.Write(b)
	}
	return all.String()
}

// TestCLIHTTPSWithCAFile: a crawl over HTTPS of a site whose certificate
// a private CA signed, trusted with --ca-file: robots.txt and the pages
// come over HTTP/2, and each response's WARC record says so.
func TestCLIHTTPSWithCAFile(t *testing.T) {
	t.Parallel()
	ca := fetchtest.NewCA(t, "private CA")
	site := startTLSSite(t, fetchtest.ServerOptions{Cert: ca.Leaf(t, fetchtest.Always, "127.0.0.1"), HTTP2: true})
	seeds := writeFile(t, "seeds.txt", fmt.Sprintf("%[1]s/a\n%[1]s/b\n%[1]s/private/c\n", site.URL))
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	r := run(t, "", append([]string{"crawl", "--db", filepath.Join(dir, "polite.db"), "--out", out, "--warc",
		"--ca-file", ca.WriteFile(t), seeds}, fast...)...)
	if r.code != 0 || !strings.Contains(r.stdout, "2 done") || !strings.Contains(r.stdout, "1 excluded") {
		t.Fatalf("crawl exit %d, want 0 with 2 done, 1 excluded\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	want := "HTTP/2.0 /robots.txt, HTTP/2.0 /a, HTTP/2.0 /b"
	if got := strings.Join(site.take(), ", "); got != want {
		t.Errorf("served %s, want %s", got, want)
	}
	warc := gunzipAll(t, filepath.Join(out, "warc", "*.warc.gz"))
	for _, p := range []string{"/robots.txt", "/a", "/b"} {
		rec := responseRecord(warc, site.URL+p)
		if !strings.Contains(rec, "\r\nWARC-Protocol: h2\r\n") {
			t.Errorf("the response record of %s does not say WARC-Protocol: h2:\n%.600s", p, rec)
		}
	}
}

// responseRecord returns the WARC header of the response record of url
// in the decompressed WARC text all, "" if there is none.
func responseRecord(all, url string) string {
	for _, rec := range strings.Split(all, "WARC/1.1\r\n") {
		head, _, _ := strings.Cut(rec, "\r\n\r\n")
		if strings.Contains(head, "WARC-Type: response\r\n") && strings.Contains(head, "WARC-Target-URI: "+url+"\r\n") {
			return head
		}
	}
	return ""
}

// TestCLICertificateRefused: against a certificate no authority polite
// trusts signed, a quiet crawl makes one handshake, no robots.txt retry,
// exits 1, names the host and the reason on stderr and in report.json,
// and leaves its URLs waiting; trusted with --ca-file, the next run
// fetches them.
func TestCLICertificateRefused(t *testing.T) {
	t.Parallel()
	ca := fetchtest.NewCA(t, "self-made CA")
	site := startTLSSite(t, fetchtest.ServerOptions{Cert: ca.Leaf(t, fetchtest.Always, "127.0.0.1")})
	host := strings.TrimPrefix(site.URL, "https://")
	seeds := writeFile(t, "seeds.txt", fmt.Sprintf("%[1]s/a\n%[1]s/b\n", site.URL))
	dir := t.TempDir()
	db, out := filepath.Join(dir, "polite.db"), filepath.Join(dir, "out")
	args := append([]string{"-q", "crawl", "--db", db, "--out", out, "--job", "tls", seeds}, fast...)

	r := run(t, "", args...)
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	const why = `certificate signed by an unknown authority (issuer "CN=self-made CA,O=polite tests")`
	if !strings.Contains(r.stderr, host) || !strings.Contains(r.stderr, "tls-unknown-authority") {
		t.Errorf("stderr does not name %s and tls-unknown-authority:\n%s", host, r.stderr)
	}
	if n := site.Hellos(); n != 1 {
		t.Errorf("%d handshakes, want 1 (no robots.txt retry)", n)
	}
	if got := site.take(); len(got) != 0 {
		t.Errorf("served %v, want nothing", got)
	}
	var rep struct {
		ExitCode int `json:"exit_code"`
		Hosts    []struct {
			Host          string `json:"host"`
			Requests      int    `json:"requests"`
			Stopped       string `json:"stopped"`
			StoppedReason string `json:"stopped_reason"`
			LastError     string `json:"last_error"`
		} `json:"hosts"`
		Dead []any `json:"dead"`
	}
	readJSON(t, filepath.Join(out, "report.json"), &rep)
	if rep.ExitCode != 1 || len(rep.Hosts) != 1 || len(rep.Dead) != 0 {
		t.Fatalf("report.json: exit %d, %d hosts, dead %v; want 1, 1, none", rep.ExitCode, len(rep.Hosts), rep.Dead)
	}
	h := rep.Hosts[0]
	if h.Host != host || h.Stopped != "tls" || h.LastError != "tls-unknown-authority" || h.Requests != 1 ||
		h.StoppedReason != why+": URLs wait for the next run" {
		t.Errorf("report.json host %+v, want %s stopped tls (tls-unknown-authority) after 1 request: %s", h, host, why)
	}
	if !strings.Contains(r.stdout, "1 host stopped ("+why) {
		t.Errorf("summary does not name the reason:\n%s", r.stdout)
	}

	st := run(t, "", "status", "--db", db, "--job", "tls", "--json")
	var js struct {
		Frontier map[string]int `json:"frontier"`
	}
	if err := json.Unmarshal([]byte(st.stdout), &js); err != nil || st.code != 0 {
		t.Fatalf("status --job: exit %d, %v\n%s", st.code, err, st.stdout)
	}
	if js.Frontier["deferred"] != 2 || js.Frontier["dead"] != 0 {
		t.Errorf("frontier %v, want both URLs waiting (deferred), none dead", js.Frontier)
	}

	r = run(t, "", append(args, "--ca-file", ca.WriteFile(t))...)
	if r.code != 0 {
		t.Fatalf("trusted: exit %d, want 0\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if got := site.take(); len(got) != 3 {
		t.Errorf("trusted: served %v, want robots.txt and the 2 pages", got)
	}
}

// TestCLICAFileUnusable: a --ca-file that cannot be read or holds no
// certificate is a usage error naming the file, for crawl and for
// robots check; the crawl sends nothing.
func TestCLICAFileUnusable(t *testing.T) {
	t.Parallel()
	site := startTLSSite(t, fetchtest.ServerOptions{Cert: fetchtest.NewCA(t, "CA").Leaf(t, fetchtest.Always, "127.0.0.1")})
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.pem")
	notPEM := writeFile(t, "ca.txt", "not a certificate\n")
	for _, ca := range []string{missing, notPEM} {
		for _, args := range [][]string{
			append([]string{"crawl", "--db", filepath.Join(dir, "polite.db"), "--out", filepath.Join(dir, "out"),
				"--ca-file", ca, site.URL + "/a"}, fast...),
			{"robots", "check", "--db", filepath.Join(dir, "polite.db"), "--ca-file", ca, site.URL + "/a"},
		} {
			r := run(t, "", args...)
			if r.code != 2 || !strings.Contains(r.stderr, ca) || !strings.Contains(r.stderr, "--ca-file") {
				t.Errorf("%s %s: exit %d, want 2 naming --ca-file and the file\nstderr:\n%s", args[0], filepath.Base(ca), r.code, r.stderr)
			}
		}
	}
	if n := site.Hellos(); n != 0 {
		t.Errorf("%d handshakes, want none", n)
	}
}
