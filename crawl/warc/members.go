package warc

import (
	"bytes"
	"io"
	"runtime"

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

// encoders lends out members to compress fetches with, at most one per
// CPU: more would only wait for a CPU, and each holds a gzip writer of
// about 800 KB. They are made as first needed.
type encoders chan *members

func newEncoders() encoders {
	e := make(encoders, runtime.GOMAXPROCS(0))
	for range cap(e) {
		e <- nil
	}
	return e
}

// get waits for a free members.
func (e encoders) get() *members {
	if m := <-e; m != nil {
		return m
	}
	return newMembers()
}

// put gives m back, without the buffer of a large fetch.
func (e encoders) put(m *members) {
	if m.buf.Cap() > 1<<20 {
		m.buf = bytes.Buffer{}
	}
	e <- m
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
