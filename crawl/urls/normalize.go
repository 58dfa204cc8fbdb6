// Package urls decides what a URL is to polite: its normal form, the links
// a page offers, whether a link is in scope, and how credentials in it are
// hidden.
package urls

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// Normalize returns the canonical form of an absolute http(s) URL, the form
// the frontier de-duplicates on:
//
//   - scheme and host lower-cased, an internationalised host in punycode;
//   - the default port (80, 443) dropped, other ports kept;
//   - dot segments removed, an empty path made "/";
//   - percent-encoding: hex upper-cased, unreserved characters decoded,
//     characters that may not appear raw (spaces, non-ASCII) encoded;
//   - the fragment dropped.
//
// The query is kept in its order; trailing slashes, "index.html" and
// session parameters are not touched: they can name different resources.
func Normalize(raw string) (string, error) {
	_, s, err := Normalized(raw)
	return s, err
}

// MaxBytes bounds a URL, before and after normalisation: a longer one
// names no real resource and only bloats the frontier.
const MaxBytes = 8 << 10

func Parse(raw string) (*url.URL, error) {
	u, _, err := Normalized(raw)
	return u, err
}

// Normalized is raw normalised, parsed and as a string.
func Normalized(raw string) (*url.URL, string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, "", errors.New("empty URL")
	}
	// What an error shows of raw: its credentials never leave the input.
	shown := Clip(Redact(raw), 80)
	if len(raw) > MaxBytes {
		return nil, "", fmt.Errorf("URL %q is longer than %d bytes", shown, MaxBytes)
	}
	for _, r := range raw {
		if r < 0x20 || r == 0x7f {
			return nil, "", fmt.Errorf("URL %q contains a control character", shown)
		}
	}
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, "", fmt.Errorf("unparsable URL %q: %v", shown, err)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	switch u.Scheme {
	case "http", "https":
	case "":
		return nil, "", fmt.Errorf("URL %q has no scheme (want http:// or https://)", shown)
	default:
		return nil, "", fmt.Errorf("URL %q: scheme %q is not http or https", shown, u.Scheme)
	}
	if u.Opaque != "" {
		return nil, "", fmt.Errorf("URL %q has no host", shown)
	}
	if u.User != nil {
		return nil, "", fmt.Errorf("URL %q carries user credentials, which polite does not send", shown)
	}
	host, err := normalizeHost(u)
	if err != nil {
		return nil, "", fmt.Errorf("URL %q: %v", shown, err)
	}
	u.Host = host
	u.Fragment, u.RawFragment = "", ""
	p := removeDotSegments(normalizeEscapes(u.EscapedPath(), pathSafe))
	if p == "" {
		p = "/"
	}
	if err := setEscapedPath(u, p); err != nil {
		return nil, "", fmt.Errorf("URL %q: %v", shown, err)
	}
	u.RawQuery = normalizeEscapes(u.RawQuery, querySafe)
	u.ForceQuery = false
	str := u.String()
	if len(str) > MaxBytes {
		return nil, "", fmt.Errorf("URL %q is longer than %d bytes once normalised", shown, MaxBytes)
	}
	return u, str, nil
}

func normalizeHost(u *url.URL) (string, error) {
	h := u.Hostname()
	port := u.Port()
	if h == "" {
		return "", errors.New("no host")
	}
	if strings.Contains(u.Host, ":") && port == "" && !strings.HasSuffix(u.Host, "]") {
		return "", errors.New("empty port")
	}
	if ip := net.ParseIP(h); ip != nil {
		if ip.To4() == nil {
			h = "[" + ip.String() + "]"
		} else {
			h = ip.String()
		}
	} else {
		if strings.ContainsAny(h, "%[]") {
			return "", fmt.Errorf("bad host %q", h)
		}
		if !utf8.ValidString(h) {
			return "", fmt.Errorf("bad host name %q: not UTF-8", h)
		}
		if strings.TrimRight(h, ".") == "" {
			return "", errors.New("no host")
		}
		a, err := idna.Lookup.ToASCII(strings.TrimRight(h, "."))
		if err == nil {
			// What comes out must go in again unchanged (a host of
			// replacement characters encodes but does not decode).
			var again string
			if again, err = idna.Lookup.ToASCII(a); err == nil && (again != a || a == "" || strings.HasSuffix(a, ".")) {
				err = fmt.Errorf("punycode %q is not stable", a)
			}
		}
		if err != nil {
			return "", fmt.Errorf("bad host name %q: %v", h, err)
		}
		h = strings.ToLower(a)
		if EndsInNumber(h) {
			// A resolver reads 2130706433, 127.1, 0x7f000001 and
			// 0177.0.0.1 as 127.0.0.1: so does polite, or refuses.
			ip, err := ParseLooseIPv4(h)
			if err != nil {
				return "", fmt.Errorf("bad host %q: it ends in a number but is no IPv4 address", h)
			}
			h = ip.String()
		}
	}
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return "", fmt.Errorf("port %q out of range", port)
		}
		if !(u.Scheme == "http" && n == 80) && !(u.Scheme == "https" && n == 443) {
			h += ":" + strconv.Itoa(n)
		}
	}
	return h, nil
}

// setEscapedPath sets u's path from its escaped form.
func setEscapedPath(u *url.URL, escaped string) error {
	p, err := url.PathUnescape(escaped)
	if err != nil {
		return err
	}
	u.Path, u.RawPath = p, escaped
	if u.EscapedPath() != escaped {
		u.RawPath = ""
		if u.EscapedPath() != escaped {
			u.RawPath = escaped
		}
	}
	return nil
}

func Unreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

// pathSafe and querySafe report which bytes may stand raw in a path or query.
func pathSafe(c byte) bool {
	return Unreserved(c) || strings.IndexByte("!$&'()*+,;=:@/", c) >= 0
}

func querySafe(c byte) bool { return pathSafe(c) || c == '?' }

const upperHex = "0123456789ABCDEF"

// normalizeEscapes upper-cases percent-escapes, decodes those of unreserved
// characters, encodes bytes that may not stand raw, and turns a stray "%"
// into "%25".
func normalizeEscapes(s string, safe func(byte) bool) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			v := unhex(s[i+1])<<4 | unhex(s[i+2])
			if Unreserved(v) {
				b.WriteByte(v)
			} else {
				b.WriteByte('%')
				b.WriteByte(upperHex[v>>4])
				b.WriteByte(upperHex[v&15])
			}
			i += 2
		case c != '%' && safe(c):
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(upperHex[c>>4])
			b.WriteByte(upperHex[c&15])
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

// removeDotSegments applies RFC 3986 5.2.4 to an escaped path.
func removeDotSegments(p string) string {
	if !strings.Contains(p, ".") {
		return p
	}
	segs := strings.Split(p, "/")
	out := make([]string, 0, len(segs))
	for i, s := range segs {
		last := i == len(segs)-1
		switch s {
		case ".":
			if last {
				out = append(out, "")
			}
		case "..":
			if len(out) > 1 {
				out = out[:len(out)-1]
			}
			if last {
				out = append(out, "")
			}
		default:
			out = append(out, s)
		}
	}
	r := strings.Join(out, "/")
	if strings.HasPrefix(p, "/") && !strings.HasPrefix(r, "/") {
		r = "/" + r
	}
	return r
}

// Host is the pacing key of a normalised URL: lower-cased host plus a
// non-default port.
func Host(u *url.URL) string { return u.Host }

// Resolve resolves a link or Location against base and normalises it.
func Resolve(base *url.URL, ref string) (*url.URL, error) {
	ref = strings.TrimSpace(ref)
	r, err := url.Parse(ref)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the link itself is shown once, redacted
		}
		return nil, fmt.Errorf("unparsable link %q: %v", Clip(Redact(ref), 80), err)
	}
	return Parse(base.ResolveReference(r).String())
}

// Must parses a URL the frontier already holds in normalised form.
func Must(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		return &url.URL{}
	}
	return u
}

// HostKey turns a host, host:port or URL, as a user types it, into the key
// polite paces and stores a host under: the normalised host with a
// non-default port ("Example.ORG:80" -> "example.org").
func HostKey(arg string) (string, error) {
	raw := strings.TrimSpace(arg)
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw + "/"
	}
	u, err := Parse(raw)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("%q is not a host, host:port or URL", arg)
	}
	return Host(u), nil
}

// Clip cuts s to at most n bytes on a rune boundary, marking a cut with "…".
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
