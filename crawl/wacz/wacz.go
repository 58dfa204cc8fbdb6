// Package wacz packages a job's WARC files as one WACZ 1.1.1 file: the
// WARC files under archive/, their CDXJ indexes merged under indexes/,
// the HTML pages captured under pages/pages.jsonl and datapackage.json
// with every file's SHA-256, so that one file replays the job's whole
// history with revisits resolved. Standard library only.
package wacz

import (
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Version is the WACZ specification the files follow.
const Version = "1.1.1"

// Package says what goes into a WACZ file.
type Package struct {
	Title    string    // the job's name
	Software string    // "polite/1.4.0"
	Created  time.Time // stamped in datapackage.json
	// WARCs are the WARC files, each with its index beside it
	// (NAME.warc.gz and NAME.cdxj), in the order they were written.
	WARCs []string
}

// resource is one file of the package, as datapackage.json lists it.
type resource struct {
	Name  string `json:"name"`
	Path  string `json:"path"`
	Hash  string `json:"hash"`
	Bytes int64  `json:"bytes"`
}

// Write writes p as a WACZ file to w. A WARC file or index that is
// missing or unreadable is an error naming it.
func Write(w io.Writer, p Package) error {
	if len(p.WARCs) == 0 {
		return errors.New("wacz: no WARC files to package")
	}
	zw := zip.NewWriter(w)
	var (
		res   []resource
		index []string
		seen  = map[string]bool{}
	)
	for _, path := range p.WARCs {
		name := filepath.Base(path)
		if seen[name] {
			return fmt.Errorf("wacz: two WARC files named %s", name)
		}
		seen[name] = true
		lines, err := readIndex(strings.TrimSuffix(path, ".warc.gz") + ".cdxj")
		if err != nil {
			return err
		}
		index = append(index, lines...)
		r, err := copyFile(zw, "archive/"+name, path, p.Created)
		if err != nil {
			return err
		}
		res = append(res, r)
	}
	slices.Sort(index)
	pages, err := pagesOf(index, p.WARCs)
	if err != nil {
		return err
	}
	for _, f := range []struct {
		path string
		body []byte
	}{
		{"indexes/index.cdxj", []byte(strings.Join(index, "\n") + "\n")},
		{"pages/pages.jsonl", pages},
	} {
		r, err := addBytes(zw, f.path, f.body, p.Created)
		if err != nil {
			return err
		}
		res = append(res, r)
	}
	dp, err := json.MarshalIndent(map[string]any{
		"profile": "data-package", "wacz_version": Version, "title": p.Title, "software": p.Software,
		"created": p.Created.UTC().Format(time.RFC3339), "resources": res,
	}, "", "  ")
	if err != nil {
		return err
	}
	if _, err := addBytes(zw, "datapackage.json", dp, p.Created); err != nil {
		return err
	}
	sum := sha256.Sum256(dp)
	digest, _ := json.Marshal(map[string]string{"path": "datapackage.json", "hash": "sha256:" + hex.EncodeToString(sum[:])})
	if _, err := addBytes(zw, "datapackage-digest.json", digest, p.Created); err != nil {
		return err
	}
	return zw.Close()
}

// readIndex returns the lines of a CDXJ index.
func readIndex(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("wacz: %s is missing: a WARC file's index is written when its run ends", path)
	}
	if err != nil {
		return nil, fmt.Errorf("wacz: %w", err)
	}
	var lines []string
	for l := range strings.SplitSeq(string(b), "\n") {
		if l != "" {
			lines = append(lines, l)
		}
	}
	return lines, nil
}

// copyFile stores the file at path as name, uncompressed (a WARC file is
// compressed already, and replay reads it by range).
func copyFile(zw *zip.Writer, name, path string, at time.Time) (resource, error) {
	f, err := os.Open(path)
	if err != nil {
		return resource{}, fmt.Errorf("wacz: %w", err)
	}
	defer f.Close()
	out, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store, Modified: at})
	if err != nil {
		return resource{}, err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(out, h), bufio.NewReader(f))
	if err != nil {
		return resource{}, fmt.Errorf("wacz: copy %s: %w", path, err)
	}
	return resource{Name: filepath.Base(name), Path: name, Hash: "sha256:" + hex.EncodeToString(h.Sum(nil)), Bytes: n}, nil
}

func addBytes(zw *zip.Writer, name string, b []byte, at time.Time) (resource, error) {
	out, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store, Modified: at})
	if err == nil {
		_, err = out.Write(b)
	}
	if err != nil {
		return resource{}, fmt.Errorf("wacz: write %s: %w", name, err)
	}
	sum := sha256.Sum256(b)
	return resource{Name: filepath.Base(name), Path: name, Hash: "sha256:" + hex.EncodeToString(sum[:]), Bytes: int64(len(b))}, nil
}

// cdxFields are the fields of an index line pages.jsonl is made from.
type cdxFields struct {
	URL    string `json:"url"`
	Mime   string `json:"mime"`
	Status string `json:"status"`
	Length int64  `json:"length,string"`
	Offset int64  `json:"offset,string"`
	File   string `json:"filename"`
}

// page is a line of pages.jsonl.
type page struct {
	ID    string `json:"id"`
	URL   string `json:"url"`
	TS    string `json:"ts"`
	Title string `json:"title,omitempty"`
}

// pagesOf lists the HTML pages answered 200 in the index, with the title
// read from each capture's record.
func pagesOf(index []string, warcs []string) ([]byte, error) {
	paths := map[string]string{}
	for _, p := range warcs {
		paths[filepath.Base(p)] = p
	}
	var b bytes.Buffer
	b.WriteString(`{"format":"json-pages-1.0","id":"pages","title":"All Pages"}` + "\n")
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for i, line := range index {
		f := strings.SplitN(line, " ", 3)
		if len(f) < 3 {
			return nil, fmt.Errorf("wacz: index line %d: want KEY TIMESTAMP JSON, got %.80q", i+1, line)
		}
		var c cdxFields
		if err := json.Unmarshal([]byte(f[2]), &c); err != nil {
			return nil, fmt.Errorf("wacz: index line %d: %w", i+1, err)
		}
		if c.Status != "200" || (c.Mime != "text/html" && c.Mime != "application/xhtml+xml") {
			continue
		}
		ts, err := time.Parse("20060102150405", f[1])
		if err != nil {
			return nil, fmt.Errorf("wacz: index line %d: timestamp %q: %w", i+1, f[1], err)
		}
		id := sha256.Sum256([]byte(f[1] + " " + c.URL))
		enc.Encode(page{ID: hex.EncodeToString(id[:8]), URL: c.URL, TS: ts.UTC().Format(time.RFC3339),
			Title: titleOf(paths[c.File], c.Offset, c.Length)})
	}
	return b.Bytes(), nil
}

var titleRE = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)

// titleOf reads the <title> of the page in the record at offset in the
// WARC file at path; "" when it has none or cannot be read.
func titleOf(path string, offset, length int64) string {
	f, err := os.Open(path)
	if err != nil || length <= 0 {
		return ""
	}
	defer f.Close()
	zr, err := gzip.NewReader(io.NewSectionReader(f, offset, length))
	if err != nil {
		return ""
	}
	b, _ := io.ReadAll(io.LimitReader(zr, 1<<20))
	// WARC head, HTTP head, payload: a gzip payload (kept as sent) is
	// read decoded.
	if parts := bytes.SplitN(b, []byte("\r\n\r\n"), 3); len(parts) == 3 &&
		bytes.Contains(bytes.ToLower(parts[1]), []byte("\ncontent-encoding: gzip")) {
		if gz, err := gzip.NewReader(bytes.NewReader(parts[2])); err == nil {
			b, _ = io.ReadAll(io.LimitReader(gz, 1<<20))
		}
	}
	m := titleRE.FindSubmatch(b)
	if m == nil {
		return ""
	}
	return strings.Join(strings.Fields(html.UnescapeString(string(m[1]))), " ")
}
