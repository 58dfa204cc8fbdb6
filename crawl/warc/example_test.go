package warc_test

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/polite-crawler/polite/crawl/warc"
)

// A run opens one Writer, writes each fetch, and on a later run refers
// to what the store kept of the first capture when the page is unchanged.
func Example() {
	dir, _ := os.MkdirTemp("", "warc-example")
	defer os.RemoveAll(dir)
	w, err := warc.Open(filepath.Join(dir, "warc"), warc.Options{
		Prefix: "job-run1-20261130120000",
		Info:   warc.Info{Software: "polite/1.0", UserAgent: "polite/1.0", Robots: "obey", Job: "job", Run: "run1"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	at := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	ex := warc.Exchange{
		URL:          "https://example.org/",
		Date:         at,
		IP:           "93.184.215.14",
		Request:      []byte("GET / HTTP/1.1\r\nHost: example.org\r\nUser-Agent: polite/1.0\r\n\r\n"),
		ResponseHead: []byte("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nETag: \"v1\"\r\n\r\n"),
		Payload:      []byte("hello"),
	}
	c, err := w.WriteExchange(ex)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.File, c.PayloadDigest)

	// Keep c.RecordID, c.Date and c.PayloadDigest per URL; a 304 later:
	ex.Date = at.Add(24 * time.Hour)
	ex.ResponseHead = []byte("HTTP/1.1 304 Not Modified\r\nETag: \"v1\"\r\n\r\n")
	ex.Payload = nil
	if _, err := w.WriteRevisit(warc.Revisit{Profile: warc.NotModified, Exchange: ex,
		Ref: warc.Ref{RecordID: c.RecordID, URL: ex.URL, Date: c.Date, PayloadDigest: c.PayloadDigest}}); err != nil {
		fmt.Println(err)
		return
	}
	if err := w.Close(); err != nil {
		fmt.Println(err)
		return
	}
	names, _ := filepath.Glob(filepath.Join(dir, "warc", "*"))
	for _, n := range names {
		fmt.Println(filepath.Base(n))
	}
	// Output:
	// job-run1-20261130120000-00000.warc.gz sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824
	// job-run1-20261130120000-00000.cdxj
	// job-run1-20261130120000-00000.warc.gz
}
