package fetch

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"syscall"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// Classify names a failure the way the report and the frontier record it.
func Classify(err error) frontier.Reason {
	var (
		dnsErr *net.DNSError
		netErr net.Error
	)
	switch {
	case errors.Is(err, ErrTooLarge):
		return frontier.ReasonTooLarge
	case errors.Is(err, ErrPrivate):
		return frontier.ReasonPrivateAddress
	case errors.Is(err, ErrBadEncoding):
		return frontier.ReasonBadEncoding
	case errors.Is(err, context.Canceled):
		return frontier.ReasonCanceled
	case errors.As(err, &dnsErr):
		return frontier.ReasonDNS
	}
	if r := classifyTLS(err); r != "" {
		return r
	}
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return frontier.ReasonRefused
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return frontier.ReasonReset
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return frontier.ReasonTimeout
	case strings.Contains(err.Error(), "header"):
		return frontier.ReasonBadHeaders
	}
	return frontier.ReasonNetwork
}

// The TLS alerts classified apart (RFC 8446 6).
const alertProtocolVersion = 70

// versionRefused starts the error crypto/tls returns, with no type of its
// own, when the server picks a TLS version polite does not accept.
const versionRefused = "tls: server selected unsupported protocol version"

// classifyTLS names a refused TLS handshake (frontier.Reason.TLS), or
// returns "" for any other failure: a handshake that times out or is cut
// is a timeout or a reset, which may pass.
func classifyTLS(err error) frontier.Reason {
	var (
		unknown  x509.UnknownAuthorityError
		invalid  x509.CertificateInvalidError
		hostname x509.HostnameError
		verify   *tls.CertificateVerificationError
		record   tls.RecordHeaderError
	)
	switch {
	case errors.As(err, &unknown):
		return frontier.ReasonTLSUnknownAuthority
	case errors.As(err, &invalid) && invalid.Reason == x509.Expired:
		return frontier.ReasonTLSExpired
	case errors.As(err, &hostname):
		return frontier.ReasonTLSNameMismatch
	case errors.As(err, &verify), errors.As(err, &record), errors.Is(err, http.ErrSchemeMismatch):
		return frontier.ReasonTLS
	case strings.Contains(err.Error(), versionRefused):
		return frontier.ReasonTLSVersion
	}
	if code, ok := remoteAlert(err); ok {
		if code == alertProtocolVersion {
			return frontier.ReasonTLSVersion
		}
		return frontier.ReasonTLSAlert
	}
	return ""
}

// remoteAlert returns the TLS alert the server ended the connection with.
// crypto/tls reports it as a net.OpError "remote error" around a value of
// its unexported alert type, a uint8: the code is read from that.
func remoteAlert(err error) (code uint8, ok bool) {
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "remote error" || op.Err == nil {
		return 0, false
	}
	v := reflect.ValueOf(op.Err)
	if v.Kind() != reflect.Uint8 {
		return 0, false
	}
	return uint8(v.Uint()), true
}

// Refusal words a refused TLS handshake for a person, with what the
// certificate says: its dates when it has expired or is not valid yet at
// now (the time it was checked at), the names it is for, the authority
// that signed it, the server's alert. It is "" for any other failure.
func Refusal(err error, now time.Time) string {
	var (
		unknown  x509.UnknownAuthorityError
		invalid  x509.CertificateInvalidError
		hostname x509.HostnameError
		record   tls.RecordHeaderError
	)
	switch r := classifyTLS(err); {
	case r == "":
		return ""
	case errors.As(err, &unknown) && unknown.Cert != nil:
		return fmt.Sprintf("certificate signed by an unknown authority (issuer %q)", unknown.Cert.Issuer.String())
	case errors.As(err, &invalid) && invalid.Cert != nil && r == frontier.ReasonTLSExpired:
		c := invalid.Cert
		switch {
		case now.After(c.NotAfter):
			return "certificate expired on " + stamp(c.NotAfter)
		case now.Before(c.NotBefore):
			return "certificate not valid before " + stamp(c.NotBefore)
		}
		return fmt.Sprintf("certificate valid only from %s to %s", stamp(c.NotBefore), stamp(c.NotAfter))
	case errors.As(err, &hostname) && hostname.Certificate != nil:
		return fmt.Sprintf("certificate for %s, not %s", certNames(hostname.Certificate), hostname.Host)
	case errors.As(err, &record), errors.Is(err, http.ErrSchemeMismatch):
		return "the server does not speak TLS"
	case r == frontier.ReasonTLSAlert || r == frontier.ReasonTLSVersion:
		if _, ok := remoteAlert(err); ok {
			var op *net.OpError
			errors.As(err, &op)
			return fmt.Sprintf("the server refused the handshake: alert %q", strings.TrimPrefix(op.Err.Error(), "tls: "))
		}
	}
	return "TLS refused: " + innermost(err)
}

// stamp is a certificate's date as the report writes times.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// maxNames bounds the names of a certificate a refusal lists.
const maxNames = 5

// certNames lists the names a certificate is for: its DNS names and
// addresses (the common name counts for none).
func certNames(c *x509.Certificate) string {
	names := append([]string(nil), c.DNSNames...)
	for _, ip := range c.IPAddresses {
		names = append(names, ip.String())
	}
	switch n := len(names); {
	case n == 0:
		return "no name"
	case n > maxNames:
		return strings.Join(names[:maxNames], ", ") + fmt.Sprintf(" and %d more", n-maxNames)
	}
	return strings.Join(names, ", ")
}

// innermost is err without the request around it: what crypto/tls said.
func innermost(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return err.Error()
}
