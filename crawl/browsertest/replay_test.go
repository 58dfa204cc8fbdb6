package browsertest

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/clock"
	"github.com/polite-crawler/polite/crawl/crawltest"
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
// redirect, a 404 and a page whose text changes with the run.
type replaySite struct {
	run atomic.Int32
}

func (s *replaySite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/robots.txt":
		w.Write([]byte("User-agent: *\nAllow: /\n"))
	case "/":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
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
		http.NotFound(w, r)
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
// page show at their times, and no request reaches the site's address.
func TestReplayInReplayWebPage(t *testing.T) {
	rwp := rwpDir(t)
	b := sharedChromium(t)
	site := &replaySite{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: site}
	go srv.Serve(ln)
	origin := "http://" + ln.Addr().String()

	db := crawltest.OpenDB(t)
	out := t.TempDir()
	t0 := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	var stamps []string
	for run := 1; run <= 2; run++ {
		site.run.Store(int32(run))
		cfg := crawltest.FastConfig(t, origin+"/")
		cfg.Job, cfg.OutDir, cfg.Depth, cfg.AllowPrivate = "replay", out, 2, true
		cfg.Warc, cfg.WarcFiles, cfg.Requisites = true, db, "any-host"
		start := t0.Add(time.Duration(run-1) * 24 * time.Hour)
		crawltest.OnClock(t, &cfg, clock.NewFake(start))
		rep, err := crawl.Run(context.Background(), db, cfg)
		if err != nil || rep.Totals.Done < 6 {
			t.Fatalf("run %d: %v (%+v)", run, err, rep.Totals) // the 404 is dead: exit 1
		}
		stamps = append(stamps, start.Format("20060102150405"))
	}
	files, err := db.WarcFiles("replay")
	if err != nil || len(files) != 2 {
		t.Fatalf("WARC files recorded: %v, %v; want one per run", files, err)
	}
	archive := filepath.Join(t.TempDir(), "replay.wacz")
	f, err := os.Create(archive)
	if err != nil {
		t.Fatal(err)
	}
	if err := wacz.Write(f, wacz.Package{Title: "replay", Software: "polite", Created: t0, WARCs: []string{files[0].Path, files[1].Path}}); err != nil {
		t.Fatal(err)
	}
	f.Close()

	// The live site stops; what asks its address from now on is counted.
	srv.Close()
	var leaked atomic.Int32
	trip, err := net.Listen("tcp", ln.Addr().String())
	if err != nil {
		t.Fatalf("listen again on the site's address: %v", err)
	}
	tripSrv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		leaked.Add(1)
		http.Error(w, "the live site is stopped", http.StatusServiceUnavailable)
	})}
	go tripSrv.Serve(trip)
	defer tripSrv.Close()

	player := replayPlayer(t, rwp, archive)
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
	if n := leaked.Load(); n != 0 {
		t.Errorf("%d requests reached the live site's address during replay, want 0", n)
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
