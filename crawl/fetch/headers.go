package fetch

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/net/http/httpguts"
)

// Redacted is what polite writes in place of a secret header's value.
const Redacted = "[redacted]"

// secretNames are the headers that are secret whatever their origin:
// they carry credentials.
var secretNames = map[string]bool{"Authorization": true, "Cookie": true, "Proxy-Authorization": true}

// ownNames are the headers polite sets itself (or that make no sense on a
// GET): an operator's header may not replace them.
var ownNames = map[string]string{
	"Host":              "the URL gives it",
	"User-Agent":        "use --user-agent",
	"Accept-Encoding":   "polite decodes the bodies itself",
	"If-None-Match":     "polite sends it from the last fetch",
	"If-Modified-Since": "polite sends it from the last fetch",
	"Content-Length":    "a GET has no body",
	"Transfer-Encoding": "a GET has no body",
	"Connection":        "the transport manages connections",
	"Te":                "the transport manages it",
	"Upgrade":           "the transport manages it",
}

// Header is one request header the operator adds.
type Header struct {
	Name, Value string
	// Host is the only host it is sent to ("host" or "host:port"); ""
	// sends it to the seeds' hosts (a secret one to the seeds' origins:
	// scheme, host and port).
	Host string
	// Secret headers are written as Redacted everywhere, and only ever
	// sent to their host: Authorization, Cookie, Proxy-Authorization,
	// and every header of a file.
	Secret bool
}

// ParseHeader reads a "Name: value" header; secret marks it secret
// (a header of a file), as its name may (Authorization...).
func ParseHeader(line string, secret bool) (Header, error) {
	name, value, ok := strings.Cut(line, ":")
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	switch {
	case !ok:
		return Header{}, fmt.Errorf("header %q: want \"Name: value\"", clipSecret(line, secret))
	case !httpguts.ValidHeaderFieldName(name):
		return Header{}, fmt.Errorf("header %q: not a valid field name", name)
	case !httpguts.ValidHeaderFieldValue(value):
		return Header{}, fmt.Errorf("header %s: the value has a control character", name)
	}
	name = http.CanonicalHeaderKey(name)
	if why, own := ownNames[name]; own {
		return Header{}, fmt.Errorf("header %s: polite sets it (%s)", name, why)
	}
	return Header{Name: name, Value: value, Secret: secret || secretNames[name]}, nil
}

// clipSecret is what an error may show of a line: nothing of a secret's.
func clipSecret(line string, secret bool) string {
	if secret {
		return Redacted
	}
	if len(line) > 80 {
		return line[:80] + "..."
	}
	return line
}

// ParseHostHeader reads --header-host's HOST='Name: value'.
func ParseHostHeader(arg string) (Header, error) {
	host, line, ok := strings.Cut(arg, "=")
	host = strings.ToLower(strings.TrimSpace(host))
	if !ok || host == "" || strings.ContainsAny(host, "/@ ") {
		return Header{}, fmt.Errorf("--header-host %q: want HOST='Name: value' (HOST a host name, or host:port)", clipSecret(arg, true))
	}
	h, err := ParseHeader(line, false)
	if err != nil {
		return Header{}, fmt.Errorf("--header-host %s: %w", host, err)
	}
	h.Host = host
	return h, nil
}

// Headers are the operator's request headers (--header, --header-host,
// --header-file). The zero Headers adds none. It is read only once a
// crawl starts, and so safe for concurrent use.
type Headers []Header

// Secrets lists the names of the secret headers, for the warcinfo
// record's note.
func (hs Headers) Secrets() []string {
	var names []string
	for _, h := range hs {
		if h.Secret && !contains(names, h.Name) {
			names = append(names, h.Name)
		}
	}
	return names
}

func contains(names []string, n string) bool {
	for _, m := range names {
		if m == n {
			return true
		}
	}
	return false
}

// apply adds to hdr the headers that go to u, seeds being the seeds'
// origins; it reports whether a secret one went.
func (hs Headers) apply(hdr http.Header, u *url.URL, seeds Origins) (secret bool) {
	for _, h := range hs {
		if !h.goesTo(u, seeds) {
			continue
		}
		hdr.Add(h.Name, h.Value)
		secret = secret || h.Secret
	}
	return secret
}

// goesTo reports whether h is sent with a request for u: to its own host
// (and port, when it names one); without a host, a secret header to the
// seeds' origins (a redirect to another scheme or port does not carry
// it, as curl does since CVE-2022-27776), another to the seeds' hosts.
func (h Header) goesTo(u *url.URL, seeds Origins) bool {
	o := OriginOf(u)
	if h.Host != "" {
		host, port, err := net.SplitHostPort(h.Host)
		if err != nil {
			return o.Host == strings.Trim(h.Host, "[]")
		}
		return o.Host == host && o.Port == port
	}
	if seeds[o] {
		return true
	}
	if h.Secret {
		return false
	}
	for _, alt := range []Origin{{"http", o.Host, "80"}, {"https", o.Host, "443"}, {"http", o.Host, o.Port}, {"https", o.Host, o.Port}} {
		if seeds[alt] {
			return true
		}
	}
	return false
}

// redactRequest writes the secret headers of hdr as Redacted.
func (hs Headers) redactRequest(hdr http.Header) http.Header {
	out := hdr.Clone()
	for _, h := range hs {
		if h.Secret && out[h.Name] != nil {
			out[h.Name] = []string{Redacted}
		}
	}
	for n := range secretNames {
		if out[n] != nil {
			out[n] = []string{Redacted}
		}
	}
	return out
}

// redactAnswer writes the cookies an answer sets as Redacted: an answer
// to a request with credentials may set a session.
func redactAnswer(hdr http.Header) {
	for _, n := range []string{"Set-Cookie", "Set-Cookie2"} {
		if vs := hdr[n]; vs != nil {
			for i := range vs {
				vs[i] = Redacted
			}
		}
	}
}

// Challenged reports whether the answer concerns credentials: the
// request carried a secret header, or the server asked for credentials
// (WWW-Authenticate).
func (r Response) Challenged() bool {
	return r.Credentials || r.Header.Get("WWW-Authenticate") != ""
}
