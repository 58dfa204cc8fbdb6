// Package reporttest checks a report.html page as the report's tests, the
// crawl's and the browser's read it: the order of its hosts and what the
// page must not hold.
package reporttest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// HostOrder returns the hosts in the order a report.html page shows them
// in the part that starts at the first occurrence of from, up to the next
// section: table rows (data-host) and timelines (aria-label). The report's
// tests use it on the page as written and as a browser renders it.
func HostOrder(page, from string) []string {
	i := strings.Index(page, from)
	if i < 0 {
		return nil
	}
	part := page[i:]
	if end := strings.Index(part[1:], "<h2>"); end >= 0 {
		part = part[:end+1]
	}
	var hosts []string
	for _, attr := range []string{`data-host="`, `aria-label="timeline of `} {
		for rest := part; ; {
			j := strings.Index(rest, attr)
			if j < 0 {
				break
			}
			rest = rest[j+len(attr):]
			hosts = append(hosts, rest[:strings.IndexByte(rest, '"')])
		}
	}
	return hosts
}

// CheckReportHTML fails t unless page is a well-formed HTML document that
// loads nothing from anywhere (no scripts, stylesheets, images, fonts or
// frames; links only to anchors in the page) and holds one timeline SVG
// per host.
func CheckReportHTML(t *testing.T, page []byte, hosts []string) {
	t.Helper()
	for _, p := range reportHTMLProblems(page, hosts) {
		t.Errorf("report.html: %s", p)
	}
}

// reportHTMLProblems lists what CheckReportHTML finds wrong with page.
func reportHTMLProblems(page []byte, hosts []string) []string {
	void := map[string]bool{"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true,
		"img": true, "input": true, "link": true, "meta": true, "source": true, "track": true, "wbr": true}
	z := html.NewTokenizer(bytes.NewReader(page))
	var (
		stack    []string
		timeline []string
		doctype  bool
		problems []string
	)
	bad := func(format string, a ...any) { problems = append(problems, fmt.Sprintf(format, a...)) }
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			if err := z.Err(); !errors.Is(err, io.EOF) {
				bad("tokenize: %v", err)
			}
			break
		}
		tok := z.Token()
		switch tt {
		case html.DoctypeToken:
			doctype = tok.Data == "html" && len(stack) == 0
		case html.StartTagToken, html.SelfClosingTagToken:
			name := strings.ToLower(tok.Data)
			class, label := checkStartTag(name, tok.Attr, bad)
			if name == "svg" && strings.Contains(class, "timeline") {
				timeline = append(timeline, label)
			}
			if tt == html.StartTagToken && !void[name] {
				stack = append(stack, name)
			}
		case html.EndTagToken:
			name := strings.ToLower(tok.Data)
			if len(stack) == 0 || stack[len(stack)-1] != name {
				bad("</%s> closes %v", name, stack)
				continue
			}
			stack = stack[:len(stack)-1]
		case html.TextToken:
			if len(stack) > 0 && stack[len(stack)-1] == "style" {
				if s := strings.ToLower(tok.Data); strings.Contains(s, "url(") || strings.Contains(s, "@import") || strings.Contains(s, "@font-face") {
					bad("the style sheet loads something")
				}
			}
		}
	}
	if !doctype {
		bad("no <!doctype html> first")
	}
	if len(stack) > 0 {
		bad("elements left open: %v", stack)
	}
	if len(timeline) != len(hosts) {
		bad("%d timelines, want one per host (%d)", len(timeline), len(hosts))
	} else {
		for _, h := range hosts {
			if !slices.Contains(timeline, "timeline of "+h) {
				bad("timelines %q, want the one of %s", timeline, h)
			}
		}
	}
	return problems
}

// checkStartTag tells bad of a start tag that loads or runs something, or
// of an attribute that refers to a resource, runs script or names an
// address; it returns the tag's class and aria-label.
func checkStartTag(name string, attrs []html.Attribute, bad func(format string, a ...any)) (class, label string) {
	loads := map[string]bool{"script": true, "link": true, "img": true, "iframe": true, "object": true, "embed": true,
		"audio": true, "video": true, "source": true, "base": true, "use": true, "image": true, "foreignobject": true}
	if loads[name] {
		bad("<%s> loads or runs something", name)
	}
	for _, a := range attrs {
		key, val := strings.ToLower(a.Key), strings.ToLower(a.Val)
		switch {
		case key == "href" && strings.HasPrefix(val, "#"):
		case key == "src" || key == "srcset" || key == "href" || strings.HasSuffix(key, ":href") ||
			key == "action" || key == "poster" || key == "data" || key == "background":
			bad("<%s %s=%q> refers to a resource", name, key, a.Val)
		case strings.HasPrefix(key, "on"):
			bad("<%s %s> runs script", name, key)
		case strings.Contains(val, "http://") || strings.Contains(val, "https://") || strings.Contains(val, "url("):
			bad("<%s %s=%q> names an address", name, key, a.Val)
		}
		if key == "class" {
			class = a.Val
		}
		if key == "aria-label" {
			label = a.Val
		}
	}
	return class, label
}
