package fetch

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/fetch/fetchtest"
	"github.com/polite-crawler/polite/crawl/frontier"
)

// mustNew is New for a test: its error fails the test.
func mustNew(t testing.TB, cfg Options) *Client {
	t.Helper()
	f, err := New(cfg, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// tlsClient is a client that may dial loopback and trusts ca's file
// (none for nil).
func tlsClient(t *testing.T, ca *fetchtest.CA) *Client {
	t.Helper()
	cfg := DefaultOptions()
	cfg.AllowPrivate = true
	if ca != nil {
		cfg.CAFile = ca.WriteFile(t)
	}
	f := mustNew(t, cfg)
	t.Cleanup(f.Close)
	return f
}

var hello = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("hello over " + r.Proto)) })

// TestTLSRefusalsClassified: each way a handshake is refused, met over
// TLS on loopback with certificates made here, has its own reason and
// is worded with what the certificate says; one request is one
// handshake (the client never tries again).
func TestTLSRefusalsClassified(t *testing.T) {
	t.Parallel()
	ca := fetchtest.NewCA(t, "polite test CA")
	tests := []struct {
		name   string
		opts   fetchtest.ServerOptions
		trust  bool // the client trusts ca
		want   frontier.Reason
		detail string // in Response.Detail
	}{
		{name: "unknown authority", opts: fetchtest.ServerOptions{Cert: ca.Leaf(t, fetchtest.Always, "127.0.0.1")},
			want: frontier.ReasonTLSUnknownAuthority, detail: `certificate signed by an unknown authority (issuer "CN=polite test CA,O=polite tests")`},
		{name: "expired", opts: fetchtest.ServerOptions{Cert: ca.Leaf(t, fetchtest.Expired, "127.0.0.1")}, trust: true,
			want: frontier.ReasonTLSExpired, detail: "certificate expired on 2001-01-01T00:00:00Z"},
		{name: "not valid yet", opts: fetchtest.ServerOptions{Cert: ca.Leaf(t, fetchtest.NotYet, "127.0.0.1")}, trust: true,
			want: frontier.ReasonTLSExpired, detail: "certificate not valid before 2099-01-01T00:00:00Z"},
		{name: "another name", opts: fetchtest.ServerOptions{Cert: ca.Leaf(t, fetchtest.Always, "other.example", "www.other.example", "10.0.0.1")},
			trust: true, want: frontier.ReasonTLSNameMismatch, detail: "certificate for other.example, www.other.example, 10.0.0.1, not 127.0.0.1"},
		{name: "alert: client certificate required", trust: true, want: frontier.ReasonTLSAlert, detail: `the server refused the handshake: alert "handshake failure"`,
			opts: fetchtest.ServerOptions{Cert: ca.Leaf(t, fetchtest.Always, "127.0.0.1"), TLS: func(c *tls.Config) {
				c.ClientAuth, c.MaxVersion = tls.RequireAndVerifyClientCert, tls.VersionTLS12
			}}},
		{name: "protocol version", trust: true, want: frontier.ReasonTLSVersion, detail: `the server refused the handshake: alert "protocol version not supported"`,
			opts: fetchtest.ServerOptions{Cert: ca.Leaf(t, fetchtest.Always, "127.0.0.1"), TLS: func(c *tls.Config) {
				c.MinVersion, c.MaxVersion = tls.VersionTLS10, tls.VersionTLS11
			}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := fetchtest.StartTLS(t, hello, tt.opts)
			var trusted *fetchtest.CA
			if tt.trust {
				trusted = ca
			}
			resp := tlsClient(t, trusted).Get(context.Background(), mustURLOf(t, srv.URL+"/page"), nil)
			if resp.Reason != tt.want || !resp.Reason.TLS() {
				t.Fatalf("reason %q (TLS %v), want %q; err %v", resp.Reason, resp.Reason.TLS(), tt.want, resp.Err)
			}
			if resp.Detail != tt.detail {
				t.Errorf("detail %q, want %q", resp.Detail, tt.detail)
			}
			if n := srv.Hellos(); n != 1 {
				t.Errorf("%d handshakes begun, want 1", n)
			}
		})
	}
}

// TestTLSNotSpoken: a server that answers an https URL in plain HTTP is
// refused as TLS ("tls"), not retried as a network failure.
func TestTLSNotSpoken(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(hello)
	defer srv.Close()
	u := mustURLOf(t, strings.Replace(srv.URL, "http:", "https:", 1)+"/")
	resp := tlsClient(t, nil).Get(context.Background(), u, nil)
	if resp.Reason != frontier.ReasonTLS || resp.Detail != "the server does not speak TLS" {
		t.Errorf("reason %q, detail %q; want tls, the server does not speak TLS (err %v)", resp.Reason, resp.Detail, resp.Err)
	}
}

// silentListener accepts connections on loopback and, for each, reads
// the ClientHello and then either closes it (cut) or keeps it open
// without a word until the test ends.
func silentListener(t *testing.T, cut bool) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		conns []net.Conn
	)
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Read(make([]byte, 512))
			if cut {
				c.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	return "https://" + ln.Addr().String() + "/"
}

// TestTLSHandshakeTransient: a handshake that times out or is cut is not
// a refusal: it is a timeout or a reset, which a later attempt may pass.
func TestTLSHandshakeTransient(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cut  bool
		want frontier.Reason
	}{
		{"cut", true, frontier.ReasonReset},
		{"timed out", false, frontier.ReasonTimeout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := DefaultOptions()
			cfg.AllowPrivate = true
			cfg.ConnectTimeout = time.Minute // a cut handshake must not meet it, even on a loaded machine
			if !tt.cut {
				cfg.ConnectTimeout = 100 * time.Millisecond // the handshake's deadline: the server never answers
			}
			f := mustNew(t, cfg)
			defer f.Close()
			resp := f.Get(context.Background(), mustURLOf(t, silentListener(t, tt.cut)), nil)
			if resp.Reason != tt.want || resp.Reason.TLS() || resp.Detail != "" {
				t.Errorf("reason %q (TLS %v), detail %q; want %q, not a refusal (err %v)", resp.Reason, resp.Reason.TLS(), resp.Detail, tt.want, resp.Err)
			}
		})
	}
}

// TestCAFileTrusted: with --ca-file the private CA's certificates are
// trusted beside the system's; HTTP/2 is negotiated when the server
// offers it, and the exchange's capture says h2 for its WARC record.
func TestCAFileTrusted(t *testing.T) {
	t.Parallel()
	ca := fetchtest.NewCA(t, "private CA")
	for _, h2 := range []bool{true, false} {
		srv := fetchtest.StartTLS(t, hello, fetchtest.ServerOptions{Cert: ca.Leaf(t, fetchtest.Always, "127.0.0.1"), HTTP2: h2})
		f := tlsClient(t, ca)
		f.KeepExchanges()
		resp := f.Get(context.Background(), mustURLOf(t, srv.URL+"/"), nil)
		if resp.Err != nil || resp.Status != 200 {
			t.Fatalf("h2 %v: %d, %v", h2, resp.Status, resp.Err)
		}
		proto, wantProto, body := "", "", "hello over HTTP/1.1"
		if h2 {
			wantProto, body = "h2", "hello over HTTP/2.0"
		}
		if resp.Capture != nil {
			proto = resp.Capture.Protocol
		}
		if string(resp.Body) != body || resp.Capture == nil || proto != wantProto {
			t.Errorf("h2 %v: body %q, capture protocol %q; want %q, %q", h2, resp.Body, proto, body, wantProto)
		}
	}
}

// TestCAFileRefused: a --ca-file that cannot be read, holds no
// certificate or a broken one is refused with its name; no client is
// made without the trust asked for.
func TestCAFileRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name, path, want string
	}{
		{"missing", filepath.Join(dir, "nope.pem"), "no such file"},
		{"empty", write("empty.pem", ""), "no PEM certificate"},
		{"a key alone", write("key.pem", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"), "no PEM certificate"},
		{"broken certificate", write("broken.pem", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"), "certificate 1:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultOptions()
			cfg.CAFile = tt.path
			f, err := New(cfg, time.Now)
			if err == nil || f != nil {
				t.Fatalf("New = %v, %v; want an error", f, err)
			}
			if !strings.Contains(err.Error(), tt.path) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "--ca-file") {
				t.Errorf("error %q does not name --ca-file, %s and %q", err, tt.path, tt.want)
			}
		})
	}
	var pathErr *os.PathError
	if _, err := LoadRoots(filepath.Join(dir, "nope.pem")); !errors.As(err, &pathErr) {
		t.Errorf("LoadRoots of a missing file: %v, want the *os.PathError", err)
	}
}
