package warc

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/nlnwa/gowarc/v3"
)

// WriteMetadata writes a metadata record about url: a block of WARC
// fields (application/warc-fields), each a name and a value on one line.
// polite writes one in place of a response whose content it did not keep
// (the site's usage preferences refuse the crawl's purpose), naming the
// rule that said so.
func (w *Writer) WriteMetadata(url string, date time.Time, fields [][2]string) error {
	if strings.ContainsAny(url, " \r\n\t") {
		return fmt.Errorf("warc: URL %q has white space", url)
	}
	var buf bytes.Buffer
	for _, f := range fields {
		if strings.ContainsAny(f[0]+f[1], "\r\n") {
			return fmt.Errorf("warc: metadata of %s: field %s has a line break", url, f[0])
		}
		fmt.Fprintf(&buf, "%s: %s\r\n", f[0], f[1])
	}
	b, id := newBuilder(gowarc.Metadata, w.rec)
	b.AddWarcHeader(gowarc.WarcRecordID, id)
	b.AddWarcHeader(gowarc.WarcDate, formatDate(date))
	b.AddWarcHeader(gowarc.WarcTargetURI, url)
	b.AddWarcHeader(gowarc.ContentType, gowarc.ApplicationWarcFields)
	if _, err := b.Write(buf.Bytes()); err != nil {
		b.Close()
		return fmt.Errorf("warc: metadata of %s: %w", url, err)
	}
	r, _, err := b.Build()
	if err != nil {
		return fmt.Errorf("warc: metadata of %s: %w", url, err)
	}
	defer r.Close()
	return w.write([]gowarc.WarcRecord{r}, func(*warcFile, []span) {})
}
