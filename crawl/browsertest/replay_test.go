package browsertest

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/clock"
	"github.com/polite-crawler/polite/crawl/crawltest"
	"github.com/polite-crawler/polite/crawl/fetch/fetchtest"
	"github.com/polite-crawler/polite/crawl/wacz"
)

// rwpDir is the unpacked npm package of ReplayWeb.page 2.5.3 (`npm pack
// replaywebpage@2.5.3`, unpacked: the folder holding ui.js and sw.js), or
// the test skips, saying why; under CI it fails instead.
func rwpDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("POLITE_RWP_DIR")
	why := "POLITE_RWP_DIR is not set"
	if dir != "" {
		if _, err := os.Stat(filepath.Join(dir, "sw.js")); err == nil {
			return dir
		}
		why = "POLITE_RWP_DIR has no sw.js"
	}
	why += ": unpack `npm pack replaywebpage@2.5.3` and set it to the package folder (.ci/run does)"
	if os.Getenv("CI") == "true" {
		t.Fatal(why)
	}
	t.Skip(why)
	return ""
}

// replaySite is a small site: a home page with an image and a
// stylesheet (which sets the background and needs a second image), a
// redirect, a 404 page and a page whose text changes with the run.
type replaySite struct {
	run atomic.Int32
}

func (s *replaySite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/robots.txt":
		w.Write([]byte("User-agent: *\nAllow: /\n"))
	case "/":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header()["x-replay"] = []string{"home"} // sent so, not in canonical case
		w.Write([]byte(`<!doctype html><html><head><title>Home</title><link rel="stylesheet" href="/css/site.css"></head>
<body><p id="marker">home</p><img id="probe" src="/img/photo.png" alt="image 1">
<a href="/changed">changed</a> <a href="/moved">moved</a> <a href="/missing">missing</a></body></html>`))
	case "/changed":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html><head><title>Changed</title></head><body><p id="marker">version %d</p></body></html>`, s.run.Load())
	case "/moved":
		http.Redirect(w, r, "/changed", http.StatusMovedPermanently)
	case "/css/site.css": // gzip-encoded, kept so in the WARC file
		w.Header().Set("Content-Type", "text/css")
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		zw.Write([]byte(`body { background-color: rgb(1, 2, 3); } p { background-image: url("../img/bg.png") }`))
		zw.Close()
	case "/img/photo.png", "/img/bg.png":
		w.Header().Set("Content-Type", "image/png")
		w.Write(pngOf(3, 2))
	default:
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`<!doctype html><html><head><title>Not found</title></head><body><p id="marker">not found</p></body></html>`))
	}
}

func pngOf(w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for x := range w {
		for y := range h {
			img.Set(x, y, color.RGBA{200, 10, 10, 255})
		}
	}
	var b bytes.Buffer
	png.Encode(&b, img)
	return b.Bytes()
}

// A site crawled twice from its home page with --warc (the requisites by
// default), packaged as the job's one WACZ, replays in ReplayWeb.page in
// headless Chromium with the live site stopped: the home page's image has
// its natural width and its stylesheet applies (the second run's capture
// a revisit resolved against the first's), both versions of the changed
// page show at their times, the redirect leads to the version of its
// time, the 404 page shows, and no connection reaches the site's address.
// Over plain HTTP/1.1 and over HTTPS with HTTP/1.1 (heads as read off
// the connection, after TLS: the home page's x-replay field in the case
// it was sent in) and over HTTPS with HTTP/2 (heads in their HTTP/1.1
// form, WARC-Protocol: h2) alike: the service worker replays an https
// capture from the archive without dialling it, so the site's
// certificate is not needed in replay.
func TestReplayInReplayWebPage(t *testing.T) {
	rwp := rwpDir(t)
	b := sharedChromium(t)
	for _, tt := range []struct {
		name, status string // status: the home page's record's status line
		tls, h2      bool
	}{
		{"http/1.1", "HTTP/1.1 200 OK\r\n", false, false},
		{"https http/1.1", "HTTP/1.1 200 OK\r\n", true, false},
		{"https h2", "HTTP/1.1 200 \r\n", true, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			site := &replaySite{}
			srv, caFile := startReplaySite(t, site, tt.tls, tt.h2)
			origin := srv.URL
			stamps, files := crawlTwice(t, site, origin, caFile)
			checkRecords(t, files, origin+"/", tt.status, tt.h2)
			archive := packageWACZ(t, files)
			// The live site stops; what connects to its address from now
			// on is counted.
			srv.Close()
			leaked := countConnections(t, srv.Listener.Addr().String())
			replayCases(t, b, replayPlayer(t, rwp, archive), origin, stamps)
			if n := leaked.Load(); n != 0 {
				t.Errorf("%d connections reached the live site's address during replay, want 0", n)
			}
		})
	}
}

// startReplaySite serves site on loopback: over HTTP/1.1, or over HTTPS
// (with HTTP/2 when h2) with a certificate of a CA made here, whose file
// it returns.
func startReplaySite(t *testing.T, site http.Handler, tls, h2 bool) (*httptest.Server, string) {
	if !tls {
		srv := httptest.NewServer(site)
		t.Cleanup(srv.Close)
		return srv, ""
	}
	ca := fetchtest.NewCA(t, "replay CA")
	srv := fetchtest.StartTLS(t, site, fetchtest.ServerOptions{Cert: ca.Leaf(t, fetchtest.Always, "127.0.0.1"), HTTP2: h2})
	return srv.Server, ca.WriteFile(t)
}

// crawlTwice crawls origin from its home page twice, a day apart on the
// crawl's clock, as one job with --warc; it returns each run's timestamp
// and the job's WARC files.
func crawlTwice(t *testing.T, site *replaySite, origin, caFile string) (stamps, files []string) {
	db := crawltest.OpenDB(t)
	out := t.TempDir()
	t0 := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	for run := 1; run <= 2; run++ {
		site.run.Store(int32(run))
		cfg := crawltest.FastConfig(t, origin+"/")
		cfg.Job, cfg.OutDir, cfg.Depth, cfg.AllowPrivate, cfg.CAFile = "replay", out, 2, true, caFile
		cfg.Warc, cfg.WarcFiles, cfg.Requisites = true, db, "any-host"
		start := t0.Add(time.Duration(run-1) * 24 * time.Hour)
		crawltest.OnClock(t, &cfg, clock.NewFake(start))
		rep, err := crawl.Run(context.Background(), db, cfg)
		if err != nil || rep.Totals.Done < 6 {
			t.Fatalf("run %d: %v (%+v)", run, err, rep.Totals) // the 404 is dead: exit 1
		}
		stamps = append(stamps, start.Format("20060102150405"))
	}
	recorded, err := db.WarcFiles("replay")
	if err != nil || len(recorded) != 2 {
		t.Fatalf("WARC files recorded: %v, %v; want one per run", recorded, err)
	}
	return stamps, []string{recorded[0].Path, recorded[1].Path}
}

// checkRecords reads the WARC files: the first response record of home
// starts with status and holds its x-replay field as sent, in lower case,
// and every request, response and revisit record says WARC-Protocol: h2
// when h2, none otherwise.
func checkRecords(t *testing.T, files []string, home, status string, h2 bool) {
	t.Helper()
	var text strings.Builder
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(&text, zr); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	homeSeen, answers := false, 0
	for _, rec := range strings.Split(text.String(), "WARC/1.1\r\n")[1:] {
		head, block, _ := strings.Cut(rec, "\r\n\r\n")
		typ := field(head, "WARC-Type")
		if typ != "response" && typ != "revisit" && typ != "request" {
			continue
		}
		answers++
		if got := field(head, "WARC-Protocol"); (got == "h2") != h2 || (!h2 && got != "") {
			t.Errorf("%s record of %s says WARC-Protocol %q (h2: %v)", typ, field(head, "WARC-Target-URI"), got, h2)
		}
		if typ == "response" && field(head, "WARC-Target-URI") == home && !homeSeen {
			homeSeen = true
			if !strings.HasPrefix(block, status) || !strings.Contains(block, "\r\nx-replay: home\r\n") {
				t.Errorf("home page's record begins %.60q, want %q and the field x-replay as sent:\n%.400q", block, status, block)
			}
		}
	}
	if !homeSeen || answers < 24 {
		t.Errorf("%d request, response and revisit records, home page's found: %v; want 24 or more, and it", answers, homeSeen)
	}
}

// field is the value of the field name in a record's head.
func field(head, name string) string {
	for _, line := range strings.Split(head, "\r\n") {
		if k, v, ok := strings.Cut(line, ": "); ok && k == name {
			return v
		}
	}
	return ""
}

// packageWACZ writes the WARC files as one WACZ file and returns its path.
func packageWACZ(t *testing.T, files []string) string {
	archive := filepath.Join(t.TempDir(), "replay.wacz")
	f, err := os.Create(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	created := time.Date(2026, 3, 6, 0, 0, 0, 0, time.UTC)
	if err := wacz.Write(f, wacz.Package{Title: "replay", Software: "polite", Created: created, WARCs: files}); err != nil {
		t.Fatal(err)
	}
	return archive
}

// countConnections listens on addr, closing and counting each connection.
func countConnections(t *testing.T, addr string) *atomic.Int32 {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listen again on the site's address: %v", err)
	}
	t.Cleanup(func() { ln.Close() })
	var n atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			c.Close()
		}
	}()
	return &n
}

// replayCases opens each capture in the player and checks what shows.
func replayCases(t *testing.T, b *browser, player, origin string, stamps []string) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cases := []struct {
		name, url, ts, marker string
		image                 bool
	}{
		{"home page, first run", origin + "/", stamps[0], "home", true},
		{"home page, second run (a revisit)", origin + "/", stamps[1], "home", true},
		{"changed page, first version", origin + "/changed", stamps[0], "version 1", false},
		{"changed page, second version", origin + "/changed", stamps[1], "version 2", false},
		{"redirect, first run", origin + "/moved", stamps[0], "version 1", false},
		{"redirect, second run", origin + "/moved", stamps[1], "version 2", false},
		{"404 page", origin + "/missing", stamps[0], "not found", false},
	}
	for _, c := range cases {
		tb := b.newTab(ctx, t)
		page := fmt.Sprintf("%s/embed.html?url=%s&ts=%s", player, c.url, c.ts)
		if err := tb.navigate(ctx, page); err != nil {
			t.Fatal(err)
		}
		var got replayed
		if err := tb.eval(ctx, replayedJS, &got); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got.Marker != c.marker {
			t.Errorf("%s: replayed %q, want %q (frames: %s)", c.name, got.Marker, c.marker, got.Frames)
			continue
		}
		if c.image && (got.Width != 3 || got.Background != "rgb(1, 2, 3)") {
			t.Errorf("%s: image natural width %d (want 3), background %q (want rgb(1, 2, 3): the stylesheet applied)",
				c.name, got.Width, got.Background)
		}
	}
}

// replayed is what replayedJS finds in the replayed page.
type replayed struct {
	Marker     string `json:"marker"`
	Width      int    `json:"width"`
	Background string `json:"background"`
	Frames     string `json:"frames"`
}

// replayedJS waits (in the browser, up to 60 s of its time) for a frame,
// however deep in ReplayWeb.page's shadow roots and frames, holding the
// replayed page's #marker, loaded with its images, and reports it.
const replayedJS = `(async () => {
  const docs = (root, out) => {
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) docs(el.shadowRoot, out);
      if (el.tagName === 'IFRAME') {
        try { const d = el.contentDocument; if (d) { out.push(d); docs(d, out); } } catch (e) {}
      }
    }
    return out;
  };
  const deadline = Date.now() + 60000;
  while (Date.now() < deadline) {
    for (const d of docs(document, [])) {
      const m = d.querySelector('#marker');
      if (!m || d.readyState !== 'complete' || ![...d.images].every(i => i.complete)) continue;
      const img = d.querySelector('#probe');
      return {marker: m.textContent, width: img ? img.naturalWidth : 0,
        background: getComputedStyle(d.body).backgroundColor, frames: ''};
    }
    await new Promise(r => setTimeout(r, 100));
  }
  return {marker: '', width: 0, background: '', frames: docs(document, []).map(d => d.location.href + ': ' +
    (d.body ? d.body.innerText.slice(0, 200) : '')).join(' | ')};
})()`

// replayPlayer serves ReplayWeb.page's files under /replay/, the WACZ at
// /archive.wacz and, at /embed.html?url=U&ts=T, a page embedding the
// player on the archive at U and T; it returns its base URL.
func replayPlayer(t *testing.T, rwp, archive string) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/replay/", http.StripPrefix("/replay/", http.FileServer(http.Dir(rwp))))
	mux.HandleFunc("/archive.wacz", func(w http.ResponseWriter, r *http.Request) { http.ServeFile(w, r, archive) })
	mux.HandleFunc("/embed.html", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html><head><script src="/replay/ui.js"></script></head><body>
<replay-web-page style="height:600px;display:block" source="/archive.wacz" url="%s" ts="%s" replaybase="/replay/" embed="replayonly"></replay-web-page>
</body></html>`, htmlAttr(q.Get("url")), htmlAttr(q.Get("ts")))
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

func htmlAttr(s string) string {
	return strings.NewReplacer(`&`, "&amp;", `"`, "&quot;", `<`, "&lt;").Replace(s)
}
