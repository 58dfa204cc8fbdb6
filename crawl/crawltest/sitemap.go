package crawltest

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// SitemapConfig is an origin's sitemap mode (Config.Sitemap), on when
// Pages > 0. Then:
//
//	/robots.txt              Config.Robots plus a Sitemap line for /sitemap.xml
//	                         and one per hostile sitemap chosen (when
//	                         RobotsStatus is 0 or 2xx; /robots2.txt too)
//	/sitemap.xml             a sitemapindex of the three below, with lastmod
//	/sitemap-pages.xml.gz    gzip urlset of /hidden/N for N%3 == 0
//	/sitemap-pages.xml       urlset of /hidden/N for N%3 == 1
//	/sitemap-pages.txt       text sitemap of /hidden/N for N%3 == 2 (no lastmod)
//	/hidden/N                an HTML page no page links to, N < Pages
//
// The urlsets give every page a lastmod (LastMod(N), in a few W3C forms)
// and most a priority and changefreq. Sitemaps and hidden pages answer
// with an ETag (a hash of the body) and a Last-Modified (the page's
// lastmod, or the latest of a sitemap's pages), and 304 to a matching
// If-None-Match or an If-Modified-Since not before it. Absolute URLs in
// robots.txt and sitemaps name the host the request was sent to.
//
// Hostile sitemaps, each served and named in robots.txt only when chosen
// in Hostile (404 otherwise), are listed with HostileSitemaps' values.
type SitemapConfig struct {
	Pages int

	// LastMod is page N's last modification; nil means LastModified for
	// every page. It must be safe for concurrent use: a test may change
	// what it returns between two crawls to change pages.
	LastMod func(n int) time.Time

	Hostile HostileSitemaps

	// Foreign lists more absolute URLs for /sitemap-foreign.xml, such as
	// pages of another origin whose robots.txt names that sitemap.
	Foreign []string
}

// HostileSitemaps chooses hostile sitemaps; combine with |.
type HostileSitemaps uint

const (
	// /sitemap-huge.xml: a well-formed urlset of 51 MiB, past the 50 MB
	// limit, padded so that the size limit comes before the URL limit;
	// generated as it is sent.
	SitemapHuge HostileSitemaps = 1 << iota
	// /sitemap-endless.xml: a urlset that never ends (no Content-Length),
	// sent until the client goes away.
	SitemapEndless
	// /sitemap-bomb.xml.gz: about 1 MiB of gzip (1 MiB members) inflating
	// to BombInflated bytes of padded urlset.
	SitemapBomb
	// /sitemap-60k.xml: 60,000 URLs /many/N, past the 50,000 limit.
	SitemapMany
	// /sitemap-broken.xml: three good URLs /broken/ok/N, two bad entries
	// (a relative URL, priority 1.5), one whose lastmod "yesterday" cannot
	// be read (kept without it), then a tag that never closes, then
	// /broken/never.
	SitemapBroken
	// /sitemap-laughs.xml (billion laughs) and /sitemap-xxe.xml (external
	// entities naming file:///etc/passwd and this host's /xxe-target,
	// which a parser that fetched them would request).
	SitemapEntities
	// /sitemap-foreign.xml: URLs on other.invalid, on localhost with this
	// origin's port (another host name for the same server), on private
	// and link-local addresses, then SitemapConfig.Foreign; and
	// /sub/sitemap.xml, listing /sub/a and /sub/b (inside its folder) and
	// /hidden/0 (outside it).
	SitemapForeign

	AllHostileSitemaps = SitemapHuge | SitemapEndless | SitemapBomb | SitemapMany | SitemapBroken | SitemapEntities | SitemapForeign
)

// Sizes of the generated hostile sitemaps.
const (
	HugeSize     = 51 << 20 // bytes of /sitemap-huge.xml
	BombInflated = 1 << 30  // bytes /sitemap-bomb.xml.gz inflates to, about
	ManyURLs     = 60_000   // URLs in /sitemap-60k.xml
)

// hostilePaths names the sitemaps each choice adds to robots.txt.
var hostilePaths = []struct {
	h     HostileSitemaps
	paths []string
}{
	{SitemapHuge, []string{"/sitemap-huge.xml"}},
	{SitemapEndless, []string{"/sitemap-endless.xml"}},
	{SitemapBomb, []string{"/sitemap-bomb.xml.gz"}},
	{SitemapMany, []string{"/sitemap-60k.xml"}},
	{SitemapBroken, []string{"/sitemap-broken.xml"}},
	{SitemapEntities, []string{"/sitemap-laughs.xml", "/sitemap-xxe.xml"}},
	{SitemapForeign, []string{"/sitemap-foreign.xml", "/sub/sitemap.xml"}},
}

// SitemapPaths returns the paths robots.txt names as sitemaps, in order:
// /sitemap.xml, then the hostile ones chosen.
func (c SitemapConfig) SitemapPaths() []string {
	paths := []string{"/sitemap.xml"}
	for _, hp := range hostilePaths {
		if c.Hostile&hp.h != 0 {
			paths = append(paths, hp.paths...)
		}
	}
	return paths
}

// HiddenPages returns the paths of the pages only the sitemaps list, with
// the sitemap that lists each.
func (c SitemapConfig) HiddenPages() map[string]string {
	m := make(map[string]string, c.Pages)
	for n := range c.Pages {
		m[hiddenPath(n)] = pagesSitemaps[n%3]
	}
	return m
}

var pagesSitemaps = [3]string{"/sitemap-pages.xml.gz", "/sitemap-pages.xml", "/sitemap-pages.txt"}

func hiddenPath(n int) string { return "/hidden/" + strconv.Itoa(n) }

func (c SitemapConfig) lastMod(n int) time.Time {
	if c.LastMod == nil {
		return LastModified
	}
	return c.LastMod(n).UTC()
}

// serveSitemap answers the sitemap mode's paths and reports whether it
// did; any other path is left to route.
func (o *Origin) serveSitemap(w *countingWriter, r *http.Request) bool {
	c := o.cfg.Sitemap
	if c == nil || c.Pages <= 0 {
		return false
	}
	base := "http://" + r.Host
	p := r.URL.Path
	switch {
	case p == "/robots.txt" && (o.cfg.RobotsStatus == 0 || o.cfg.RobotsStatus/100 == 2), p == "/robots2.txt":
		status := http.StatusOK
		if p == "/robots.txt" && o.cfg.RobotsStatus != 0 {
			status = o.cfg.RobotsStatus
		}
		serveFixed(w, r, status, "text/plain; charset=utf-8", []byte(o.robotsWithSitemaps(base)), LastModified)
	case p == "/sitemap.xml":
		serveFixed(w, r, http.StatusOK, "application/xml", c.index(base), c.newest(-1))
	case p == pagesSitemaps[0]:
		serveFixed(w, r, http.StatusOK, "application/gzip", gzipBytes(c.urlset(base, 0)), c.newest(0))
	case p == pagesSitemaps[1]:
		serveFixed(w, r, http.StatusOK, "application/xml", c.urlset(base, 1), c.newest(1))
	case p == pagesSitemaps[2]:
		serveFixed(w, r, http.StatusOK, "text/plain; charset=utf-8", c.textSitemap(base), c.newest(2))
	case strings.HasPrefix(p, "/hidden/"):
		n, err := strconv.Atoi(strings.TrimPrefix(p, "/hidden/"))
		if err != nil || n < 0 || n >= c.Pages || hiddenPath(n) != p {
			serveFixed(w, r, http.StatusNotFound, "text/plain; charset=utf-8", []byte("not found\n"), time.Time{})
			return true
		}
		serveFixed(w, r, http.StatusOK, "text/html; charset=utf-8", c.hiddenPage(n), c.lastMod(n))
	default:
		return o.serveHostile(w, r, base)
	}
	return true
}

func (o *Origin) robotsWithSitemaps(base string) string {
	var b strings.Builder
	b.WriteString(o.cfg.Robots)
	if o.cfg.Robots != "" && !strings.HasSuffix(o.cfg.Robots, "\n") {
		b.WriteByte('\n')
	}
	for _, p := range o.cfg.Sitemap.SitemapPaths() {
		fmt.Fprintf(&b, "Sitemap: %s%s\n", base, p)
	}
	return b.String()
}

// newest is the latest lastmod of the pages of pages sitemap i, or of
// every page when i < 0.
func (c SitemapConfig) newest(i int) time.Time {
	var t time.Time
	for n := range c.Pages {
		if i < 0 || n%3 == i {
			if lm := c.lastMod(n); lm.After(t) {
				t = lm
			}
		}
	}
	if t.IsZero() {
		return LastModified
	}
	return t
}

const (
	xmlHead     = `<?xml version="1.0" encoding="UTF-8"?>` + "\n"
	urlsetOpen  = xmlHead + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n"
	urlsetClose = "</urlset>\n"
)

func (c SitemapConfig) index(base string) []byte {
	var b strings.Builder
	b.WriteString(xmlHead + `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
	for i, p := range pagesSitemaps {
		fmt.Fprintf(&b, "  <sitemap><loc>%s%s</loc><lastmod>%s</lastmod></sitemap>\n", base, p, c.newest(i).Format(time.RFC3339))
	}
	b.WriteString("</sitemapindex>\n")
	return []byte(b.String())
}

// urlset lists the pages N with N%3 == i, their lastmod in one of three
// W3C forms and, for most, a priority and a changefreq.
func (c SitemapConfig) urlset(base string, i int) []byte {
	var b strings.Builder
	b.WriteString(urlsetOpen)
	for n := i; n < c.Pages; n += 3 {
		lm := c.lastMod(n)
		var lms string
		switch n % 4 {
		case 0, 1:
			lms = lm.Format(time.RFC3339)
		case 2:
			lms = lm.In(time.FixedZone("", 2*3600)).Format("2006-01-02T15:04:05.000Z07:00")
		default:
			lms = lm.In(time.FixedZone("", -5*3600)).Format("2006-01-02T15:04Z07:00")
		}
		fmt.Fprintf(&b, "  <url>\n    <loc>%s%s</loc>\n    <lastmod>%s</lastmod>\n", base, hiddenPath(n), lms)
		if n%4 != 3 {
			fmt.Fprintf(&b, "    <changefreq>daily</changefreq>\n    <priority>0.%d</priority>\n", n%10)
		}
		b.WriteString("  </url>\n")
	}
	b.WriteString(urlsetClose)
	return []byte(b.String())
}

func (c SitemapConfig) textSitemap(base string) []byte {
	var b strings.Builder
	for n := 2; n < c.Pages; n += 3 {
		b.WriteString(base + hiddenPath(n) + "\n")
	}
	return []byte(b.String())
}

func (c SitemapConfig) hiddenPage(n int) []byte {
	return fmt.Appendf(nil, "<!doctype html>\n<html><head><title>Hidden page %d</title></head>\n<body>\n<h1>Hidden page %d</h1>\n<p>Only a sitemap lists this page. Changed %s.</p>\n</body></html>\n",
		n, n, c.lastMod(n).Format(time.RFC3339))
}

// serveFixed sends a body held in memory with its ETag and, when lm is
// not zero, Last-Modified; a 200 becomes a 304 when the request's
// validators match (If-None-Match first, else If-Modified-Since).
func serveFixed(w *countingWriter, r *http.Request, status int, ctype string, body []byte, lm time.Time) {
	h := w.Header()
	if status == http.StatusOK {
		etag := ETag(body)
		h.Set("ETag", etag)
		if !lm.IsZero() {
			h.Set("Last-Modified", lm.Format(http.TimeFormat))
		}
		if notModifiedSince(r, etag, lm) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	h.Set("Content-Type", ctype)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// notModifiedSince is notModified with a Last-Modified of the body's own.
func notModifiedSince(r *http.Request, etag string, lm time.Time) bool {
	if r.Header.Get("If-None-Match") != "" {
		return notModified(r, etag)
	}
	if lm.IsZero() {
		return false
	}
	t, err := http.ParseTime(r.Header.Get("If-Modified-Since"))
	return err == nil && !t.Before(lm.Truncate(time.Second))
}
