package cmd

import (
	"bytes"
	"context"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/polite-crawler/polite/crawl/crawltest"
)

func init() {
	// -update rewrites golden files (gofmt's pattern). Another test file of
	// the package may define it first.
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the golden files in testdata")
	}
}

func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

const (
	fixtures = "../testdata/robots"
	goldens  = "../testdata/robots/check"
)

// runCmd runs polite with args and returns its exit code, stdout and stderr.
func runCmd(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Main(context.Background(), args, IO{
		In: strings.NewReader(stdin), Out: &out, ErrOut: &errOut,
		IsTTY: func() bool { return false },
	})
	return code, out.String(), errOut.String()
}

func TestRobotsCheckGolden(t *testing.T) {
	news := filepath.Join(fixtures, "news.txt")
	shop := filepath.Join(fixtures, "shop.txt")
	named := filepath.Join(goldens, "named-bots.txt")
	newsText, err := os.ReadFile(news)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		stdin  string
		args   []string
		code   int
		stderr string // substring; "" means stderr must be empty
		nogold bool   // stdout must be empty
		golden string
	}{
		{name: "allowed", code: 0, golden: "allowed",
			args: []string{"--file", news, "https://news.example/archive/2020/report.pdf?dl=1", "https://news.example/story/1?share=tw"}},
		{name: "disallowed", code: 1, golden: "disallowed",
			args: []string{"--file", news, "https://news.example/search?q=go", "https://NEWS.example:443/archive/2020/report.pdf", "https://news.example/story/1"}},
		{name: "other agent with request-rate", code: 1, golden: "shop-archiver",
			args: []string{"--file", shop, "--agent", "archiver", "https://shop.example/account/wishlist", "https://shop.example/account/orders"}},
		{name: "agent from user-agent", code: 1, golden: "shop-star",
			args: []string{"--file", shop, "--user-agent", "Mozilla/5.0 (compatible; somebot)", "https://shop.example/list?sort=price", "https://shop.example/static/site.css"}},
		{name: "no group matched", code: 0, golden: "no-group",
			args: []string{"--file", named, "https://example.org/drafts/x", "https://example.org/robots.txt"}},
		{name: "file from stdin", code: 1, golden: "stdin", stdin: string(newsText),
			args: []string{"--file", "-", "https://news.example/search"}},
		{name: "json", code: 1, golden: "json",
			args: []string{"--json", "--file", shop, "https://shop.example/cart", "https://shop.example/product/1"}},
		{name: "bad URL", code: 2, nogold: true, stderr: `scheme "ftp" is not http or https`,
			args: []string{"--file", news, "https://news.example/", "ftp://news.example/"}},
		{name: "missing file", code: 2, nogold: true, stderr: "--file: open",
			args: []string{"--file", filepath.Join(fixtures, "no-such.txt"), "https://news.example/"}},
		{name: "--file without a value", code: 2, nogold: true, stderr: "flag needs an argument: --file",
			args: []string{"https://news.example/", "--file"}},
		{name: "no URL", code: 2, nogold: true, stderr: "needs at least one URL",
			args: []string{"--file", news}},
		{name: "bad timeout", code: 2, nogold: true, stderr: `"--timeout" flag: must be above 0`,
			args: []string{"--timeout", "0s", "https://news.example/"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"robots", "check", "--db", filepath.Join(t.TempDir(), "polite.db")}, tc.args...)
			code, stdout, stderr := runCmd(t, tc.stdin, args...)
			if code != tc.code {
				t.Errorf("exit code = %d, want %d (stderr %q)", code, tc.code, stderr)
			}
			switch {
			case tc.stderr == "" && stderr != "":
				t.Errorf("stderr = %q, want it empty", stderr)
			case !strings.Contains(stderr, tc.stderr):
				t.Errorf("stderr = %q, want it to contain %q", stderr, tc.stderr)
			}
			if tc.nogold {
				if stdout != "" {
					t.Errorf("stdout = %q, want it empty", stdout)
				}
				return
			}
			golden := filepath.Join(goldens, tc.golden+".golden")
			if updating() {
				if err := os.WriteFile(golden, []byte(stdout), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("read golden file (run with -update to create it): %v", err)
			}
			if stdout != string(want) {
				t.Errorf("stdout differs from %s\ngot:\n%s\nwant:\n%s", golden, stdout, want)
			}
		})
	}
}

// TestRobotsCheckFetches checks the path without --file: the host's
// robots.txt is fetched once, cached in the database and used again.
func TestRobotsCheckFetches(t *testing.T) {
	db := filepath.Join(t.TempDir(), "polite.db")
	o := crawltest.New(crawltest.Config{Robots: "User-agent: *\nDisallow: /private\nCrawl-delay: 2\n"})
	var (
		mu     sync.Mutex
		agents []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			mu.Lock()
			agents = append(agents, r.UserAgent())
			mu.Unlock()
		}
		o.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	_, down := crawltest.Serve(crawltest.Config{Robots: "User-agent: *\nAllow: /\n", RobotsStatus: 503})
	t.Cleanup(down.Close)
	_, gone := crawltest.Serve(crawltest.Config{Robots: "User-agent: *\nDisallow: /\n", RobotsStatus: 404})
	t.Cleanup(gone.Close)
	for _, tc := range []struct {
		name string
		urls []string
		code int
		want []string // lines of stdout, in order
	}{
		{"fetched", []string{srv.URL + "/private/a", srv.URL + "/public"}, 1, []string{
			"DISALLOWED  " + srv.URL + "/private/a",
			"  robots.txt    " + srv.URL + "/robots.txt (fetched: 200; cached until ",
			`  rule          "Disallow: /private" (line 2)`,
			"  crawl-delay   2s",
			"ALLOWED     " + srv.URL + "/public",
		}},
		{"cached", []string{srv.URL + "/public"}, 0, []string{
			"ALLOWED     " + srv.URL + "/public",
			"  robots.txt    " + srv.URL + "/robots.txt (cached copy of ",
		}},
		{"unreachable", []string{down.URL + "/a"}, 1, []string{
			"DISALLOWED  " + down.URL + "/a",
			"  robots.txt    " + down.URL + "/robots.txt (unreachable (503))",
			"  reason        robots.txt unreachable (503): everything disallowed for now",
		}},
		{"404", []string{gone.URL + "/a"}, 0, []string{
			"ALLOWED     " + gone.URL + "/a",
			"  robots.txt    " + gone.URL + "/robots.txt (fetched: 404; cached until ",
			"  reason        no robots.txt (404): everything allowed",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, "", append([]string{"robots", "check", "--db", db, "--timeout", "5s"}, tc.urls...)...)
			if code != tc.code {
				t.Errorf("exit code = %d, want %d (stderr %q)", code, tc.code, stderr)
			}
			rest := stdout
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Errorf("stdout lacks %q after the lines before it:\n%s", w, stdout)
					break
				}
				rest = rest[i+len(w):]
			}
		})
	}
	if n := o.Stats().Robots; n != 1 {
		t.Errorf("robots.txt fetched %d times over two checks, want 1", n)
	}
	mu.Lock()
	defer mu.Unlock()
	want := "polite/" + Version + " (+" + ProjectURL + ")"
	for _, ua := range agents {
		if ua != want {
			t.Errorf("robots.txt requested with User-Agent %q, want %q", ua, want)
		}
	}
}
