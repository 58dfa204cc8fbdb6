package fetch

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/sitemap"
)

// GetSitemap fetches a sitemap and reads its body as a stream within the
// protocol's limits (and opt's: with opt.Each, its entries are handed
// over a batch at a time as they are read), by the request's deadline;
// the body is not kept, but for the WARC record (--warc): the bytes as
// sent, up to what the reader took (more, and the record says it was cut).
func (f *Client) GetSitemap(ctx context.Context, u *url.URL, extra http.Header, opt *sitemap.Options) (r Response, listed *sitemap.Result) {
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	resp, r := f.send(ctx, u, extra)
	if resp == nil {
		return r, nil
	}
	defer resp.Body.Close()
	var raw *bytes.Buffer
	if f.keep {
		raw = &bytes.Buffer{}
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.TeeReader(resp.Body, raw), resp.Body}
		defer func() {
			var one [1]byte // the record is cut unless the reader took it all
			n, _ := resp.Body.Read(one[:])
			r.Capture = f.capture(resp, r, raw.Bytes()[:raw.Len()-n], n > 0)
		}()
	}
	if resp.StatusCode/100 != 2 {
		if f.keep {
			readLimited(resp.Body, f.maxBody, resp.ContentLength) // what the error page said, for the record
		}
		return r, nil
	}
	var body = newPeekReader(resp.Body)
	var rd = interface{ Read([]byte) (int, error) }(body)
	switch strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding"))) {
	case "gzip", "x-gzip":
		if len(body.peek(1)) > 0 {
			zr, err := gzip.NewReader(body)
			if err != nil {
				r.Err, r.Reason = decodeErr(err), frontier.ReasonBadEncoding
				return r, nil
			}
			defer zr.Close()
			rd = zr
		}
	case "deflate":
		rd = newDeflateReader(body)
	}
	res := sitemap.Read(rd, opt)
	r.Duration = f.now().Sub(r.Start)
	return r, res
}
