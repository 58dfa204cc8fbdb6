package crawl

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/warc"
)

// This file keeps a crawl's fetches as WARC records (--warc). The fetch
// goroutines write them, so the loop never waits on a WARC file; the
// Writer serialises the records of concurrent fetches. The payload kept is
// the body as polite decoded it (see newCapture).

// capture is what a WARC record keeps of one exchange.
type capture struct {
	at      time.Time // when the request was sent
	ip      string    // the address dialled; "" through a proxy
	sent    []byte    // the request head as sent
	head    []byte    // the response head, as received but for the encoding
	payload []byte    // the decoded body, or its first bytes when cut
	cut     bool      // the body was over the size limit
}

// newCapture gathers what the records of req and resp keep. polite
// decodes gzip and deflate bodies itself (the size limit applies to what
// is decoded), and the record keeps that decoded payload: its head then
// drops Content-Encoding and Content-Length, which spoke of the bytes on
// the wire, so that a replay tool serves the payload as it is.
func newCapture(req *http.Request, resp *http.Response, body []byte, cut bool, note *connNote, at time.Time) *capture {
	rec := *resp
	switch strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding"))) {
	case "gzip", "x-gzip", "deflate":
		rec.Header = resp.Header.Clone()
		rec.Header.Del("Content-Encoding")
		rec.Header.Del("Content-Length")
	}
	return &capture{at: at, ip: note.addr(), sent: warc.RequestHead(req), head: warc.ResponseHead(&rec), payload: body, cut: cut}
}

// revisitOf decides how a fetch answered with status is recorded, given
// the entry's last capture: as a revisit of it (a 304 to the conditional
// request; a whole 200 whose payload digest is the capture's), or, when
// it returns 0, as a response record.
func revisitOf(status int, cut bool, digest string, last frontier.Entry) warc.Profile {
	switch {
	case last.WarcID == "" || last.WarcDate.IsZero():
		return 0 // nothing to refer to: the 304 itself is kept
	case status == http.StatusNotModified:
		return warc.NotModified
	case status == http.StatusOK && !cut && digest == last.WarcDigest:
		return warc.IdenticalPayload
	}
	return 0
}

// archive writes the fetch of u as WARC records: a request, and a revisit
// of last's capture or a response. newest says the capture is the URL's
// latest to refer to (a whole 2xx response). A fetch that got no answer,
// or whose body failed to arrive, writes nothing.
func (f *fetcher) archive(u *url.URL, resp response, last frontier.Entry) (c warc.Capture, newest bool, err error) {
	cp := resp.capture
	if f.warc == nil || cp == nil {
		return warc.Capture{}, false, nil
	}
	ex := warc.Exchange{URL: u.String(), Date: cp.at, IP: cp.ip, Request: cp.sent,
		ResponseHead: cp.head, Payload: cp.payload, Truncated: cp.cut}
	digest := ""
	if last.WarcID != "" && resp.Status == http.StatusOK {
		digest = warc.PayloadDigest(cp.payload)
	}
	if p := revisitOf(resp.Status, cp.cut, digest, last); p != 0 {
		ref := warc.Ref{RecordID: last.WarcID, URL: ex.URL, Date: last.WarcDate, PayloadDigest: last.WarcDigest}
		c, err = f.warc.WriteRevisit(warc.Revisit{Profile: p, Exchange: ex, Ref: ref})
		return c, false, err
	}
	c, err = f.warc.WriteExchange(ex)
	return c, err == nil && resp.Status/100 == 2 && !cp.cut, err
}

// openWarc starts the run's WARC files under OUT/warc, named
// JOB-RUN-TIMESTAMP-SERIAL.warc.gz.
func openWarc(cfg *Config, agent string, run frontier.Run) (*warc.Writer, error) {
	software := cfg.Software
	if software == "" {
		software = "polite"
	}
	w, err := warc.Open(filepath.Join(cfg.OutDir, "warc"), warc.Options{
		Prefix:  warcPrefix(cfg.Job, run.ID, run.StartedAt),
		MaxSize: cfg.WarcSize,
		Info: warc.Info{Software: software, UserAgent: cfg.UserAgent, Robots: "obey (product token " + agent + ")",
			Job: cfg.Job, Run: strconv.FormatInt(run.ID, 10)},
	})
	if err != nil {
		return nil, fmt.Errorf("open WARC files: %w", err)
	}
	return w, nil
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// warcPrefix is JOB-RUN-TIMESTAMP with the job made safe for a file name:
// what is not a letter, digit, '.', '_' or '-' becomes '_', and a long job
// is cut.
func warcPrefix(job string, run int64, start time.Time) string {
	safe := unsafeName.ReplaceAllString(job, "_")
	if len(safe) > 100 {
		safe = safe[:100]
	}
	if safe == "" || !isAlnum(safe[0]) {
		safe = "job" + safe
	}
	return fmt.Sprintf("%s-%d-%s", safe, run, start.UTC().Format("20060102T150405Z"))
}

func isAlnum(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// connNote is what one request learns of its connection: the address
// dialled (from httptrace's GotConn), unless the guard sent it through a
// proxy.
type connNote struct {
	mu      sync.Mutex
	ip      string
	proxied bool
}

type connNoteKey struct{}

// withConnNote returns ctx with a note that the request's trace fills.
func withConnNote(ctx context.Context) (context.Context, *connNote) {
	n := &connNote{}
	ctx = context.WithValue(ctx, connNoteKey{}, n)
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: n.gotConn}), n
}

func connNoteOf(ctx context.Context) *connNote {
	n, _ := ctx.Value(connNoteKey{}).(*connNote)
	return n
}

func (n *connNote) gotConn(info httptrace.GotConnInfo) {
	host, _, err := net.SplitHostPort(info.Conn.RemoteAddr().String())
	if err != nil {
		return
	}
	n.mu.Lock()
	n.ip = host
	n.mu.Unlock()
}

func (n *connNote) viaProxy() {
	n.mu.Lock()
	n.proxied = true
	n.mu.Unlock()
}

// addr is the server's address, "" when it is not known.
func (n *connNote) addr() string {
	if n == nil {
		return ""
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.proxied {
		return ""
	}
	return n.ip
}
