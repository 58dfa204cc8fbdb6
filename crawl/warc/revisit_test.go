package warc

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestRevisit(t *testing.T) {
	dir := t.TempDir()
	w := mustOpen(t, dir, testOptions())
	const url = "http://127.0.0.1:8080/page"
	orig, err := w.WriteExchange(exchange(url, t0, 200, "the page"))
	if err != nil {
		t.Fatal(err)
	}
	ref := Ref{RecordID: orig.RecordID, URL: url, Date: orig.Date, PayloadDigest: orig.PayloadDigest}
	at := t0.Add(24 * time.Hour)
	nm := exchange(url, at, 304, "")
	nm.ResponseHead = []byte("HTTP/1.1 304 Not Modified\r\nETag: \"v1\"\r\n\r\n")
	same := exchange(url, at, 200, "the page")

	tests := []struct {
		name    string
		rv      Revisit
		profile string
		block   string
	}{
		{"server not modified", Revisit{Profile: NotModified, Exchange: nm, Ref: ref},
			"http://netpreserve.org/warc/1.1/revisit/server-not-modified", string(nm.ResponseHead)},
		{"identical payload digest", Revisit{Profile: IdenticalPayload, Exchange: same, Ref: ref},
			"http://netpreserve.org/warc/1.1/revisit/identical-payload-digest", string(same.ResponseHead)},
	}
	var caps []Capture
	for _, tt := range tests {
		c, err := w.WriteRevisit(tt.rv)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		caps = append(caps, c)
	}
	w.Close()
	recs := readWARC(t, warcFiles(t, dir)[0])
	if got, want := strings.Join(types(recs), " "), "warcinfo request response request revisit request revisit"; got != want {
		t.Fatalf("records %q, want %q", got, want)
	}
	for i, tt := range tests {
		rv, req := recs[4+2*i], recs[3+2*i]
		checks := []struct{ field, got, want string }{
			{"WARC-Profile", rv.get("WARC-Profile"), tt.profile},
			{"WARC-Refers-To", rv.get("WARC-Refers-To"), orig.RecordID},
			{"WARC-Refers-To-Target-URI", rv.get("WARC-Refers-To-Target-URI"), url},
			{"WARC-Refers-To-Date", rv.get("WARC-Refers-To-Date"), "2026-11-30T12:00:00Z"},
			{"WARC-Payload-Digest", rv.get("WARC-Payload-Digest"), orig.PayloadDigest},
			{"WARC-Date", rv.get("WARC-Date"), "2026-12-01T12:00:00Z"},
			{"WARC-Record-ID", rv.get("WARC-Record-ID"), caps[i].RecordID},
			{"WARC-Concurrent-To", rv.get("WARC-Concurrent-To"), req.get("WARC-Record-ID")},
			{"request's WARC-Concurrent-To", req.get("WARC-Concurrent-To"), rv.get("WARC-Record-ID")},
			{"WARC-Block-Digest", rv.get("WARC-Block-Digest"), sha256Of([]byte(tt.block))},
			{"block", string(rv.block), tt.block},
		}
		for _, c := range checks {
			if c.got != c.want {
				t.Errorf("%s: %s %q, want %q", tt.name, c.field, c.got, c.want)
			}
		}
	}
}

func TestRevisitRefused(t *testing.T) {
	w := mustOpen(t, t.TempDir(), testOptions())
	const url = "http://127.0.0.1:8080/page"
	orig, err := w.WriteExchange(exchange(url, t0, 200, "the page"))
	if err != nil {
		t.Fatal(err)
	}
	ref := Ref{RecordID: orig.RecordID, URL: url, Date: orig.Date, PayloadDigest: orig.PayloadDigest}
	changed := exchange(url, t0.Add(time.Hour), 200, "the page, changed")
	tests := []struct {
		name string
		rv   Revisit
		want string
	}{
		{"payload differs", Revisit{Profile: IdenticalPayload, Exchange: changed, Ref: ref}, "is not the original's"},
		{"no original", Revisit{Profile: NotModified, Exchange: changed}, "the original's record id, URL and date are needed"},
		{"no profile", Revisit{Exchange: changed, Ref: ref}, "unknown profile 0"},
		{"no request", Revisit{Profile: NotModified, Exchange: Exchange{URL: url, Date: t0, ResponseHead: []byte("HTTP/1.1 304 x\r\n\r\n")}, Ref: ref}, "without the request"},
	}
	for _, tt := range tests {
		_, err := w.WriteRevisit(tt.rv)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: WriteRevisit = %v, want an error saying %q", tt.name, err, tt.want)
		}
	}
}

func TestBadInput(t *testing.T) {
	for _, p := range []string{"", "../up", "a/b", "has space", strings.Repeat("x", 201)} {
		if _, err := Open(t.TempDir(), Options{Prefix: p}); err == nil || !strings.Contains(err.Error(), "prefix") {
			t.Errorf("Open with prefix %q = %v, want an error naming the prefix", p, err)
		}
	}
	if _, err := Open(t.TempDir(), Options{Prefix: "p", MaxSize: -1}); err == nil {
		t.Error("Open with a negative MaxSize: no error")
	}
	opts := testOptions()
	opts.Info.Job = "two\r\nlines"
	if _, err := Open(t.TempDir(), opts); err == nil || !strings.Contains(err.Error(), "isPartOf") {
		t.Errorf("Open with a line break in the job = %v, want an error naming the field", err)
	}
	w := mustOpen(t, t.TempDir(), testOptions())
	bad := exchange("http://127.0.0.1:8080/", t0, 200, "x")
	bad.URL = "http://127.0.0.1:8080/a b"
	if _, err := w.WriteExchange(bad); err == nil || !strings.Contains(err.Error(), "white space") {
		t.Errorf("URL with a space: %v", err)
	}
	w.Close()
	if _, err := w.WriteExchange(exchange("http://127.0.0.1:8080/", t0, 200, "x")); !errors.Is(err, ErrClosed) {
		t.Errorf("write after Close = %v, want ErrClosed", err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
}

func TestSURT(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://example.com/", "com,example)/"},
		{"https://www.Example.COM/Path?b=2&a=1", "com,example)/path?a=1&b=2"},
		{"http://www2.example.com:8080/x", "com,example:8080)/x"},
		{"https://example.com:443/", "com,example)/"},
		{"http://127.0.0.1:8080/a", "1,0,0,127:8080)/a"},
		{"http://example.com", "com,example)/"},
		{"ftp://example.com/", "ftp://example.com/"},
	}
	for _, tt := range tests {
		if got := surt(tt.in); got != tt.want {
			t.Errorf("surt(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// PayloadDigest is the digest the response record of the same payload
// carries, for payloads empty, short and binary.
func TestPayloadDigestMatchesRecord(t *testing.T) {
	for _, tt := range []struct{ name, body string }{
		{"empty", ""},
		{"short", "hello"},
		{"binary", "\x00\xff\x1f\x8b odd bytes"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := mustOpen(t, t.TempDir(), testOptions())
			c, err := w.WriteExchange(exchange("http://a.example/p", t0, 200, tt.body))
			if err != nil {
				t.Fatal(err)
			}
			if got, want := PayloadDigest([]byte(tt.body)), c.PayloadDigest; got != want {
				t.Errorf("PayloadDigest(%q) = %s, want the record's %s", tt.body, got, want)
			}
		})
	}
}
