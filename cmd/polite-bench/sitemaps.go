package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"
)

// The sitemaps scenario: robots.txt names an index of sitemapChildren
// sitemaps of sitemapURLs URLs each (the protocol's limit), served as
// streams on loopback. The binary reads them all with --sitemaps (they
// come before pages) and a few pages; its peak RSS is set beside that of
// an empty crawl of the same origin (one request, no --sitemaps).
const (
	sitemapChildren = 12
	sitemapURLs     = 50_000
	sitemapLimitMB  = 60 // the most the sitemaps may add to an empty crawl's peak
)

// sitemapsResult is the sitemaps scenario's block of the output.
type sitemapsResult struct {
	emptyKiB, sitemapsKiB int64
	children              int64 // children the origin served
	wall                  time.Duration
}

// sitemapOrigin serves robots.txt, the index, its children and pages.
func sitemapOrigin(children *atomic.Int64) *httptest.Server {
	var base string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n int
		switch {
		case r.URL.Path == "/robots.txt":
			fmt.Fprintf(w, "User-agent: *\nAllow: /\nSitemap: %s/sitemap-index.xml\n", base)
		case r.URL.Path == "/sitemap-index.xml":
			w.Header().Set("Content-Type", "application/xml")
			bw := bufio.NewWriter(w)
			bw.WriteString(`<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
			for i := range sitemapChildren {
				fmt.Fprintf(bw, "\n<sitemap><loc>%s/sitemap-%d.xml</loc></sitemap>", base, i)
			}
			bw.WriteString("\n</sitemapindex>\n")
			bw.Flush()
		case strings.HasPrefix(r.URL.Path, "/sitemap-"):
			if _, err := fmt.Sscanf(r.URL.Path, "/sitemap-%d.xml", &n); err != nil {
				http.NotFound(w, r)
				return
			}
			children.Add(1)
			w.Header().Set("Content-Type", "application/xml")
			bw := bufio.NewWriterSize(w, 64<<10)
			bw.WriteString(`<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
			for i := range sitemapURLs {
				fmt.Fprintf(bw, "\n<url><loc>%s/s%d/page-%06d</loc><lastmod>2024-05-01</lastmod></url>", base, n, i)
			}
			bw.WriteString("\n</urlset>\n")
			bw.Flush()
		default:
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html><body>page</body></html>")
		}
	}))
	base = srv.URL
	return srv
}

func (b *bench) runSitemaps(ctx context.Context) error {
	if _, err := os.Stat(b.opts.polite); err != nil {
		return fmt.Errorf("polite binary: %w (build it with make build, or pass -polite)", err)
	}
	var children atomic.Int64
	srv := sitemapOrigin(&children)
	defer srv.Close()
	r := &sitemapsResult{}
	var err error
	b.progress("sitemaps: an empty crawl")
	if r.emptyKiB, _, err = sitemapRun(ctx, b.opts.polite, srv.URL, "--max-requests", "1"); err != nil {
		return err
	}
	children.Store(0)
	b.progress("sitemaps: an index of %d x %d URLs", sitemapChildren, sitemapURLs)
	if r.sitemapsKiB, r.wall, err = sitemapRun(ctx, b.opts.polite, srv.URL, "--sitemaps", "--max-requests", fmt.Sprint(sitemapChildren+8)); err != nil {
		return err
	}
	r.children = children.Load()
	b.sitemaps = r
	return nil
}

// sitemapRun runs polite crawl of base's root in a fresh folder, with
// the flags given, and returns its peak RSS and wall time.
func sitemapRun(ctx context.Context, polite, base string, flags ...string) (int64, time.Duration, error) {
	dir, err := os.MkdirTemp("", "polite-bench-sitemaps-")
	if err != nil {
		return 0, 0, err
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	args := append([]string{"crawl", "--db", filepath.Join(dir, "polite.db"), "--out", filepath.Join(dir, "out"),
		"--job", "sitemaps", "--floor", "0", "--start", "0", "--progress", "never", "--user-agent", userAgent}, flags...)
	cmd := exec.CommandContext(ctx, polite, append(args, base+"/")...)
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &output
	start := time.Now()
	rss, _, err := runChild(cmd)
	if err != nil {
		return 0, 0, fmt.Errorf("polite crawl: %w\n%s", err, output.Bytes())
	}
	return rss, time.Since(start), nil
}

// print writes the sitemaps block.
func (s *sitemapsResult) print(w io.Writer) {
	fmt.Fprintf(w, "sitemaps: an index of %d sitemaps x %d URLs, the binary with --sitemaps\n", sitemapChildren, sitemapURLs)
	fmt.Fprintf(w, "  empty crawl: peak RSS %.1f MB; with the sitemaps: %.1f MB (+%.1f MB), %d children read, wall %.2f s\n",
		float64(s.emptyKiB)/1024, float64(s.sitemapsKiB)/1024, s.addedMB(), s.children, s.wall.Seconds())
}

// addedMB is what reading the sitemaps added to the peak RSS.
func (s *sitemapsResult) addedMB() float64 { return float64(s.sitemapsKiB-s.emptyKiB) / 1024 }

// target is the sitemaps scenario's line of the targets.
func (s *sitemapsResult) target() string {
	return fmt.Sprintf("sitemaps (%d x %d URLs): peak RSS at most %d MB above an empty crawl's, every child read: %s (+%.1f MB, %d/%d read)",
		sitemapChildren, sitemapURLs, sitemapLimitMB, verdict(s.addedMB() <= sitemapLimitMB && s.children == sitemapChildren),
		s.addedMB(), s.children, sitemapChildren)
}
