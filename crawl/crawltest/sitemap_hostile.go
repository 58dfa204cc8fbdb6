package crawltest

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// serveHostile answers the hostile sitemaps chosen in the sitemap mode,
// and reports whether it did.
func (o *Origin) serveHostile(w *countingWriter, r *http.Request, base string) bool {
	c := o.cfg.Sitemap
	on := func(h HostileSitemaps) bool { return c.Hostile&h != 0 }
	const xml = "application/xml"
	switch p := r.URL.Path; {
	case serveGenerated(w, r, base, on):
	case p == "/sitemap-broken.xml" && on(SitemapBroken):
		serveFixed(w, r, http.StatusOK, xml, []byte(strings.ReplaceAll(brokenSitemap, "BASE", base)), LastModified)
	case p == "/sitemap-laughs.xml" && on(SitemapEntities):
		serveFixed(w, r, http.StatusOK, xml, []byte(strings.ReplaceAll(laughsSitemap, "BASE", base)), LastModified)
	case p == "/sitemap-xxe.xml" && on(SitemapEntities):
		serveFixed(w, r, http.StatusOK, xml, []byte(strings.ReplaceAll(xxeSitemap, "BASE", base)), LastModified)
	case p == "/sitemap-foreign.xml" && on(SitemapForeign):
		serveFixed(w, r, http.StatusOK, xml, c.foreign(r.Host), LastModified)
	case p == "/sub/sitemap.xml" && on(SitemapForeign):
		body := urlsetOpen + "<url><loc>BASE/sub/a</loc></url>\n<url><loc>BASE/sub/b</loc></url>\n<url><loc>BASE/hidden/0</loc></url>\n" + urlsetClose
		serveFixed(w, r, http.StatusOK, xml, []byte(strings.ReplaceAll(body, "BASE", base)), LastModified)
	default:
		for _, hp := range hostilePaths {
			if slices.Contains(hp.paths, r.URL.Path) {
				serveFixed(w, r, http.StatusNotFound, "text/plain; charset=utf-8", []byte("not found: hostile sitemap not chosen\n"), time.Time{})
				return true
			}
		}
		return false
	}
	return true
}

// serveGenerated answers the hostile sitemaps generated as they are sent,
// and reports whether it did.
func serveGenerated(w *countingWriter, r *http.Request, base string, on func(HostileSitemaps) bool) bool {
	const xml = "application/xml"
	switch p := r.URL.Path; {
	case p == "/sitemap-huge.xml" && on(SitemapHuge):
		entry := hugeEntry(base, 0)
		k := (HugeSize - len(urlsetOpen) - len(urlsetClose) + len(entry) - 1) / len(entry)
		size := int64(len(urlsetOpen) + k*len(entry) + len(urlsetClose))
		serveStream(w, r, xml, size, func(write func([]byte) error) error {
			if err := write([]byte(urlsetOpen)); err != nil {
				return err
			}
			for i := range k {
				if err := write(hugeEntry(base, i)); err != nil {
					return err
				}
			}
			return write([]byte(urlsetClose))
		})
	case p == "/sitemap-endless.xml" && on(SitemapEndless):
		serveStream(w, r, xml, -1, func(write func([]byte) error) error {
			if err := write([]byte(urlsetOpen)); err != nil {
				return err
			}
			for i := 0; ; i++ {
				if err := write(hugeEntry(base, i)); err != nil {
					return err
				}
			}
		})
	case p == "/sitemap-bomb.xml.gz" && on(SitemapBomb):
		head := gzipBytes([]byte(urlsetOpen + "<url><loc>" + base + "/bomb/0</loc></url>\n"))
		pad, tail := bombMember(), gzipBytes([]byte(urlsetClose))
		n := BombInflated / bombPadSize
		size := int64(len(head) + n*len(pad) + len(tail))
		serveStream(w, r, "application/gzip", size, func(write func([]byte) error) error {
			if err := write(head); err != nil {
				return err
			}
			for range n {
				if err := write(pad); err != nil {
					return err
				}
			}
			return write(tail)
		})
	case p == "/sitemap-60k.xml" && on(SitemapMany):
		entry := func(i int) []byte { return fmt.Appendf(nil, "<url><loc>%s/many/%05d</loc></url>\n", base, i) }
		size := int64(len(urlsetOpen) + ManyURLs*len(entry(0)) + len(urlsetClose))
		serveStream(w, r, xml, size, func(write func([]byte) error) error {
			if err := write([]byte(urlsetOpen)); err != nil {
				return err
			}
			for i := range ManyURLs {
				if err := write(entry(i)); err != nil {
					return err
				}
			}
			return write([]byte(urlsetClose))
		})
	default:
		return false
	}
	return true
}

// hugeEntry is entry i of the huge and endless sitemaps: a URL padded to
// about 40 KiB, so that 50 MB come long before 50,000 URLs (about 1,300
// of them: each one queued costs a crawl of these sitemaps a frontier row).
func hugeEntry(base string, i int) []byte {
	return fmt.Appendf(nil, "<url><loc>%s/huge/%08d</loc><pad>%s</pad></url>\n", base, i, hugePad)
}

var hugePad = strings.Repeat("a", 40_000)

// bombPadSize is the inflated size of one bomb member: text lines of
// 60,000 bytes in elements no sitemap defines.
var bombPad = bytes.Repeat([]byte("<pad>"+strings.Repeat("a", 60_000)+"</pad>\n"), 17)

var bombPadSize = len(bombPad)

// bombMember is bombPad compressed as one gzip member, made once.
var bombMember = sync.OnceValue(func() []byte { return gzipBytes(bombPad) })

func gzipBytes(b []byte) []byte {
	var buf bytes.Buffer
	z, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	_, _ = z.Write(b)
	_ = z.Close()
	return buf.Bytes()
}

// serveStream sends a generated body: size bytes (-1 for a body without
// end, sent chunked), with an ETag of its path and the origin's
// LastModified, or 304 when the validators match. gen writes the body and
// stops at the first error (the client went away).
func serveStream(w *countingWriter, r *http.Request, ctype string, size int64, gen func(write func([]byte) error) error) {
	h := w.Header()
	etag := ETag([]byte("stream " + r.URL.Path))
	h.Set("ETag", etag)
	h.Set("Last-Modified", LastModified.Format(http.TimeFormat))
	if notModifiedSince(r, etag, LastModified) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", ctype)
	if size >= 0 {
		h.Set("Content-Length", strconv.FormatInt(size, 10))
	}
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	ctx := r.Context()
	_ = gen(func(b []byte) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		_, err := w.Write(b)
		return err
	})
}

// foreign lists URLs a sitemap on host may not use by the protocol's
// rule: another host, the same server under another name, private and
// link-local addresses; then the configured Foreign URLs.
func (c SitemapConfig) foreign(host string) []byte {
	_, port, _ := net.SplitHostPort(host)
	urls := []string{
		"http://other.invalid/page",
		"http://localhost:" + port + "/hidden/0",
		"http://127.0.0.2:" + port + "/hidden/1",
		"http://[::1]:" + port + "/hidden/2",
		"http://10.0.0.1/",
		"http://192.168.1.1/admin",
		"http://169.254.169.254/latest/meta-data/",
		"http://[fd00::1]/",
	}
	var b strings.Builder
	b.WriteString(urlsetOpen)
	for _, u := range append(urls, c.Foreign...) {
		fmt.Fprintf(&b, "<url><loc>%s</loc></url>\n", u)
	}
	b.WriteString(urlsetClose)
	return []byte(b.String())
}

const brokenSitemap = urlsetOpen + `<url><loc>BASE/broken/ok/1</loc><lastmod>2024-01-01</lastmod></url>
<url><loc>BASE/broken/ok/2</loc></url>
<url><loc>/broken/relative</loc></url>
<url><loc>BASE/broken/bad-lastmod</loc><lastmod>yesterday</lastmod></url>
<url><loc>BASE/broken/bad-priority</loc><priority>1.5</priority></url>
<url><loc>BASE/broken/ok/3</loc></url>
<url><loc>BASE/broken/unclosed</loc>
<url><loc>BASE/broken/never</loc></url>
` + urlsetClose

const laughsSitemap = `<?xml version="1.0"?>
<!DOCTYPE urlset [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<url><loc>BASE/laughs/&lol9;</loc></url>
</urlset>
`

const xxeSitemap = `<?xml version="1.0"?>
<!DOCTYPE urlset [
 <!ENTITY passwd SYSTEM "file:///etc/passwd">
 <!ENTITY remote SYSTEM "BASE/xxe-target">
 <!ENTITY % dtd SYSTEM "BASE/xxe-target.dtd">
 %dtd;
]>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<url><loc>BASE/xxe/&passwd;</loc></url>
<url><loc>BASE/xxe/&remote;</loc></url>
</urlset>
`
