package output

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// The output folder is an archive across runs. Each run writes its
// manifest lines to a journal of its own, runs/RUN/manifest.pending.jsonl,
// where RUN is the run's folder name (frontier.Run.Folder: the database's
// identity and the run's number);
// merging a journal rewrites manifest.jsonl as the newest line per URL of
// the old manifest and the journal (through a temporary file and a
// rename, so the manifest is never half written), and then renames the
// journal runs/RUN/manifest.jsonl, the run's own lines. A journal a crash
// left pending is merged by the next run. Memory is bounded by the URLs
// of the journals merged, never by the archive.
const (
	ManifestName = "manifest.jsonl"
	runsDir      = "runs"
	pendingName  = "manifest.pending.jsonl"
)

// RunDir is the folder of a run's own files, relative to the output
// folder, for the run's folder name (frontier.Run.Folder).
func RunDir(run string) string { return path.Join(runsDir, run) }

// OpenJournal creates the run's folder and its manifest journal, once
// it knows the manifest can be merged into: absent or a regular file.
func (o *Dir) OpenJournal(run string) (*os.File, error) {
	if fi, err := o.root.Lstat(ManifestName); err == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", ManifestName)
	}
	if run == "" || run != path.Base(run) || run == "." || run == ".." {
		return nil, fmt.Errorf("run folder name %q is not a plain name", run)
	}
	for _, d := range []string{runsDir, RunDir(run)} {
		if err := o.root.Mkdir(d, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("create %s: %w", d, err)
		}
	}
	return createNew(o.root, path.Join(RunDir(run), pendingName))
}

// PendingJournals lists the runs whose journals are not merged yet, by
// folder name, oldest run first (by run number, then name), leaving out
// the run skip.
func (o *Dir) PendingJournals(skip string) ([]string, error) {
	ents, err := fs.ReadDir(o.root.FS(), runsDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", runsDir, err)
	}
	var runs []string
	for _, e := range ents {
		if _, ok := runNumber(e.Name()); !ok || e.Name() == skip || !e.IsDir() {
			continue
		}
		if _, err := o.root.Lstat(path.Join(RunDir(e.Name()), pendingName)); err == nil {
			runs = append(runs, e.Name())
		}
	}
	sort.Slice(runs, func(i, j int) bool {
		a, _ := runNumber(runs[i])
		b, _ := runNumber(runs[j])
		if a != b {
			return a < b
		}
		return runs[i] < runs[j]
	})
	return runs, nil
}

// runNumber is the run number a run folder's name ends with: "7" (an
// older polite's) or "3f2a9c01-7"; false for a name that is no run's.
func runNumber(name string) (int64, bool) {
	n, err := strconv.ParseInt(name[strings.LastIndexByte(name, '-')+1:], 10, 64)
	return n, err == nil && n > 0
}

// urlKey identifies a manifest line's URL in the merge: the first 128
// bits of its SHA-256 (two URLs of a run sharing them is a chance of
// about one in 10^26 for a million URLs), half the memory per URL of the
// whole sum, which a merge holds for every URL of the run.
type urlKey [16]byte

// lineURL reads the URL of a manifest line; false for a line that is no
// manifest line (a half line a crash left at a journal's end).
func lineURL(line []byte) (urlKey, bool) {
	u, ok := writtenURL(line)
	if !ok {
		var m struct {
			URL string `json:"url"`
		}
		if json.Unmarshal(line, &m) != nil || m.URL == "" {
			return urlKey{}, false
		}
		u = []byte(m.URL)
	}
	sum := sha256.Sum256(u)
	return urlKey(sum[:16]), true
}

// writtenURL reads the URL of a line as polite writes them,
// {"job":"…","run":N,"url":"…",…} with no escape in the URL, without
// decoding the line (a third of the time); false for any other line,
// which lineURL decodes. (A line with the key twice, which polite never
// writes, reads as its first.)
func writtenURL(line []byte) ([]byte, bool) {
	rest, ok := bytes.CutPrefix(line, []byte(`{"job":"`))
	if !ok || !json.Valid(line) {
		return nil, false
	}
	i := 0
	for ; i < len(rest) && rest[i] != '"'; i++ { // the job's name
		if rest[i] == '\\' {
			i++
		}
	}
	if rest, ok = bytes.CutPrefix(rest[min(i+1, len(rest)):], []byte(`,"run":`)); !ok {
		return nil, false
	}
	rest = bytes.TrimLeft(rest, "0123456789")
	if rest, ok = bytes.CutPrefix(rest, []byte(`,"url":"`)); !ok {
		return nil, false
	}
	u, _, ok := bytes.Cut(rest, []byte{'"'})
	return u, ok && len(u) > 0 && bytes.IndexByte(u, '\\') < 0
}

// eachLine calls fn with every non-empty line of the file name under the
// output folder, its newline cut; a missing file has none. The line is
// fn's only until it returns.
func (o *Dir) eachLine(name string, fn func(line []byte) error) error {
	f, err := o.root.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	var long []byte // a line longer than the reader's buffer, gathered
	for {
		line, err := r.ReadSlice('\n')
		if err == bufio.ErrBufferFull || long != nil {
			long = append(long, line...)
			if err == bufio.ErrBufferFull {
				continue
			}
			line = long
		}
		if n := len(line); n > 0 && line[n-1] == '\n' {
			line = line[:n-1]
		}
		if len(line) > 0 {
			if ferr := fn(line); ferr != nil {
				return ferr
			}
		}
		long = nil
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// countLines counts the lines of the file name under the output folder,
// a last one without its newline included; a missing file has none.
func (o *Dir) countLines(name string) (int, error) {
	f, err := o.root.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	n, last := 0, byte('\n')
	for {
		m, err := f.Read(buf)
		if m > 0 {
			n += bytes.Count(buf[:m], []byte{'\n'})
			last = buf[m-1]
		}
		if err == io.EOF {
			if last != '\n' {
				n++
			}
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// lineAt is where the newest line of a URL is: which journal, which line.
type lineAt struct{ journal, line int32 }

// newestLines is where each URL's newest journal line is: sorted by URL
// key, one entry a URL, 24 bytes each (a map took about four times that).
type newestLines []newestLine

// newestLine is a URL's key and where its newest line is.
type newestLine struct {
	k  urlKey
	at lineAt
}

// sortNewest sorts n by key and keeps, of each key, the newest line (the
// last added).
func (n newestLines) sortNewest() newestLines {
	slices.SortStableFunc(n, func(a, b newestLine) int { return bytes.Compare(a.k[:], b.k[:]) })
	out := n[:0]
	for _, e := range n {
		if len(out) > 0 && out[len(out)-1].k == e.k {
			out[len(out)-1] = e
			continue
		}
		out = append(out, e)
	}
	return out
}

// find returns the newest line of k, false for a URL no journal has.
func (n newestLines) find(k urlKey) (lineAt, bool) {
	i := sort.Search(len(n), func(i int) bool { return string(n[i].k[:]) >= string(k[:]) })
	if i < len(n) && n[i].k == k {
		return n[i].at, true
	}
	return lineAt{}, false
}

// MergeJournals merges the journals of runs ids (oldest first) into
// manifest.jsonl: every line of the old manifest whose URL no journal
// has, then the newest journal line of each URL. It then renames each
// journal the run's own manifest.
func (o *Dir) MergeJournals(runs []string) error {
	names := make([]string, len(runs))
	most := 0 // the journals' lines: newest is made to hold them, not grown
	for j, run := range runs {
		names[j] = path.Join(RunDir(run), pendingName)
		n, err := o.countLines(names[j])
		if err != nil {
			return fmt.Errorf("merge manifest: read %s: %w", names[j], err)
		}
		most += n
	}
	newest := make(newestLines, 0, most)
	lines := make([]int32, len(runs)) // each journal's non-empty lines
	for j := range runs {
		err := o.eachLine(names[j], func(line []byte) error {
			if k, ok := lineURL(line); ok {
				newest = append(newest, newestLine{k, lineAt{int32(j), lines[j]}})
			}
			lines[j]++
			return nil
		})
		if err != nil {
			return fmt.Errorf("merge manifest: read %s: %w", names[j], err)
		}
	}
	newest = newest.sortNewest()
	// keep[j][n]: line n of journal j is its URL's newest, and is written.
	keep := make([][]bool, len(runs))
	for j, n := range lines {
		keep[j] = make([]bool, n)
	}
	for _, e := range newest {
		keep[e.at.journal][e.at.line] = true
	}
	err := o.replace(ManifestName, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 64<<10)
		err := o.eachLine(ManifestName, func(line []byte) error {
			if k, ok := lineURL(line); ok {
				if _, again := newest.find(k); !again {
					return writeLine(bw, line)
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("read %s: %w", ManifestName, err)
		}
		for j, name := range names {
			n := 0
			err := o.eachLine(name, func(line []byte) error {
				n++
				if n > len(keep[j]) { // the journal grew since it was read
					return fmt.Errorf("%s has more lines than it had", name)
				}
				if keep[j][n-1] {
					return writeLine(bw, line)
				}
				return nil
			})
			if err != nil {
				return fmt.Errorf("read %s: %w", name, err)
			}
		}
		return bw.Flush()
	})
	if err != nil {
		return fmt.Errorf("merge manifest: %w", err)
	}
	for j, run := range runs {
		if err := o.root.Rename(names[j], path.Join(RunDir(run), ManifestName)); err != nil {
			return fmt.Errorf("merge manifest: %w", err)
		}
	}
	return nil
}

func writeLine(w *bufio.Writer, line []byte) error {
	if _, err := w.Write(line); err != nil {
		return err
	}
	return w.WriteByte('\n')
}

// WriteReports writes a run's report.json (data, compact JSON, indented
// as it is written: WriteIndented) and report.html (what html writes) into
// its own folder, runs/RUN, and copies them to the top of the output
// folder, where they are the latest run's.
func (o *Dir) WriteReports(run string, data []byte, html func(io.Writer) error) error {
	own := RunDir(run)
	err := o.replace(path.Join(own, "report.json"), func(w io.Writer) error {
		return WriteIndented(w, data)
	})
	if err == nil {
		err = o.replace(path.Join(own, "report.html"), html)
	}
	for _, name := range []string{"report.json", "report.html"} {
		if err == nil {
			err = o.replace(name, func(w io.Writer) error { return o.copyFile(w, path.Join(own, name)) })
		}
	}
	return err
}

// copyFile writes the file name under the output folder to w.
func (o *Dir) copyFile(w io.Writer, name string) error {
	f, err := o.root.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}
