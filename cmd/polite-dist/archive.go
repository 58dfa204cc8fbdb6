package main

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// entry is one file or folder of an archive.
type entry struct {
	name string      // slash-separated; a folder's ends in "/"
	src  string      // the file on disk; "" for a folder
	mode fs.FileMode // 0755 or 0644, with fs.ModeDir for a folder
}

// entries lists what specs ("NAME=PATH") put in an archive under root,
// each folder on the way included, sorted by name.
func entries(root string, specs []string) ([]entry, error) {
	byName := map[string]entry{}
	addDirs := func(name string) {
		for d := path.Dir(strings.TrimSuffix(name, "/")); d != "." && d != "/"; d = path.Dir(d) {
			byName[d+"/"] = entry{name: d + "/", mode: fs.ModeDir | 0o755}
		}
	}
	add := func(e entry) error {
		if old, ok := byName[e.name]; ok && old.src != e.src {
			return fmt.Errorf("%s: named twice (%s and %s)", e.name, old.src, e.src)
		}
		byName[e.name] = e
		addDirs(e.name)
		return nil
	}
	for _, spec := range specs {
		name, src, ok := strings.Cut(spec, "=")
		if !ok || name == "" || src == "" {
			return nil, fmt.Errorf("%q: want NAME=PATH", spec)
		}
		if !fs.ValidPath(name) || name == "." {
			return nil, fmt.Errorf("%q: NAME must be a relative slash-separated path without . or .. parts", spec)
		}
		name = path.Join(root, name)
		err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(src, p)
			if err != nil {
				return err
			}
			n := path.Join(name, filepath.ToSlash(rel))
			switch {
			case d.IsDir():
				return add(entry{name: n + "/", mode: fs.ModeDir | 0o755})
			case d.Type().IsRegular():
				info, err := d.Info()
				if err != nil {
					return err
				}
				mode := fs.FileMode(0o644)
				if info.Mode()&0o111 != 0 {
					mode = 0o755
				}
				return add(entry{name: n, src: p, mode: mode})
			}
			return fmt.Errorf("%s: not a regular file or folder", p)
		})
		if err != nil {
			return nil, err
		}
	}
	list := make([]entry, 0, len(byName))
	for _, e := range byName {
		list = append(list, e)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].name < list[j].name })
	return list, nil
}

// writeArchive writes out (.tar.gz or .zip) from specs, every entry dated
// mtime; a failed run leaves no file at out.
func writeArchive(out, root string, specs []string, mtime time.Time) error {
	var pack func(io.Writer, []entry, time.Time) error
	switch {
	case strings.HasSuffix(out, ".tar.gz"):
		pack = packTarGz
	case strings.HasSuffix(out, ".zip"):
		pack = packZip
	default:
		return fmt.Errorf("%s: the name must end in .tar.gz or .zip", out)
	}
	list, err := entries(root, specs)
	if err != nil {
		return err
	}
	return writeFileAtomic(out, func(w io.Writer) error { return pack(w, list, mtime) })
}

func packTarGz(w io.Writer, list []entry, mtime time.Time) error {
	gz, err := gzip.NewWriterLevel(w, gzip.BestCompression) // a zero Header: no time, no name
	if err != nil {
		return err
	}
	tw := tar.NewWriter(gz)
	for _, e := range list {
		h := &tar.Header{Name: e.name, Mode: int64(e.mode.Perm()), ModTime: mtime, Format: tar.FormatUSTAR}
		if e.src == "" {
			h.Typeflag = tar.TypeDir
			if err := tw.WriteHeader(h); err != nil {
				return fmt.Errorf("%s: %w", e.name, err)
			}
			continue
		}
		h.Typeflag = tar.TypeReg
		if err := copyFile(e.src, func(size int64) (io.Writer, error) {
			h.Size = size
			return tw, tw.WriteHeader(h)
		}); err != nil {
			return fmt.Errorf("%s: %w", e.name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

func packZip(w io.Writer, list []entry, mtime time.Time) error {
	zw := zip.NewWriter(w)
	for _, e := range list {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate, Modified: mtime}
		h.SetMode(e.mode)
		if e.src == "" {
			h.Method = zip.Store
			if _, err := zw.CreateHeader(h); err != nil {
				return fmt.Errorf("%s: %w", e.name, err)
			}
			continue
		}
		if err := copyFile(e.src, func(int64) (io.Writer, error) { return zw.CreateHeader(h) }); err != nil {
			return fmt.Errorf("%s: %w", e.name, err)
		}
	}
	return zw.Close()
}

// copyFile copies the file src into the writer open returns once it knows
// the file's size.
func copyFile(src string, open func(size int64) (io.Writer, error)) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	w, err := open(info.Size())
	if err != nil {
		return err
	}
	n, err := io.Copy(w, f)
	if err == nil && n != info.Size() {
		err = fmt.Errorf("%s changed while it was read", src)
	}
	return err
}

// writeSums writes out, a SHA256SUMS file of files by their base names.
func writeSums(out string, files []string) error {
	type sum struct{ name, hex string }
	var sums []sum
	seen := map[string]string{}
	for _, p := range files {
		name := filepath.Base(p)
		if other, ok := seen[name]; ok {
			return fmt.Errorf("%s and %s have one name", other, p)
		}
		seen[name] = p
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		h := sha256.New()
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		sums = append(sums, sum{name, hex.EncodeToString(h.Sum(nil))})
	}
	sort.Slice(sums, func(i, j int) bool { return sums[i].name < sums[j].name })
	return writeFileAtomic(out, func(w io.Writer) error {
		for _, s := range sums {
			if _, err := fmt.Fprintf(w, "%s  %s\n", s.hex, s.name); err != nil {
				return err
			}
		}
		return nil
	})
}

// writeFileAtomic writes name through a temporary file beside it, renamed
// into place once whole.
func writeFileAtomic(name string, write func(io.Writer) error) (err error) {
	f, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close() // a second Close only says it is closed
			os.Remove(f.Name())
		}
	}()
	if err = write(f); err != nil {
		return err
	}
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), name)
}
