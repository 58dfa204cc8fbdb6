package fetchtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// Period is when a certificate is valid. The periods are fixed dates, so
// that no test reads the clock to make a certificate.
type Period struct{ From, To time.Time }

// The periods of the tests' certificates.
var (
	Always  = Period{date(2000), date(2100)} // valid whenever the tests run
	Expired = Period{date(2000), date(2001)} // expired on 2001-01-01
	NotYet  = Period{date(2099), date(2100)} // not valid before 2099-01-01
)

func date(year int) time.Time { return time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC) }

// CA is a certificate authority made for a test: no system trusts it.
type CA struct {
	Cert *x509.Certificate
	PEM  []byte // its certificate, PEM-encoded: what --ca-file reads
	key  *ecdsa.PrivateKey
	next int64 // the last serial number given
}

// NewCA makes a certificate authority named name, valid Always.
func NewCA(t testing.TB, name string) *CA {
	t.Helper()
	ca := &CA{key: newKey(t), next: 1}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name, Organization: []string{"polite tests"}},
		NotBefore: Always.From, NotAfter: Always.To, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &ca.key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	if ca.Cert, err = x509.ParseCertificate(der); err != nil {
		t.Fatal(err)
	}
	ca.PEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	return ca
}

// WriteFile writes the CA's certificate to a PEM file in a temporary
// folder and returns its path.
func (ca *CA) WriteFile(t testing.TB) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(p, ca.PEM, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// Leaf makes a server certificate signed by the CA, valid in p, for names:
// host names, and addresses such as "127.0.0.1".
func (ca *CA) Leaf(t testing.TB, p Period, names ...string) tls.Certificate {
	t.Helper()
	ca.next++
	key := newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(ca.next), Subject: pkix.Name{CommonName: names[0]},
		NotBefore: p.From, NotAfter: p.To,
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, n := range names {
		if ip := net.ParseIP(n); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, n)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

func newKey(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TLSServer is an HTTPS server on loopback that counts the handshakes
// clients begin.
type TLSServer struct {
	*httptest.Server
	hellos atomic.Int64
	cert   atomic.Pointer[tls.Certificate] // SetCert's, in place of the first
}

// SetCert makes the server present c from the next handshake on: a site
// that renews its certificate, or lets it expire.
func (s *TLSServer) SetCert(c tls.Certificate) { s.cert.Store(&c) }

// Hellos is how many TLS handshakes clients began (ClientHello messages).
func (s *TLSServer) Hellos() int { return int(s.hellos.Load()) }

// ServerOptions are a TLSServer's settings.
type ServerOptions struct {
	Cert  tls.Certificate
	HTTP2 bool              // speak HTTP/2: ALPN h2 only
	TLS   func(*tls.Config) // changes the server's TLS settings: versions, client certificates
}

// StartTLS starts an HTTPS server on 127.0.0.1 serving h with o's
// certificate, closed when the test ends. Its handshake failures are not
// logged.
func StartTLS(t testing.TB, h http.Handler, o ServerOptions) *TLSServer {
	t.Helper()
	s := &TLSServer{Server: httptest.NewUnstartedServer(h)}
	s.EnableHTTP2 = o.HTTP2
	s.Config.ErrorLog = log.New(io.Discard, "", 0)
	cfg := &tls.Config{Certificates: []tls.Certificate{o.Cert}}
	if o.TLS != nil {
		o.TLS(cfg)
	}
	cfg.GetConfigForClient = func(*tls.ClientHelloInfo) (*tls.Config, error) {
		s.hellos.Add(1)
		c := s.cert.Load()
		if c == nil {
			return nil, nil
		}
		renewed := s.TLS.Clone() // as StartTLS completed it
		renewed.Certificates, renewed.GetConfigForClient = []tls.Certificate{*c}, nil
		return renewed, nil
	}
	s.TLS = cfg
	s.StartTLS()
	t.Cleanup(s.Close)
	return s
}
