package warc

import (
	"bytes"
	"io"
	"sync"

	"github.com/klauspost/compress/gzip"
	gowarc "github.com/nlnwa/gowarc/v3"
)

// gzipLevel is the compression of every record: gzip's fastest level. At
// a thousand pages a second the default level cost the crawl a quarter
// of its throughput for files about a tenth smaller.
const gzipLevel = gzip.BestSpeed

var marshaler = gowarc.NewMarshaler()

// members is a fetch's records compressed, each as its own gzip member,
// ready to be appended to a WARC file.
type members struct {
	gz   *gzip.Writer
	copy []byte       // ReadFrom's buffer
	buf  bytes.Buffer // the members, one after the other
	ends []int        // where each member ends in buf
	info string       // the WARC-Warcinfo-ID they name, "" for none
}

func newMembers() *members {
	gz, err := gzip.NewWriterLevel(nil, gzipLevel)
	if err != nil {
		panic(err) // gzipLevel is a valid level
	}
	return &members{gz: gz, copy: make([]byte, 32<<10)}
}

var memberPool = sync.Pool{New: func() any { return newMembers() }}

func getMembers() *members { return memberPool.Get().(*members) }

// putMembers keeps m for another fetch, unless it grew past 1 MiB
// holding a large one.
func putMembers(m *members) {
	if m.buf.Cap() <= 1<<20 {
		memberPool.Put(m)
	}
}

// encode compresses recs into m, each naming the warcinfo record info
// (none when ""), in place of what m held.
func (m *members) encode(info string, recs ...gowarc.WarcRecord) error {
	m.buf.Reset()
	m.ends = m.ends[:0]
	m.info = info
	for _, r := range recs {
		if info != "" {
			r.WarcHeader().SetId(gowarc.WarcWarcinfoID, info)
		}
		m.gz.Reset(&m.buf)
		if _, _, err := marshaler.Marshal(gzipWriter{m}, r, 0); err != nil {
			return err
		}
		if err := m.gz.Close(); err != nil {
			return err
		}
		m.ends = append(m.ends, m.buf.Len())
	}
	return nil
}

// gzipWriter writes into m's gzip writer. Its ReadFrom copies a record's
// block through m's buffer, where io.Copy would allocate 32 KiB for each.
type gzipWriter struct{ m *members }

func (w gzipWriter) Write(p []byte) (int, error) { return w.m.gz.Write(p) }

func (w gzipWriter) ReadFrom(r io.Reader) (int64, error) {
	return io.CopyBuffer(struct{ io.Writer }{w.m.gz}, r, w.m.copy)
}
