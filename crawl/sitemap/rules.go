package sitemap

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"strings"
	"time"
)

// Why a listed URL may not be used; CheckURL and CheckChild wrap them.
var (
	// ErrOutsideFolder: same host, but not under the sitemap's folder.
	ErrOutsideFolder = errors.New("outside the sitemap's folder")
	// ErrOtherHost: another host (or scheme or port) whose robots.txt
	// does not name the sitemap.
	ErrOtherHost = errors.New("on another host whose robots.txt does not name the sitemap")
	// ErrBadURL: not an absolute http or https URL.
	ErrBadURL = errors.New("not an absolute http or https URL")
)

// Listed is where a URL was found: the sitemap that lists it, and the
// index that named that sitemap ("" when the sitemap was read directly,
// from robots.txt or a seed). Both are absolute URLs.
type Listed struct {
	Sitemap string
	Index   string
}

// CheckURL applies the sitemaps.org rule to a URL a sitemap lists, and
// returns nil when the crawl may use it. A sitemap covers URLs with its
// own scheme, host and port whose path is under the sitemap's folder
// (/catalog/sitemap.xml covers /catalog/...; /sitemap.xml covers the
// whole host). A URL of another host is allowed only when robotsSitemaps,
// the Sitemap lines of that host's robots.txt, names the sitemap or the
// index it came from (a cross-submit: the host vouches for the sitemap),
// and then at any path. Same-host URLs follow the folder rule even when
// robots.txt names the sitemap.
//
// The private-address rule is not applied here: a sitemap's URLs are the
// server's, like links, and the crawl refuses them on the dialled address.
func CheckURL(page string, in Listed, robotsSitemaps []string) error {
	pu, err := parseAbs(page)
	if err != nil {
		return fmt.Errorf("%s: %w", page, ErrBadURL)
	}
	su, err := parseAbs(in.Sitemap)
	if err != nil {
		return fmt.Errorf("sitemap %s: %w", in.Sitemap, ErrBadURL)
	}
	if sameOrigin(pu, su) {
		if !strings.HasPrefix(pu.EscapedPath(), folder(su)) && !(pu.EscapedPath() == "" && folder(su) == "/") {
			return fmt.Errorf("%s listed in %s: %w %s", page, in.Sitemap, ErrOutsideFolder, folder(su))
		}
		return nil
	}
	if names(robotsSitemaps, su) {
		return nil
	}
	if iu, err := parseAbs(in.Index); err == nil && names(robotsSitemaps, iu) {
		return nil
	}
	return fmt.Errorf("%s listed in %s: %w", page, in.Sitemap, ErrOtherHost)
}

// CheckChild applies the rule for a sitemap an index lists: it must be
// on the index's own scheme, host and port ("the same site"), at any
// path, unless robotsSitemaps (the Sitemap lines of the child's host's
// robots.txt) names the child or the index. Whether the child is itself
// an index is for the crawl to see once it is read: the protocol allows
// one level, so an index listed in an index is not read.
func CheckChild(child, index string, robotsSitemaps []string) error {
	cu, err := parseAbs(child)
	if err != nil {
		return fmt.Errorf("%s: %w", child, ErrBadURL)
	}
	iu, err := parseAbs(index)
	if err != nil {
		return fmt.Errorf("index %s: %w", index, ErrBadURL)
	}
	if sameOrigin(cu, iu) || names(robotsSitemaps, cu) || names(robotsSitemaps, iu) {
		return nil
	}
	return fmt.Errorf("sitemap %s listed in %s: %w", child, index, ErrOtherHost)
}

// Unchanged reports whether a URL need not be requested: its sitemap
// entry has a lastmod, the URL was fetched successfully before (a 2xx, or
// a 304 that confirmed the stored copy) at lastFetch, and the lastmod is
// not after that fetch. For a date without a time the whole day (month,
// year) must be over in every time zone: a page dated today is fetched
// again. Without a lastmod or a previous fetch the crawl asks as it does
// today (a conditional GET).
func Unchanged(e Entry, lastFetch time.Time) bool {
	if e.LastMod.IsZero() || lastFetch.IsZero() {
		return false
	}
	until := e.LastModUntil
	if until.IsZero() {
		until = e.LastMod
	}
	return !until.After(lastFetch)
}

// parseAbs parses an absolute http or https URL with a host.
func parseAbs(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, err
	}
	if u.Scheme = strings.ToLower(u.Scheme); (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return nil, ErrBadURL
	}
	return u, nil
}

// origin is scheme://host:port, lower case, with the default port spelled.
func origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return u.Scheme + "://" + strings.ToLower(u.Hostname()) + ":" + port
}

func sameOrigin(a, b *url.URL) bool { return origin(a) == origin(b) }

// folder is the sitemap's path up to its last slash: "/" for /sitemap.xml.
func folder(u *url.URL) string {
	p := u.EscapedPath()
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i+1]
	}
	return "/"
}

// names reports whether one of the Sitemap lines is the URL u: same
// origin, path and query.
func names(lines []string, u *url.URL) bool {
	for _, l := range lines {
		lu, err := parseAbs(strings.TrimSpace(l))
		if err == nil && sameOrigin(lu, u) && lu.EscapedPath() == u.EscapedPath() && lu.RawQuery == u.RawQuery {
			return true
		}
	}
	return false
}

// Named reports whether u names a sitemap, as polite reads a seed under
// --sitemaps: the last segment of its path contains "sitemap"
// (sitemap.xml, sitemap_index.xml.gz, news-sitemap.txt), in any case.
func Named(u *url.URL) bool {
	return strings.Contains(strings.ToLower(path.Base(u.Path)), "sitemap")
}
