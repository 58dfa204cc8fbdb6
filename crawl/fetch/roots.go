package fetch

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
)

// LoadRoots returns the certificate authorities a client with --ca-file
// name trusts: the system's roots (which SSL_CERT_FILE and SSL_CERT_DIR
// may name instead of the system's own) and every certificate of the PEM
// file name. A file that cannot be read, holds no PEM certificate or one
// that does not parse is an error naming it; nothing turns verification
// off.
func LoadRoots(name string) (*x509.CertPool, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("--ca-file: %w", err)
	}
	roots, err := x509.SystemCertPool()
	if err != nil {
		roots = x509.NewCertPool() // no system roots: the file's alone
	}
	n := 0
	for rest := data; ; {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		if b.Type != "CERTIFICATE" {
			continue // a key or parameters beside the certificates
		}
		n++
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return nil, fmt.Errorf("--ca-file %s: certificate %d: %v", name, n, err)
		}
		roots.AddCert(c)
	}
	if n == 0 {
		return nil, fmt.Errorf("--ca-file %s: no PEM certificate in it (a CERTIFICATE block is needed)", name)
	}
	return roots, nil
}
