package urls

import (
	"net"

	"golang.org/x/net/publicsuffix"
)

// Scope says which discovered links a crawl follows.
type Scope string

// The scopes of --scope.
const (
	ScopeHost   Scope = "host"   // the same host (and port) as the page
	ScopeDomain Scope = "domain" // the same registrable domain (public suffix list)
	ScopeAny    Scope = "any"
)

// Domain returns the registrable domain of a host name (no port), by the
// public suffix list: "docs.example.co.uk" -> "example.co.uk". An address,
// or a name that has none (a public suffix itself, "localhost"), has no
// domain: false.
func Domain(hostname string) (string, bool) {
	if net.ParseIP(hostname) != nil {
		return "", false // an address has no domain
	}
	d, err := publicsuffix.EffectiveTLDPlusOne(hostname)
	return d, err == nil
}
