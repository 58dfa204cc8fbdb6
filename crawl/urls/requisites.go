package urls

import (
	"bytes"
	"mime"
	"net/url"
	"regexp"
	"strings"

	"golang.org/x/net/html"
)

// Requisites says which page requisites a crawl fetches: the images,
// stylesheets, scripts and media a page needs to be shown.
type Requisites string

// The modes of --requisites.
const (
	RequisitesOff      Requisites = "off"
	RequisitesSameHost Requisites = "same-host" // only those on the page's host (and port)
	RequisitesAnyHost  Requisites = "any-host"
)

// On reports whether the mode fetches any requisite at all.
func (m Requisites) On() bool { return m == RequisitesAnyHost || m == RequisitesSameHost }

// Allows reports whether a requisite at to, needed by from, is fetched.
func (m Requisites) Allows(from, to *url.URL) bool {
	switch m {
	case RequisitesAnyHost:
		return true
	case RequisitesSameHost:
		return from.Host == to.Host
	}
	return false
}

// PageRequisites returns the normalised http(s) URLs an HTML page needs to
// be shown: img src and srcset, picture source srcset, link rel stylesheet,
// icon, preload and modulepreload, script src, video and audio src and
// poster (and their source src), embed src, object data, and the url()s
// and @imports of inline <style> blocks and style attributes. A <base
// href> changes the base. At most MaxLinks are returned.
func PageRequisites(body []byte, base *url.URL) []*url.URL {
	z := html.NewTokenizer(bytes.NewReader(body))
	c := collector{seen: map[string]bool{}}
	gotBase, inStyle := false, false
	for len(c.out) < MaxLinks {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return c.out
		case html.TextToken:
			if inStyle {
				c.css(z.Text(), base)
			}
			continue
		case html.EndTagToken:
			inStyle = false
			continue
		case html.StartTagToken, html.SelfClosingTagToken:
		default:
			continue
		}
		name, hasAttr := z.TagName()
		inStyle = string(name) == "style" && tt == html.StartTagToken
		attrs := map[string]string{}
		for more := hasAttr; more; {
			var k, v []byte
			k, v, more = z.TagAttr()
			attrs[string(k)] = string(v)
		}
		if s, ok := attrs["style"]; ok {
			c.css([]byte(s), base)
		}
		if string(name) == "base" {
			if h, ok := attrs["href"]; ok && !gotBase {
				gotBase = true
				if b, err := base.Parse(strings.TrimSpace(h)); err == nil && (b.Scheme == "http" || b.Scheme == "https") {
					base = b
				}
			}
			continue
		}
		for _, ref := range tagRequisites(string(name), attrs) {
			c.add(base, ref)
		}
	}
	return c.out
}

// tagRequisites returns the references of one start tag that are
// requisites of its page.
func tagRequisites(name string, a map[string]string) []string {
	switch name {
	case "img":
		return append([]string{a["src"]}, srcset(a["srcset"])...)
	case "source":
		return append([]string{a["src"]}, srcset(a["srcset"])...)
	case "link":
		rel := strings.ToLower(a["rel"])
		for _, r := range []string{"stylesheet", "icon", "preload", "modulepreload", "apple-touch-icon"} {
			if hasToken(rel, r) {
				return append([]string{a["href"]}, srcset(a["imagesrcset"])...)
			}
		}
	case "script", "embed", "track", "input":
		return []string{a["src"]}
	case "video", "audio":
		return []string{a["src"], a["poster"]}
	case "object":
		return []string{a["data"]}
	}
	return nil
}

// srcset returns the URLs of a srcset attribute: "a.png 1x, b.png 2x".
func srcset(s string) []string {
	var out []string
	for _, cand := range strings.Split(s, ",") {
		if f := strings.Fields(cand); len(f) > 0 {
			out = append(out, f[0])
		}
	}
	return out
}

// cssRef matches a url(…) or an @import "…" of a stylesheet.
var cssRef = regexp.MustCompile(`(?i)url\(\s*(?:"([^"]*)"|'([^']*)'|([^)'"\s]*))\s*\)|@import\s+(?:"([^"]*)"|'([^']*)')`)

// CSSRequisites returns the normalised http(s) URLs a stylesheet needs:
// its url()s and @imports, at most MaxLinks.
func CSSRequisites(css []byte, base *url.URL) []*url.URL {
	c := collector{seen: map[string]bool{}}
	c.css(css, base)
	return c.out
}

// IsCSS reports whether a Content-Type is a stylesheet's.
func IsCSS(contentType string) bool {
	mt, _, _ := mime.ParseMediaType(contentType)
	return mt == "text/css"
}

// collector gathers distinct URLs, at most MaxLinks.
type collector struct {
	out  []*url.URL
	seen map[string]bool
}

func (c *collector) css(css []byte, base *url.URL) {
	for _, m := range cssRef.FindAllSubmatch(css, -1) {
		for _, g := range m[1:] {
			if len(g) > 0 {
				c.add(base, string(g))
			}
		}
	}
}

func (c *collector) add(base *url.URL, ref string) {
	ref = strings.TrimSpace(ref)
	if ref == "" || strings.HasPrefix(ref, "#") || strings.HasPrefix(strings.ToLower(ref), "data:") || len(c.out) >= MaxLinks {
		return
	}
	u, err := Resolve(base, ref)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || c.seen[u.String()] {
		return
	}
	c.seen[u.String()] = true
	c.out = append(c.out, u)
}
