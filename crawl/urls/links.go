package urls

import (
	"bytes"
	"errors"
	"mime"
	"net/url"
	"strings"

	"golang.org/x/net/html"
)

// MaxLinks bounds the links taken from one page.
const MaxLinks = 5000

// Links returns the normalised http(s) links of an HTML page that a
// crawler may follow: a href, area href and link href with rel next, prev,
// alternate or canonical; not scripts, images or stylesheets. A <base href>
// changes the base. rel=nofollow links are skipped, and nothing is returned
// when the page says nofollow in a robots meta tag or X-Robots-Tag header.
func Links(body []byte, base *url.URL, xRobotsTag []string) []*url.URL {
	for _, v := range xRobotsTag {
		if hasToken(v, "nofollow") || hasToken(v, "none") {
			return nil
		}
	}
	z := html.NewTokenizer(bytes.NewReader(body))
	var (
		out     []*url.URL
		seen    = map[string]bool{}
		gotBase bool
	)
	for len(out) < MaxLinks {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		name, hasAttr := z.TagName()
		if !hasAttr {
			continue
		}
		attrs := map[string]string{}
		for {
			k, v, more := z.TagAttr()
			attrs[string(k)] = string(v)
			if !more {
				break
			}
		}
		var href string
		switch string(name) {
		case "base":
			// Only the first <base href> counts (HTML's "frozen base URL").
			if h, ok := attrs["href"]; ok && !gotBase {
				gotBase = true
				if b, err := base.Parse(strings.TrimSpace(h)); err == nil && (b.Scheme == "http" || b.Scheme == "https") {
					base = b
				}
			}
			continue
		case "meta":
			n := strings.ToLower(attrs["name"])
			if (n == "robots" || n == "polite") && (hasToken(attrs["content"], "nofollow") || hasToken(attrs["content"], "none")) {
				return nil
			}
			continue
		case "a", "area":
			if hasToken(attrs["rel"], "nofollow") {
				continue
			}
			href = attrs["href"]
		case "link":
			rel := strings.ToLower(attrs["rel"])
			if !(hasToken(rel, "next") || hasToken(rel, "prev") || hasToken(rel, "alternate") || hasToken(rel, "canonical")) || hasToken(rel, "nofollow") {
				continue
			}
			href = attrs["href"]
		default:
			continue
		}
		if href == "" || strings.HasPrefix(href, "#") {
			continue
		}
		u, err := Resolve(base, href)
		if err != nil || seen[u.String()] {
			continue
		}
		seen[u.String()] = true
		out = append(out, u)
	}
	return out
}

// hasToken reports whether a comma or space separated list holds tok.
func hasToken(list, tok string) bool {
	for _, f := range strings.FieldsFunc(strings.ToLower(list), func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		if f == tok {
			return true
		}
	}
	return false
}

// InScope reports whether a link found on from may be followed.
func InScope(scope Scope, from, to *url.URL) bool {
	switch scope {
	case ScopeAny:
		return true
	case ScopeDomain:
		a, ok1 := Domain(from.Hostname())
		b, ok2 := Domain(to.Hostname())
		if !ok1 || !ok2 {
			return from.Hostname() == to.Hostname()
		}
		return a == b
	default:
		return from.Host == to.Host
	}
}

// IsHTML reports whether a Content-Type is a page whose links Links reads:
// HTML or XHTML. A garbled parameter (charset=\xff) leaves the media type
// good.
func IsHTML(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return (err == nil || errors.Is(err, mime.ErrInvalidMediaParameter)) &&
		(mt == "text/html" || mt == "application/xhtml+xml")
}
