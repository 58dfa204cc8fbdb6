package warc

import (
	"compress/gzip"
	"encoding/base64"
	"io"
	"os"
	"strings"
	"testing"
)

// TestProtocol: an exchange over HTTP/2 says WARC-Protocol: h2, spelled
// as the field's proposal spells it, on its request and response records
// (both written in HTTP/1.1 form, as the IIPC's warc-http2 proposal
// writes them); one over HTTP/1.x has no such field.
func TestProtocol(t *testing.T) {
	for _, proto := range []string{"h2", ""} {
		dir := t.TempDir()
		w := mustOpen(t, dir, testOptions())
		ex := exchange("https://127.0.0.1:8443/page", t0, 200, "over h2")
		ex.Protocol = proto
		if _, err := w.WriteExchange(ex); err != nil {
			t.Fatal(err)
		}
		w.Close()
		file := warcFiles(t, dir)[0]
		recs := readWARC(t, file)
		if got := types(recs); len(got) != 3 || got[1] != "request" || got[2] != "response" {
			t.Fatalf("records %v, want warcinfo, request, response", got)
		}
		for _, r := range recs[1:] {
			if got := r.get("WARC-Protocol"); got != proto {
				t.Errorf("protocol %q: %s says WARC-Protocol %q", proto, r.typ, got)
			}
		}
		want := 0
		if proto != "" {
			want = 2
		}
		if n := strings.Count(gunzipFile(t, file), "\r\nWARC-Protocol: "+proto+"\r\n"); n != want {
			t.Errorf("protocol %q: %d fields spelled WARC-Protocol, want %d", proto, n, want)
		}
	}
}

// LowerNames puts a head's field names in lower case, its first line and
// the values as they are.
func TestLowerNames(t *testing.T) {
	head := "GET /A?B=C HTTP/1.1\r\nHost: Example.ORG\r\nUser-Agent: Polite/1\r\nX-Odd:Value: With: Colons\r\n\r\n"
	want := "GET /A?B=C HTTP/1.1\r\nhost: Example.ORG\r\nuser-agent: Polite/1\r\nx-odd:Value: With: Colons\r\n\r\n"
	if got := string(LowerNames([]byte(head))); got != want {
		t.Errorf("LowerNames:\n got %q\nwant %q", got, want)
	}
}

// gunzipFile is a WARC file's records, decompressed.
func gunzipFile(t *testing.T, name string) string {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// warcio.js reads an HTTP/2 exchange's records as polite writes them, the
// head in its HTTP/1.1 form ("HTTP/1.1 200 ", no reason phrase, lower-case
// names): status 200, digests that recompute, the head's fields.
func TestWARCIOReadsHTTP2(t *testing.T) {
	dir := t.TempDir()
	w := mustOpen(t, dir, testOptions())
	ex := exchange("https://127.0.0.1:8443/page", t0, 200, "over h2")
	ex.Protocol = "h2"
	ex.ResponseHead = []byte("HTTP/1.1 200 \r\ncontent-length: 7\r\ncontent-type: text/html\r\netag: \"v2\"\r\n\r\n")
	if _, err := w.WriteExchange(ex); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	c := warcio(t, warcFiles(t, dir)...)
	found := false
	for _, r := range c.Records {
		if r.Type != "response" {
			continue
		}
		found = true
		head, _ := base64.StdEncoding.DecodeString(r.Head)
		if r.Status == nil || *r.Status != 200 || r.PayloadDigestOK == nil || !*r.PayloadDigestOK || !strings.Contains(string(head), "etag: \"v2\"") {
			t.Errorf("warcio.js read the h2 response as status %v, payload digest ok %v, head %q", r.Status, r.PayloadDigestOK, head)
		}
	}
	if !found {
		t.Errorf("warcio.js found no response record: %v", c.Counts)
	}
}
