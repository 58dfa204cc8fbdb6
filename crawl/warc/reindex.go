package warc

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	gowarc "github.com/nlnwa/gowarc/v3"
)

// Reindex writes the CDXJ index of each WARC file in dir that has none:
// a file whose run was killed, or whose disk filled, before its index was
// written. The index is read back from the file's own records, and is
// the one the writer would have written. It returns the files indexed,
// and an error naming each file it could not index.
func Reindex(dir string) ([]string, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.warc.gz"))
	if err != nil {
		return nil, err
	}
	var done []string
	var errs []error
	for _, p := range paths {
		if _, err := os.Stat(indexPath(p)); !errors.Is(err, os.ErrNotExist) {
			continue
		}
		lines, err := readIndex(p)
		if err == nil {
			err = writeIndex(indexPath(p), lines)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		done = append(done, p)
	}
	return done, errors.Join(errs...)
}

// readIndex reads the index lines of the file at path: one per response
// or revisit record, its length up to the next record (the file's
// members are contiguous, a fetch's records written whole or not at
// all). A record that cannot be read ends the reading, and is an error.
func readIndex(path string) ([]cdxLine, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("warc: index %s: %w", path, err)
	}
	r, err := gowarc.NewWarcFileReader(path, 0, recordOptions()...)
	if err != nil {
		return nil, fmt.Errorf("warc: index %s: %w", path, err)
	}
	defer r.Close()
	var (
		lines []cdxLine
		last  *cdxLine // the capture whose length the next record's offset gives
	)
	end := func(at int64) {
		if last != nil {
			last.Length = at - last.Offset
			lines = append(lines, *last)
			last = nil
		}
	}
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			rec.Close()
			return nil, fmt.Errorf("warc: index %s: record at byte %d: %w", path, rec.Offset, err)
		}
		end(rec.Offset)
		if t := rec.WarcRecord.Type(); t == gowarc.Response || t == gowarc.Revisit {
			l := indexLine(rec.WarcRecord)
			l.File, l.Offset = filepath.Base(path), rec.Offset
			last = &l
		}
		rec.Close()
	}
	end(info.Size())
	return lines, nil
}

// indexLine is the index line of a response or revisit record read back.
func indexLine(rec gowarc.WarcRecord) cdxLine {
	h := rec.WarcHeader()
	date, _ := time.Parse(time.RFC3339Nano, h.Get(gowarc.WarcDate))
	ex := Exchange{URL: h.Get(gowarc.WarcTargetURI), Date: date}
	if b, ok := rec.Block().(gowarc.ProtocolHeaderBlock); ok {
		ex.ResponseHead = b.ProtocolHeaderBytes()
	}
	return newCDXLine(ex, rec)
}
