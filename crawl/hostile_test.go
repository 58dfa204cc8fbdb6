package crawl_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/crawltest"
	"github.com/polite-crawler/polite/crawl/fetch/fetchtest"
	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/report"
	"github.com/polite-crawler/polite/crawl/urls"
)

// bigRobots is a robots.txt of about 5 MiB: a rule at the top, a rule past
// the first 500 KiB that RFC 9309 lets a crawler ignore, comments between.
func bigRobots() string {
	var b strings.Builder
	b.WriteString("User-agent: *\nDisallow: /early\n")
	filler := "# " + strings.Repeat("padding ", 12) + "\n"
	for b.Len() < 600<<10 {
		b.WriteString(filler)
	}
	b.WriteString("Disallow: /late\n")
	for b.Len() < 5<<20 {
		b.WriteString(filler)
	}
	return b.String()
}

// hostileWant is what the frontier must hold for a URL after the run:
// its state ("*": any final state) and, when not empty, its reason.
type hostileWant struct{ state, reason string }

// hostileCase is a loopback server that misbehaves in one way.
type hostileCase struct {
	name    string
	handler http.HandlerFunc // nil: the crawltest origin
	paths   []string
	tune    func(*crawl.Config)
	want    map[string]hostileWant
	check   func(t *testing.T, rep *report.Report, seen *hits)
}

const mib = 1 << 20

// TestHostileBodies crawls loopback servers whose bodies are hostile: over
// --max-body, bombs that inflate past it, encodings that do not decode, a
// body that trickles. It checks what the frontier recorded for each URL
// and that each run ended on its own, quickly.
func TestHostileBodies(t *testing.T) {
	t.Parallel()
	gzipBomb, deflateBomb, rawDeflateBomb := fetchtest.Bomb("gzip", 256*mib), fetchtest.Bomb("deflate", 256*mib), fetchtest.Bomb("raw", 256*mib)
	runHostile(t, []hostileCase{
		{
			name:  "body over max-body",
			paths: []string{"/big/3000000", "/big/1000"},
			tune:  func(c *crawl.Config) { c.MaxBody = mib },
			want: map[string]hostileWant{
				"/big/3000000": {"dead", "too-large"},
				"/big/1000":    {"done", ""},
			},
		},
		{
			name:  "the origin's gzip bomb stops at the limit after decoding",
			paths: []string{"/gzipbomb/4194304"},
			tune:  func(c *crawl.Config) { c.MaxBody = mib },
			want:  map[string]hostileWant{"/gzipbomb/4194304": {"dead", "too-large"}},
		},
		{
			name: "256 MiB bombs, gzip, zlib and raw deflate, stop at the limit",
			handler: func(w http.ResponseWriter, r *http.Request) {
				switch r.URL.Path {
				case "/gzip":
					w.Header().Set("Content-Encoding", "gzip")
					w.Write(gzipBomb)
				case "/zlib":
					w.Header().Set("Content-Encoding", "deflate")
					w.Write(deflateBomb)
				case "/raw":
					w.Header().Set("Content-Encoding", "deflate")
					w.Write(rawDeflateBomb)
				default:
					http.NotFound(w, r)
				}
			},
			paths: []string{"/gzip", "/zlib", "/raw"},
			tune:  func(c *crawl.Config) { c.MaxBody = mib },
			want:  map[string]hostileWant{"/gzip": {"dead", "too-large"}, "/zlib": {"dead", "too-large"}, "/raw": {"dead", "too-large"}},
		},
		{
			name: "corrupt gzip is a bad encoding, not retried",
			handler: func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/corrupt" {
					http.NotFound(w, r)
					return
				}
				w.Header().Set("Content-Encoding", "gzip")
				w.Write([]byte("this is not gzip at all"))
			},
			paths: []string{"/corrupt"},
			want:  map[string]hostileWant{"/corrupt": {"dead", "bad-encoding"}},
			check: func(t *testing.T, _ *report.Report, seen *hits) {
				if n := seen.get("/corrupt"); n != 1 {
					t.Errorf("/corrupt requested %d times, want 1", n)
				}
			},
		},
		{
			name:  "a body that trickles is cut by the whole-request deadline",
			paths: []string{"/trickle/200"},
			tune:  func(c *crawl.Config) { c.Timeout = 300 * time.Millisecond; c.MaxAttempts = 1 },
			want:  map[string]hostileWant{"/trickle/200": {"dead", "timeout"}},
		},
	})
}

// TestHostileHeadersAndRedirects crawls loopback servers with hostile
// headers: over the size limit, endless redirect chains and loops, and
// Retry-After and RateLimit values that are negative, enormous or garbage
// (ignored, or deferring the host: never a wait beyond the caps).
func TestHostileHeadersAndRedirects(t *testing.T) {
	t.Parallel()
	runHostile(t, []hostileCase{
		{
			name: "headers over the size limit",
			handler: func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/robots.txt" {
					http.NotFound(w, r)
					return
				}
				w.Header().Set("X-Junk", strings.Repeat("j", 100<<10))
				w.Write([]byte("ok"))
			},
			paths: []string{"/huge-headers"},
			want:  map[string]hostileWant{"/huge-headers": {"dead", "bad-headers"}},
		},
		{
			name:  "an endless redirect chain ends at the hop limit",
			paths: []string{"/redirect/60?to=/end"},
			want:  map[string]hostileWant{"/end": {"", ""}},
			check: func(t *testing.T, _ *report.Report, seen *hits) {
				if got := seen.total() - seen.get("/robots.txt"); got > 11 {
					t.Errorf("%d requests along the chain, want at most 11 (the seed and 10 hops)", got)
				}
			},
		},
		{
			name:  "a redirect loop is fetched once round",
			paths: []string{"/loop/a"},
			want:  map[string]hostileWant{"/loop/a": {"done", ""}, "/loop/b": {"*", ""}},
			check: func(t *testing.T, _ *report.Report, seen *hits) {
				if a, b := seen.get("/loop/a"), seen.get("/loop/b"); a != 1 || b != 1 {
					t.Errorf("/loop/a requested %d times, /loop/b %d; want 1 each", a, b)
				}
			},
		},
		{
			name: "negative and garbage Retry-After are ignored",
			handler: func() http.HandlerFunc {
				var mu sync.Mutex
				first := map[string]bool{}
				return func(w http.ResponseWriter, r *http.Request) {
					mu.Lock()
					again := first[r.URL.Path]
					first[r.URL.Path] = true
					mu.Unlock()
					switch {
					case r.URL.Path == "/robots.txt":
						http.NotFound(w, r)
					case !again && r.URL.Path == "/negative":
						w.Header().Set("Retry-After", "-10")
						w.WriteHeader(http.StatusTooManyRequests)
					case !again && r.URL.Path == "/garbage":
						w.Header()["Retry-After"] = []string{"soon, maybe", "\xff\xfe", "1e9"}
						w.WriteHeader(http.StatusServiceUnavailable)
					case !again && r.URL.Path == "/past":
						w.Header().Set("Retry-After", "Thu, 01 Jan 1970 00:00:00 GMT")
						w.WriteHeader(http.StatusTooManyRequests)
					default:
						w.Write([]byte("fine now"))
					}
				}
			}(),
			paths: []string{"/negative", "/garbage", "/past"},
			tune:  func(c *crawl.Config) { c.Pace.Multiplier = 1.5 }, // three 429s in a row stay quick
			want:  map[string]hostileWant{"/negative": {"done", ""}, "/garbage": {"done", ""}, "/past": {"done", ""}},
		},
		{
			name: "an enormous Retry-After defers the host instead of waiting",
			handler: func(w http.ResponseWriter, r *http.Request) {
				switch r.URL.Path {
				case "/robots.txt":
					http.NotFound(w, r)
				case "/digits":
					w.Header().Set("Retry-After", "99999999999999999999999999")
					w.WriteHeader(http.StatusTooManyRequests)
				default:
					w.Write([]byte("never asked"))
				}
			},
			paths: []string{"/digits", "/after"},
			want:  map[string]hostileWant{"/digits": {"deferred", ""}, "/after": {"deferred", ""}},
		},
		{
			name: "a Retry-After date in year 9999 defers the host instead of waiting",
			handler: func(w http.ResponseWriter, r *http.Request) {
				switch r.URL.Path {
				case "/robots.txt":
					http.NotFound(w, r)
				default:
					w.Header().Set("Retry-After", "Fri, 31 Dec 9999 23:59:59 GMT")
					w.WriteHeader(http.StatusServiceUnavailable)
				}
			},
			paths: []string{"/date"},
			want:  map[string]hostileWant{"/date": {"deferred", ""}},
		},
		{
			name:  "garbage RateLimit headers are ignored",
			paths: []string{"/weird-headers", "/next"},
			want:  map[string]hostileWant{"/weird-headers": {"done", ""}, "/next": {"done", ""}},
		},
		{
			name: "a RateLimit quota spent for a day defers the host instead of waiting",
			handler: func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/robots.txt" {
					http.NotFound(w, r)
					return
				}
				w.Header().Set("RateLimit-Limit", "10")
				w.Header().Set("RateLimit-Remaining", "0")
				w.Header().Set("RateLimit-Reset", "86000")
				w.Write([]byte("that was the last one today"))
			},
			paths: []string{"/one", "/two"},
			want:  map[string]hostileWant{"/one": {"done", ""}, "/two": {"deferred", ""}},
		},
	})
}

// TestHostileContent crawls loopback servers with hostile content: a
// robots.txt of megabytes (read up to 500 KiB, as RFC 9309 allows), links
// with invalid UTF-8 and NUL bytes, links with ports out of range.
func TestHostileContent(t *testing.T) {
	t.Parallel()
	robotsTxt := bigRobots()
	runHostile(t, []hostileCase{
		{
			name: "a robots.txt of 5 MiB is read up to 500 KiB",
			handler: func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/robots.txt" {
					w.Write([]byte(robotsTxt))
					return
				}
				w.Write([]byte("page"))
			},
			paths: []string{"/early", "/late"},
			want:  map[string]hostileWant{"/early": {"excluded", "robots"}, "/late": {"done", ""}},
		},
		{
			name: "invalid UTF-8 and NUL bytes in links",
			handler: func(w http.ResponseWriter, r *http.Request) {
				switch r.URL.Path {
				case "/robots.txt":
					http.NotFound(w, r)
				case "/":
					w.Header().Set("Content-Type", "text/html; charset=\xff")
					w.Write([]byte("<a href=\"/pct%00nul\">1</a><a href=\"/bad\xff\xfe\">2</a>" +
						"<a href=\"/raw\x00nul\">3</a><a href=\"http://exa\x00mple.org/\">4</a>" +
						"<a href=\"http://\xff\xfe.example/\">5</a><a \xff=\"\x00\" href=\"/ok\">6</a>"))
				default:
					w.Write([]byte("leaf"))
				}
			},
			paths: []string{"/"},
			tune:  func(c *crawl.Config) { c.Depth = 1 },
			want: map[string]hostileWant{
				"/":                {"done", ""},
				"/pct%00nul":       {"done", ""},
				"/bad%FF%FE":       {"done", ""},
				"/raw%EF%BF%BDnul": {"done", ""},
				"/ok":              {"done", ""},
			},
			check: func(t *testing.T, rep *report.Report, seen *hits) {
				for _, p := range []string{"/pct%00nul", "/bad%FF%FE", "/raw%EF%BF%BDnul", "/ok"} {
					if seen.get(p) != 1 {
						t.Errorf("%s requested %d times, want 1", p, seen.get(p))
					}
				}
			},
		},
		{
			name: "ports out of range in links are dropped",
			handler: func(w http.ResponseWriter, r *http.Request) {
				switch r.URL.Path {
				case "/robots.txt":
					http.NotFound(w, r)
				case "/":
					w.Header().Set("Content-Type", "text/html")
					w.Write([]byte(`<a href="http://127.0.0.1:70000/a">1</a><a href="http://127.0.0.1:0/b">2</a>` +
						`<a href="http://127.0.0.1:99999999999999999999/c">3</a><a href="http://127.0.0.1:-1/d">4</a>` +
						`<a href="http://[::1]:65536/e">5</a><a href="/ok">ok</a>`))
				default:
					w.Write([]byte("leaf"))
				}
			},
			paths: []string{"/"},
			tune:  func(c *crawl.Config) { c.Depth = 1; c.Scope = urls.ScopeAny },
			want:  map[string]hostileWant{"/": {"done", ""}, "/ok": {"done", ""}},
			check: func(t *testing.T, rep *report.Report, _ *hits) {
				if n := rep.Totals.Done + rep.Totals.Excluded + rep.Totals.Dead; n != 2 {
					t.Errorf("%d URLs ended, want 2 (the page and /ok): no link with a bad port may enter the frontier", n)
				}
			},
		},
	})
}

// runHostile crawls each case's server and checks the frontier.
func runHostile(t *testing.T, tests []hostileCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // each case has its own server, clock and database
			var (
				base string
				seen *hits
			)
			if tt.handler != nil {
				var srv *httptest.Server
				srv, seen = hostileServer(t, tt.handler)
				base = srv.URL
			} else {
				o := crawltest.New(crawltest.Config{})
				seen = &hits{}
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					seen.add(r.RequestURI)
					o.ServeHTTP(w, r)
				}))
				t.Cleanup(srv.Close)
				base = srv.URL
			}
			var seeds []string
			for _, p := range tt.paths {
				seeds = append(seeds, base+p)
			}
			cfg := fastConfig(t, seeds...)
			if tt.tune != nil {
				tt.tune(&cfg)
			}
			db := mustOpen(t)
			rep, err := runBounded(t, db, cfg, 3*time.Second)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			got := jobEntries(t, db, cfg.Job)
			for p, w := range tt.want {
				u := base + p
				if strings.HasPrefix(p, "//") {
					u = "http:" + p
				}
				e, ok := got[u]
				switch {
				case w.state == "" && ok:
					t.Errorf("%s is in the frontier (%s %q), want it never queued", p, e.State, e.Reason)
				case w.state == "":
				case !ok:
					t.Errorf("%s not in the frontier; want %s %q; frontier: %v", p, w.state, w.reason, keys(got))
				case w.state == "*":
					if e.State == frontier.Queued || e.State == frontier.InFlight {
						t.Errorf("%s: %s, want it ended", p, e.State)
					}
				case false:
					t.Errorf("%s not in the frontier; want %s %q; frontier: %v", p, w.state, w.reason, keys(got))
				case string(e.State) != w.state || (w.reason != "" && e.Reason.String() != w.reason):
					t.Errorf("%s: %s %q, want %s %q", p, e.State, e.Reason, w.state, w.reason)
				}
			}
			for _, h := range rep.Hosts {
				if h.DelayEndS > cfg.Pace.Ceiling.Seconds() {
					t.Errorf("%s: delay at end %.3fs, above the ceiling %s", h.Host, h.DelayEndS, cfg.Pace.Ceiling)
				}
			}
			// Nothing of a refused body reached the output folder: the
			// only bodies there are those of the manifest.
			files := 0
			for _, m := range readManifest(t, cfg.OutDir) {
				if m.File != "" {
					files++
				}
			}
			if bodies := bodyFiles(t, cfg.OutDir); len(bodies) != files {
				t.Errorf("output folder holds %q, want the %d bodies of the manifest", bodies, files)
			}
			if tt.check != nil {
				tt.check(t, rep, seen)
			}
		})
	}
}
