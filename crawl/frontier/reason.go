package frontier

import (
	"strconv"
	"strings"
)

// Reason is why a frontier entry or a fetch did not end done: the
// classified failure of its last request (fetch's Classify, or an HTTP
// status), why it was excluded or refused, or why it was left for a later
// run. It is stored and written as its text: the frontier's reason column,
// manifest.jsonl, report.json's dead URLs and polite status.
//
// The constants are the classified values, the ones the crawl interprets.
// A Reason may also be an HTTP status (HTTPReason), a classified value
// with a note (RetrySpent), or the free text a host's hold words for the
// URLs it leaves (e.g. "deferred: Retry-After beyond --max-retry-after"):
// such text is kept and written as it is, never interpreted. The zero
// Reason is none: a success.
type Reason string

// The classified reasons.
const (
	// Failures of a request, as fetch's Classify names them.
	ReasonTooLarge       Reason = "too-large"       // the body is over --max-body
	ReasonPrivateAddress Reason = "private-address" // polite refused to dial a loopback, private or link-local address
	ReasonBadEncoding    Reason = "bad-encoding"    // a compressed body that does not decode
	ReasonCanceled       Reason = "canceled"        // cut by the end of the run's grace period
	ReasonDNS            Reason = "dns"             // the name did not resolve
	ReasonTLS            Reason = "tls"             // another TLS failure: a certificate refused for another cause, or no TLS spoken
	ReasonRefused        Reason = "refused"         // the connection was refused
	ReasonReset          Reason = "reset"           // the connection was reset or cut short
	ReasonTimeout        Reason = "timeout"         // a timeout
	ReasonBadHeaders     Reason = "bad-headers"     // the response's headers did not parse
	ReasonNetwork        Reason = "network"         // any other network failure
	ReasonBadURL         Reason = "bad-url"         // the URL makes no request

	// A TLS handshake refused, each cause its own reason; with ReasonTLS,
	// the reasons for which TLS reports true.
	ReasonTLSUnknownAuthority Reason = "tls-unknown-authority" // the certificate is signed by no authority polite trusts
	ReasonTLSExpired          Reason = "tls-expired"           // the certificate has expired or is not valid yet
	ReasonTLSNameMismatch     Reason = "tls-name-mismatch"     // the certificate is for other names than the host
	ReasonTLSAlert            Reason = "tls-alert"             // the server ended the handshake with an alert
	ReasonTLSVersion          Reason = "tls-version"           // no TLS version both sides speak

	// Why an entry was excluded or not followed.
	ReasonRobots           Reason = "robots"             // excluded by robots.txt
	ReasonBadRedirect      Reason = "bad-redirect"       // a Location that does not parse
	ReasonRedirectScheme   Reason = "redirect-scheme"    // a Location that is not http or https
	ReasonRedirectLoop     Reason = "redirect-loop"      // a redirect back to a URL of the chain
	ReasonTooManyRedirects Reason = "too-many-redirects" // the chain is over its limit
	ReasonSitemapUnchanged Reason = "unchanged (sitemap lastmod)"
	ReasonOperator         Reason = "excluded by the operator" // a rule of polite exclude: see ExcludedBy
)

// httpPrefix starts the Reason of a failing HTTP status: "http-503".
const httpPrefix = "http-"

// HTTPReason is the Reason of an answer with a failing status: "http-404".
func HTTPReason(status int) Reason { return Reason(httpPrefix + strconv.Itoa(status)) }

// retrySpentNote follows a failure deferred because the run's retry
// budget is spent.
const retrySpentNote = " (retry budget spent)"

// RetrySpent is r noted as deferred for a spent retry budget:
// "timeout (retry budget spent)".
func (r Reason) RetrySpent() Reason { return r + retrySpentNote }

// operatorNote joins ReasonOperator and the rule that excluded a URL.
const operatorNote = ": "

// ExcludedBy is the Reason of a URL the operator's exclusion list covers,
// naming the rule: "excluded by the operator: .example.org".
func ExcludedBy(rule string) Reason { return ReasonOperator + operatorNote + Reason(rule) }

// Rule returns the exclusion rule r names, when r is ExcludedBy's.
func (r Reason) Rule() (string, bool) {
	rule, ok := strings.CutPrefix(string(r), string(ReasonOperator+operatorNote))
	return rule, ok && rule != ""
}

// Classified reports whether r is a classified reason: one of the
// constants, an HTTP status or an exclusion by the operator naming its
// rule; not free text, not none.
func (r Reason) Classified() bool {
	switch r {
	case ReasonTooLarge, ReasonPrivateAddress, ReasonBadEncoding, ReasonCanceled, ReasonDNS, ReasonTLS,
		ReasonRefused, ReasonReset, ReasonTimeout, ReasonBadHeaders, ReasonNetwork, ReasonBadURL,
		ReasonTLSUnknownAuthority, ReasonTLSExpired, ReasonTLSNameMismatch, ReasonTLSAlert, ReasonTLSVersion,
		ReasonRobots, ReasonBadRedirect, ReasonRedirectScheme, ReasonRedirectLoop, ReasonTooManyRedirects,
		ReasonSitemapUnchanged, ReasonOperator:
		return true
	}
	if _, ok := r.Rule(); ok || r.Usage() {
		return true
	}
	n, ok := strings.CutPrefix(string(r), httpPrefix)
	if !ok || len(n) != 3 {
		return false
	}
	_, err := strconv.Atoi(n)
	return err == nil
}

// TLS reports whether r is a refused TLS handshake: a certificate polite
// does not accept, an alert from the server, no common TLS version, or a
// server that does not speak TLS. The same request meets it again until
// the site or polite's trust changes, so it stops the host for the run
// and leaves its URLs for the next one. A handshake that times out or is
// cut is a timeout or a reset, not one of these.
func (r Reason) TLS() bool {
	return r == ReasonTLS || r == ReasonTLSUnknownAuthority || r == ReasonTLSExpired || r == ReasonTLSNameMismatch ||
		r == ReasonTLSAlert || r == ReasonTLSVersion
}

// String is the reason as stored and written.
func (r Reason) String() string { return string(r) }

// MarshalText writes the reason as stored: exactly its text.
func (r Reason) MarshalText() ([]byte, error) { return []byte(r), nil }

// UnmarshalText reads a reason back as it was written, whatever the text:
// an unknown one (an older or newer polite's) is kept, not refused.
func (r *Reason) UnmarshalText(b []byte) error {
	*r = Reason(b)
	return nil
}

// usagePrefix starts the Reason of a URL excluded because the site's
// usage preferences refuse the crawl's declared purpose (--purpose).
const usagePrefix = "excluded by usage: "

// UsageRefused is the Reason of a URL whose usage preferences refuse a
// declared purpose, naming the purpose and the rule:
// "excluded by usage: train-ai refused by Content-Usage: train-ai=n".
func UsageRefused(rule string) Reason { return Reason(usagePrefix + rule) }

// Usage reports whether r is UsageRefused's.
func (r Reason) Usage() bool { return strings.HasPrefix(string(r), usagePrefix) }
