package fetch

import (
	"compress/gzip"
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/sitemap"
)

// GetSitemap fetches a sitemap and reads its body as a stream within the
// protocol's limits (and opt's: with opt.Each, its entries are handed
// over a batch at a time as they are read), by the request's deadline;
// the body is not kept.
func (f *Client) GetSitemap(ctx context.Context, u *url.URL, extra http.Header, opt *sitemap.Options) (Response, *sitemap.Result) {
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	resp, r := f.send(ctx, u, extra)
	if resp == nil {
		return r, nil
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
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
