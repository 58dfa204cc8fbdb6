// Package output owns a crawl's output folder: the bodies and their file
// names, the manifest and its per-run journals, the run reports, and the
// run's WARC records.
package output

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/urls"
)

// maxNameBytes bounds the readable part of a body's file name.
const maxNameBytes = 80

// BodyPath maps a normalised URL and the Content-Type of its answer to a
// file path relative to the output folder: "HOST/READABLE-HASH.EXT". The
// host folder is the host as a person reads it, port included
// ("127.0.0.1:8080"); the file name is the URL path flattened to a safe
// alphabet, clipped, and suffixed with 12 hex digits of the URL's SHA-256,
// so that no two URLs share a file, no URL can name a folder of its own,
// and nothing ("..", "%2e%2e", "\\", NUL, reserved device names, very long
// paths) can leave the output folder. The extension is the one of the
// URL's last segment, or else the one of the Content-Type (bodyExt). Only
// [A-Za-z0-9._-] appear in either part, and ":" in the host folder; neither
// starts with a dot, and no body is named like a temporary file (".part").
func BodyPath(u *url.URL, contentType string) string {
	sum := sha256.Sum256([]byte(u.String()))
	tag := hex.EncodeToString(sum[:6])

	host := safeHost(u.Host)
	if host == "" || reservedName(host) {
		host = "_" + host
	}
	p := u.EscapedPath()
	ext := ""
	if e := path.Ext(p); urlExt(e) {
		ext, p = e, strings.TrimSuffix(p, e)
	} else {
		ext = typeExt(contentType)
	}
	name := safeName(strings.Trim(strings.ReplaceAll(p, "/", "_"), "_"), maxNameBytes)
	if name == "" {
		name = "index"
	}
	return host + "/" + name + "-" + tag + ext
}

// urlExt reports whether e, path.Ext of a URL's path, is an extension a
// body may keep: a dot and 1 to 7 bytes of [A-Za-z0-9_-], nothing escaped,
// not ".part".
func urlExt(e string) bool {
	if len(e) < 2 || len(e) > 8 || strings.EqualFold(e, ".part") {
		return false
	}
	for i := 1; i < len(e); i++ {
		if c := e[i]; c == '.' || c == '~' || !urls.Unreserved(c) {
			return false
		}
	}
	return true
}

// typeExts are the extensions of the media types a crawl commonly meets,
// for bodies whose URL names none. A fixed table, not the system's MIME
// database, so that names do not depend on the machine.
var typeExts = map[string]string{
	"text/html":              ".html",
	"application/xhtml+xml":  ".xhtml",
	"application/json":       ".json",
	"application/ld+json":    ".json",
	"application/pdf":        ".pdf",
	"text/plain":             ".txt",
	"text/css":               ".css",
	"text/csv":               ".csv",
	"text/markdown":          ".md",
	"text/javascript":        ".js",
	"application/javascript": ".js",
	"application/xml":        ".xml",
	"text/xml":               ".xml",
	"application/rss+xml":    ".xml",
	"application/atom+xml":   ".xml",
	"image/png":              ".png",
	"image/jpeg":             ".jpg",
	"image/gif":              ".gif",
	"image/webp":             ".webp",
	"image/svg+xml":          ".svg",
	"application/zip":        ".zip",
	"application/gzip":       ".gz",
}

// typeExt is the extension for a Content-Type, "" for one not in typeExts.
func typeExt(ct string) string {
	mt, _, _ := strings.Cut(ct, ";")
	return typeExts[strings.ToLower(strings.TrimSpace(mt))]
}

// safeHost is a host folder's name: the host and port as a person reads
// them ("example.org:8080"; an IPv6 literal with "_" for its "[]:"), every byte outside [A-Za-z0-9.:_-] turned into "_", no leading
// dot (so never "." or ".."), at most 100 bytes.
func safeHost(h string) string {
	b := []byte(h)
	colon := !strings.HasPrefix(h, "[") // an IPv6 literal keeps none of its "[]:"
	for i, c := range b {
		if (c != ':' || !colon) && (!urls.Unreserved(c) || c == '~') {
			b[i] = '_'
		}
	}
	out := strings.TrimLeft(string(b), ".")
	if len(out) > 100 {
		out = out[:100]
	}
	return out
}

// safeName keeps [A-Za-z0-9._-], turns every other byte into "_", strips
// leading dots (no hidden or "..") and clips to n bytes.
func safeName(s string, n int) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if urls.Unreserved(c) && c != '~' {
			b = append(b, c)
		} else {
			b = append(b, '_')
		}
	}
	out := strings.TrimLeft(string(b), ".")
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// reservedName reports whether a folder name is a device name on Windows
// (CON, PRN, AUX, NUL, COM1-9, LPT1-9, with or without an extension), which
// no file system shared with Windows can hold. File names never are: they
// end in "-HASH".
func reservedName(name string) bool {
	base, _, _ := strings.Cut(strings.ToUpper(name), ".")
	switch base {
	case "CON", "PRN", "AUX", "NUL":
		return true
	}
	return len(base) == 4 && (strings.HasPrefix(base, "COM") || strings.HasPrefix(base, "LPT")) &&
		base[3] >= '0' && base[3] <= '9'
}

// Dir writes bodies under one folder through an os.Root, so that no
// name, symlink or race can reach outside it. It is safe for concurrent use.
type Dir struct {
	root *os.Root
	dir  string

	mu    sync.Mutex
	hosts map[string]*os.Root // host folders opened this run
}

// Open opens the output folder dir, creating it if it is missing.
func Open(dir string) (*Dir, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create output folder: %w", err)
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("open output folder: %w", err)
	}
	return &Dir{root: r, dir: dir, hosts: map[string]*os.Root{}}, nil
}

// Close closes the folder and the host folders it opened.
func (o *Dir) Close() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, r := range o.hosts {
		r.Close()
	}
	o.hosts = nil
	return o.root.Close()
}

// folder returns the root of a host folder, creating it the first time.
// A non-folder standing under the name (a file, a planted symlink) is an
// error, never followed.
func (o *Dir) folder(d string) (*os.Root, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if r := o.hosts[d]; r != nil {
		return r, nil
	}
	if fi, err := o.root.Lstat(d); err == nil && !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a folder", d)
	} else if errors.Is(err, os.ErrNotExist) {
		if err := o.root.Mkdir(d, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			return nil, err
		}
	}
	r, err := o.root.OpenRoot(d)
	if err != nil {
		return nil, err
	}
	o.hosts[d] = r
	return r, nil
}

// Write stores data under rel ("HOST/NAME", as BodyPath makes), through a
// temporary name and a rename, so the file is either whole under its final
// name or absent, whenever the process dies. (Bodies are not fsynced one
// by one: a power failure may lose the newest, as it may the database's
// last transactions; a re-run fetches what is missing.)
func (o *Dir) Write(rel string, data []byte) error {
	d, name := path.Split(rel)
	root := o.root
	if d != "" {
		var err error
		if root, err = o.folder(path.Clean(d)); err != nil {
			return fmt.Errorf("write %s: %w", rel, err)
		}
	}
	tmp := name + ".part"
	f, err := createNew(root, tmp)
	if err != nil {
		return fmt.Errorf("write %s: %w", rel, err)
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = root.Rename(tmp, name)
	}
	if werr != nil {
		root.Remove(tmp)
		return fmt.Errorf("write %s: %w", rel, werr)
	}
	return nil
}

// Has reports whether a body is stored under rel ("HOST/NAME", as an
// entry keeps it).
func (o *Dir) Has(rel string) bool {
	_, err := o.root.Stat(rel)
	return err == nil
}

// Refused drops the body e keeps when why refuses the URL's content to
// the crawl's purpose (a usage preference, frontier.UsageRefused): the
// file an earlier run wrote is deleted, and e keeps no file, hash, size
// or validators (a conditional request would ask for a body polite no
// longer has). Its WARC capture stays: that record is in an earlier
// file. Any other reason leaves e as it is.
func (o *Dir) Refused(e *frontier.Entry, why frontier.Reason) {
	if !why.Usage() || e.File == "" {
		return
	}
	o.Remove(e.File)
	e.File, e.SHA256, e.Bytes, e.ETag, e.LastModified = "", "", 0, "", ""
}

// Remove deletes the body stored under rel ("HOST/NAME", as an entry
// keeps it), if it is there. A name that is not local to the folder is
// left alone; os.Root keeps any other from reaching outside.
func (o *Dir) Remove(rel string) {
	if !filepath.IsLocal(rel) {
		return
	}
	o.root.Remove(rel)
}

// createNew creates name afresh in root: whatever stands under the name (a
// leftover of a killed run, a planted symlink) is removed, not followed,
// and the file is created exclusively.
func createNew(root *os.Root, name string) (*os.File, error) {
	const flags = os.O_WRONLY | os.O_CREATE | os.O_EXCL
	f, err := root.OpenFile(name, flags, 0o644)
	if !errors.Is(err, os.ErrExist) {
		return f, err
	}
	if err := root.Remove(name); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	return root.OpenFile(name, flags, 0o644)
}

// create opens a file directly under the folder for streaming (manifest).
func (o *Dir) create(name string) (*os.File, error) {
	return createNew(o.root, name)
}

// replace writes a small file whole (reports), through a temporary name.
func (o *Dir) replace(name string, w func(io.Writer) error) error {
	tmp := name + ".part"
	f, err := createNew(o.root, tmp)
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	bw := bufio.NewWriterSize(f, 64<<10) // a template writes piece by piece
	if err = w(bw); err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = o.root.Rename(tmp, name)
	}
	if err != nil {
		o.root.Remove(tmp)
		return fmt.Errorf("write %s: %w", name, err)
	}
	return nil
}
