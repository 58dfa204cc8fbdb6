package fetch

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestParseHeader(t *testing.T) {
	tests := []struct {
		line, err string
		want      Header
	}{
		{line: "Accept: application/json", want: Header{Name: "Accept", Value: "application/json"}},
		{line: "authorization:Bearer abc ", want: Header{Name: "Authorization", Value: "Bearer abc", Secret: true}},
		{line: "X-Api-Key: k", want: Header{Name: "X-Api-Key", Value: "k"}},
		{line: "Cookie: a=b", want: Header{Name: "Cookie", Value: "a=b", Secret: true}},
		{line: "no colon", err: `want "Name: value"`},
		{line: "Bad Name: x", err: "not a valid field name"},
		{line: "X-A: b\x00c", err: "control character"},
		{line: "User-Agent: me", err: "--user-agent"},
		{line: "Host: example.org", err: "polite sets it"},
		{line: "If-None-Match: x", err: "polite sets it"},
	}
	for _, tt := range tests {
		got, err := ParseHeader(tt.line, false)
		switch {
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("ParseHeader(%q) error %v, want one saying %q", tt.line, err, tt.err)
		case tt.err == "" && (err != nil || got != tt.want):
			t.Errorf("ParseHeader(%q) = %+v, %v; want %+v", tt.line, got, err, tt.want)
		}
	}
	// A file's header is secret, and its error shows nothing of the line.
	if h, err := ParseHeader("X-Api-Key: k", true); err != nil || !h.Secret {
		t.Errorf("a file's X-Api-Key: %+v, %v; want it secret", h, err)
	}
	if _, err := ParseHeader("token-without-name", true); err == nil || strings.Contains(err.Error(), "token") {
		t.Errorf("a file's bad line: error %v; want one that does not show the line", err)
	}
	h, err := ParseHostHeader("API.example.org:8443=Accept: application/json")
	if err != nil || h.Host != "api.example.org:8443" || h.Name != "Accept" {
		t.Errorf("ParseHostHeader = %+v, %v", h, err)
	}
	for _, bad := range []string{"Accept: x", "=Accept: x", "https://h/=Accept: x", "h=nothing"} {
		if _, err := ParseHostHeader(bad); err == nil {
			t.Errorf("ParseHostHeader(%q): no error", bad)
		}
	}
}

// Where each header goes: a host's to that host (and port, when named);
// without a host, a secret one to the seeds' origins only (not another
// scheme or port, as after a redirect), another to the seeds' hosts.
func TestHeaderGoesTo(t *testing.T) {
	seeds := Origins{}
	seeds.Add(mustURL(t, "https://api.example.org/v1"))
	seeds.Add(mustURL(t, "http://127.0.0.1:8080/"))
	secret := Header{Name: "Authorization", Value: "t", Secret: true}
	plain := Header{Name: "Accept", Value: "application/json"}
	onHost := Header{Name: "X-Key", Value: "k", Secret: true, Host: "data.example.org"}
	onPort := Header{Name: "X-Key", Value: "k", Secret: true, Host: "127.0.0.1:9090"}
	tests := []struct {
		h    Header
		u    string
		want bool
	}{
		{secret, "https://api.example.org/v1/items?page=2", true},
		{secret, "https://API.example.org:443/x", true},
		{secret, "http://api.example.org/v1", false}, // another scheme
		{secret, "https://api.example.org:8443/", false},
		{secret, "https://other.example.org/", false},
		{secret, "http://127.0.0.1:8080/a", true},
		{secret, "http://127.0.0.1:8081/a", false}, // another port
		{plain, "http://api.example.org/v1", true}, // the seed's host
		{plain, "https://other.example.org/", false},
		{plain, "http://127.0.0.1:8081/a", false},
		{onHost, "https://data.example.org/x", true},
		{onHost, "http://data.example.org:81/x", true},
		{onHost, "https://api.example.org/v1", false},
		{onPort, "http://127.0.0.1:9090/", true},
		{onPort, "http://127.0.0.1:8080/", false},
	}
	for _, tt := range tests {
		if got := tt.h.goesTo(mustURL(t, tt.u), seeds); got != tt.want {
			t.Errorf("%s (host %q) to %s: %v, want %v", tt.h.Name, tt.h.Host, tt.u, got, tt.want)
		}
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// Through the client on loopback: the seed's origin gets the secret, a
// server on another port does not; the WARC capture writes the secret as
// [redacted], keeping the header's name, and the cookie the answer sets
// is [redacted] in what the client hands on.
func TestClientSendsSecretsToTheSeedsOriginOnly(t *testing.T) {
	got := make(chan http.Header, 2)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Clone()
		w.Header().Set("Set-Cookie", "session=s3ss10n; HttpOnly")
		w.Write([]byte("{}"))
	})
	seed, other := httptest.NewServer(h), httptest.NewServer(h)
	defer seed.Close()
	defer other.Close()
	opts := DefaultOptions()
	opts.AllowPrivate = true
	opts.Headers = Headers{{Name: "Authorization", Value: "Bearer t0k3n", Secret: true}, {Name: "Accept", Value: "application/json"}}
	c, err := New(opts, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.KeepExchanges()
	c.Origins().Add(mustURL(t, seed.URL))

	r := c.Get(context.Background(), mustURL(t, seed.URL+"/items"), nil)
	sent := <-got
	if r.Err != nil || sent.Get("Authorization") != "Bearer t0k3n" || sent.Get("Accept") != "application/json" || !r.Credentials {
		t.Fatalf("to the seed: sent %v, credentials %v, err %v", sent, r.Credentials, r.Err)
	}
	if r.Capture == nil || !strings.Contains(string(r.Capture.Request), "Authorization: [redacted]\r\n") ||
		strings.Contains(string(r.Capture.Request), "t0k3n") {
		t.Errorf("captured request %q, want Authorization: [redacted]", r.Capture.Request)
	}
	if c := r.Header.Get("Set-Cookie"); c != Redacted || strings.Contains(string(r.Capture.Head), "s3ss10n") {
		t.Errorf("Set-Cookie of an answer to credentials: %q (captured head %q), want %s", c, r.Capture.Head, Redacted)
	}

	r = c.Get(context.Background(), mustURL(t, other.URL+"/items"), nil)
	sent = <-got
	if r.Err != nil || sent.Get("Authorization") != "" || sent.Get("Accept") != "" || r.Credentials {
		t.Errorf("to another port: sent %v, credentials %v, err %v; want neither header", sent, r.Credentials, r.Err)
	}
	if c := r.Header.Get("Set-Cookie"); c == Redacted {
		t.Errorf("Set-Cookie of an answer to no credentials redacted")
	}
}

func TestChallenged(t *testing.T) {
	for _, tt := range []struct {
		r    Response
		want bool
	}{
		{Response{Status: 401, Credentials: true}, true},
		{Response{Status: 403, Header: http.Header{"Www-Authenticate": {"Bearer"}}}, true},
		{Response{Status: 403, Header: http.Header{}}, false},
		{Response{}, false},
	} {
		if got := tt.r.Challenged(); got != tt.want {
			t.Errorf("%+v.Challenged() = %v, want %v", tt.r, got, tt.want)
		}
	}
}
