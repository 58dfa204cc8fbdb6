package crawltest

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// LastModified is the Last-Modified date of every 200 the origin sends.
// Treat it as a constant: the handler reads it concurrently.
var LastModified = time.Date(2024, time.January, 1, 0, 0, 0, 0, time.UTC)

// Size limits of the generated bodies; a larger N answers 404.
const (
	MaxBig      = 1 << 34 // /big/N
	MaxGzipBomb = 1 << 30 // /gzipbomb/N (inflated size)
	MaxTrickle  = 1 << 16 // /trickle/N
	MaxSlow     = 10 * time.Minute
)

// streamKind names a body written piece by piece instead of from memory.
type streamKind int

const (
	fixed   streamKind = iota
	big                // n bytes of bigPattern
	trickle            // n bytes of 'x', one per trickleEvery
)

// reply is what a path answers, before limits and timing.
type reply struct {
	status int
	header http.Header
	body   []byte
	stream streamKind
	n      int64         // body length of a stream
	delay  time.Duration // wait before the header (/slow)
}

// Body returns the exact body the origin serves for a path (with query),
// for byte-for-byte checks. It is the body of an origin with the zero
// Config, so /page/N is a plain path here; use Origin.Body for an origin
// with Pages. For /gzipbomb/N it is the gzip bytes as sent; for a path the
// limits refuse (429, 503) it is the body served once they let it through.
func Body(path string) []byte { return Config{}.body(path) }

// Body returns the exact body o serves for a path (with query), as the
// package's Body does, with o's pages and robots.txt.
func (o *Origin) Body(path string) []byte { return o.cfg.body(path) }

func (c Config) body(path string) []byte {
	u, err := url.ParseRequestURI(path)
	if err != nil {
		return genericBody(path)
	}
	rep := c.route(u)
	switch rep.stream {
	case big:
		return bigBytes(rep.n)
	case trickle:
		return bytes.Repeat([]byte{'x'}, int(rep.n))
	}
	return rep.body
}

// route decides the answer to a request URL from its path alone.
func (c Config) route(u *url.URL) reply {
	p := u.Path
	head, arg, _ := strings.Cut(strings.TrimPrefix(p, "/"), "/")
	n, numErr := strconv.ParseInt(arg, 10, 64)
	num := numErr == nil && n >= 0
	switch {
	case p == "/robots.txt":
		return c.robotsReply()
	case p == "/robots2.txt":
		if c.Robots == "" {
			return textReply(http.StatusNotFound, "not found\n")
		}
		return textReply(http.StatusOK, c.Robots)
	case head == "page" && c.Pages > 0:
		if !num || n >= int64(c.Pages) {
			return textReply(http.StatusNotFound, "not found\n")
		}
		return c.pageReply(int(n))
	case head == "req" && c.Pages > 0:
		return requisiteReply(arg)
	case head == "status" && num && n >= 200 && n <= 599:
		return statusReply(int(n))
	case head == "redirect" && num:
		return redirectReply(n, u.Query().Get("to"))
	case p == "/loop/a":
		return location(http.StatusFound, "/loop/b")
	case p == "/loop/b":
		return location(http.StatusFound, "/loop/a")
	case head == "big" && num && n <= MaxBig:
		r := textReply(http.StatusOK, "")
		r.header.Set("Content-Type", "application/octet-stream")
		r.stream, r.n = big, n
		return r
	case head == "gzipbomb" && num && n <= MaxGzipBomb:
		r := textReply(http.StatusOK, "")
		r.body = gzipZeros(n)
		r.header.Set("Content-Encoding", "gzip")
		return r
	case head == "trickle" && num && n <= MaxTrickle:
		r := textReply(http.StatusOK, "")
		r.stream, r.n = trickle, n
		return r
	case head == "slow" && num && n <= MaxSlow.Milliseconds():
		r := textReply(http.StatusOK, string(genericBody(u.RequestURI())))
		r.delay = time.Duration(n) * time.Millisecond
		return r
	case p == "/weird-headers":
		return weirdReply()
	case p == "/softblock":
		return textReply(http.StatusOK, "Please slow down. You are sending requests too quickly; try again later.\n")
	}
	return textReply(http.StatusOK, string(genericBody(u.RequestURI())))
}

func textReply(status int, body string) reply {
	h := http.Header{}
	h.Set("Content-Type", "text/plain; charset=utf-8")
	return reply{status: status, header: h, body: []byte(body)}
}

func (c Config) robotsReply() reply {
	status := c.RobotsStatus
	if status == 0 {
		status = http.StatusOK
		if c.Robots == "" {
			status = http.StatusNotFound
		}
	}
	switch {
	case status >= 300 && status < 400:
		return location(status, "/robots2.txt")
	case status >= 200 && status < 300:
		return textReply(status, c.Robots)
	}
	r := textReply(status, fmt.Sprintf("robots.txt: %d %s\n", status, http.StatusText(status)))
	if status == http.StatusServiceUnavailable || status == http.StatusTooManyRequests {
		r.header.Set("Retry-After", "1")
	}
	return r
}

func (c Config) pageReply(n int) reply {
	var b strings.Builder
	fmt.Fprintf(&b, "<!doctype html>\n<html><head><title>Page %d</title></head>\n<body>\n<h1>Page %d</h1>\n<ul>\n", n, n)
	for i := 1; i <= c.Links; i++ {
		m := (n + i) % c.Pages
		fmt.Fprintf(&b, "<li><a href=\"/page/%d\">page %d</a></li>\n", m, m)
	}
	b.WriteString("</ul>\n")
	for i := range c.Requisites {
		switch ext := requisiteExt[i%3]; ext {
		case "png":
			fmt.Fprintf(&b, "<img src=\"/req/%d/%d.png\" alt=\"image %d\">\n", n, i, i)
		case "css":
			fmt.Fprintf(&b, "<link rel=\"stylesheet\" href=\"/req/%d/%d.css\">\n", n, i)
		default:
			fmt.Fprintf(&b, "<script src=\"/req/%d/%d.js\"></script>\n", n, i)
		}
	}
	b.WriteString("</body></html>\n")
	r := textReply(http.StatusOK, b.String())
	r.header.Set("Content-Type", "text/html; charset=utf-8")
	return r
}

// requisiteExt are the kinds of requisite a page needs, in turn.
var requisiteExt = [3]string{"png", "css", "js"}

// onePixel is a 1x1 PNG.
var onePixel = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89" +
	"\x00\x00\x00\rIDATx\x9cc\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff\x89\x99=\x1d\x00\x00\x00\x00IEND\xaeB`\x82")

// requisiteReply answers /req/N/I.EXT: a small image, stylesheet or
// script.
func requisiteReply(arg string) reply {
	r := textReply(http.StatusOK, "")
	switch {
	case strings.HasSuffix(arg, ".png"):
		r.body = onePixel
		r.header.Set("Content-Type", "image/png")
	case strings.HasSuffix(arg, ".css"):
		r.body = []byte("body { margin: 1em }\n")
		r.header.Set("Content-Type", "text/css")
	case strings.HasSuffix(arg, ".js"):
		r.body = []byte("void 0;\n")
		r.header.Set("Content-Type", "text/javascript")
	default:
		return textReply(http.StatusNotFound, "not found\n")
	}
	return r
}

func statusReply(code int) reply {
	if code == http.StatusNoContent || code == http.StatusNotModified {
		return reply{status: code, header: http.Header{}}
	}
	r := textReply(code, fmt.Sprintf("status %d %s\n", code, http.StatusText(code)))
	if code == http.StatusServiceUnavailable || code == http.StatusTooManyRequests {
		r.header.Set("Retry-After", "1")
	}
	return r
}

// redirectReply steps down a redirect chain; to must be an absolute path
// (not "//host"), else the chain ends at "/".
func redirectReply(n int64, to string) reply {
	if !strings.HasPrefix(to, "/") || strings.HasPrefix(to, "//") {
		to = "/"
	}
	if n <= 0 {
		return location(http.StatusFound, to)
	}
	return location(http.StatusFound, fmt.Sprintf("/redirect/%d?to=%s", n-1, url.QueryEscape(to)))
}

func location(status int, to string) reply {
	r := textReply(status, "redirect to "+to+"\n")
	r.header.Set("Location", to)
	return r
}

func weirdReply() reply {
	r := textReply(http.StatusOK, "weird headers\n")
	h := r.header
	h["Retry-After"] = []string{"-10", "99999999999999999999", "soon, maybe"}
	h["Ratelimit-Limit"] = []string{"ten", "-1"}
	h["Ratelimit-Remaining"] = []string{"-5"}
	h["Ratelimit-Reset"] = []string{"18446744073709551616"}
	h["X-Ratelimit-Limit"] = []string{"NaN"}
	h["X-Ratelimit-Remaining"] = []string{"99999999999999999999999"}
	h["X-Ratelimit-Reset"] = []string{"-1700000000"}
	h["Ratelimit"] = []string{`"x";r=;;t=-1`}
	h["Ratelimit-Policy"] = []string{`garbage=;q=-5;w=1e999`}
	return r
}

// genericBody is the body of any path without a meaning of its own.
func genericBody(uri string) []byte {
	sum := sha256.Sum256([]byte(uri))
	h := hex.EncodeToString(sum[:])
	return []byte("polite test origin\npath: " + uri + "\nhash: " + h + "\n" + h[:len(h)/2] + "\n")
}

// bigPattern repeats to make /big/N.
const bigPattern = "polite test origin big body 0123456789 abcdefghijklmnopqrstuvw\n"

func bigBytes(n int64) []byte {
	b := bytes.Repeat([]byte(bigPattern), int(n)/len(bigPattern)+1)
	return b[:n]
}

var gzipCache = struct {
	sync.Mutex
	m map[int64][]byte
}{m: map[int64][]byte{}}

// gzipZeros returns a gzip stream of n zero bytes, cached: about 1.3 KiB per
// MiB inflated.
func gzipZeros(n int64) []byte {
	gzipCache.Lock()
	defer gzipCache.Unlock()
	if b, ok := gzipCache.m[n]; ok {
		return b
	}
	var buf bytes.Buffer
	z, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	zeros := make([]byte, 64<<10)
	for left := n; left > 0; left -= int64(len(zeros)) {
		_, _ = z.Write(zeros[:min(left, int64(len(zeros)))])
	}
	_ = z.Close()
	if len(gzipCache.m) >= 16 {
		clear(gzipCache.m)
	}
	gzipCache.m[n] = buf.Bytes()
	return buf.Bytes()
}
