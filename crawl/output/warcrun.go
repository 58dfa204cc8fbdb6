package output

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/polite-crawler/polite/crawl/fetch"
	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/warc"
)

// This file keeps a crawl's fetches as WARC records (--warc). The fetch
// goroutines write them, so the loop never waits on a WARC file; the
// Writer serialises the records of concurrent fetches. The payload kept is
// the body as polite decoded it (see fetch.Capture).

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

// Archive writes the fetch of u, begun at at on the crawl's clock (the
// WARC-Date: when the capture began; the client's own time when zero), as
// WARC records: a request, and a revisit of last's capture or a response. newest says the capture is the URL's
// latest to refer to (a whole 2xx response). A fetch that got no answer,
// or whose body failed to arrive, writes nothing.
func Archive(w *warc.Writer, u *url.URL, resp fetch.Response, last frontier.Entry, at time.Time) (c warc.Capture, newest bool, err error) {
	cp := resp.Capture
	if w == nil || cp == nil {
		return warc.Capture{}, false, nil
	}
	if at.IsZero() {
		at = cp.At
	}
	if resp.Reason.Usage() {
		// The content is not kept: a record says what was left out and why.
		return warc.Capture{}, false, w.WriteMetadata(u.String(), at, [][2]string{
			{"status", strconv.Itoa(resp.Status)}, {"not-kept", resp.Reason.String()}})
	}
	ex := warc.Exchange{URL: u.String(), Date: at, IP: cp.IP, Request: cp.Request,
		ResponseHead: cp.Head, Payload: cp.Payload, Truncated: cp.Cut, Protocol: cp.Protocol}
	digest := ""
	if last.WarcID != "" && resp.Status == http.StatusOK {
		digest = warc.PayloadDigest(cp.Payload)
	}
	if p := revisitOf(resp.Status, cp.Cut, digest, last); p != 0 {
		ref := warc.Ref{RecordID: last.WarcID, URL: ex.URL, Date: last.WarcDate, PayloadDigest: last.WarcDigest}
		c, err = w.WriteRevisit(warc.Revisit{Profile: p, Exchange: ex, Ref: ref})
		return c, false, err
	}
	c, err = w.WriteExchange(ex)
	return c, err == nil && resp.Status/100 == 2 && !cp.Cut, err
}

// Warc is what names and heads a run's WARC files.
type Warc struct {
	OutDir string // the output folder; the files go to OutDir/warc
	Job    string
	// Name is the job's display name, which the files' names and
	// warcinfo carry; "" for the short name of Job (JobName).
	Name      string
	Software  string       // name and version, "polite/1.4.0"; "" for "polite"
	UserAgent string       // sent on every request
	Agent     string       // the product token robots.txt is obeyed for
	MaxSize   int64        // a file is closed at MaxSize (0: warc.DefaultMaxSize)
	Log       *slog.Logger // told of the files of earlier runs indexed again; nil: not told
	Purpose   string       // --purpose, for warcinfo
	Redacted  []string     // the secret request headers, whose values the records hide
	// Requisites is the crawl's --requisites, told in the warcinfo.
	Requisites string
	// Files records each file begun, for polite wacz; nil for none.
	Files WarcFiles
}

// WarcFiles records the WARC files a run writes: a store plays it.
type WarcFiles interface {
	AddWarcFile(f frontier.WarcFile) error
}

// OpenWarc starts the run's WARC files under OUT/warc, named
// JOB-RUN-TIMESTAMP-SERIAL-WORKER.warc.gz, and records each in cfg.Files.
// First it writes the index that an earlier run left unwritten (killed,
// or its disk full) beside each of its files (warc.Reindex); a file it
// cannot read is logged, and left.
func OpenWarc(cfg Warc, run frontier.Run) (*warc.Writer, error) {
	dir := filepath.Join(cfg.OutDir, "warc")
	if done, err := warc.Reindex(dir); cfg.Log != nil && (len(done) > 0 || err != nil) {
		cfg.Log.Warn("WARC files of an earlier run had no index", "indexed", len(done), "err", err)
	}
	software := cfg.Software
	if software == "" {
		software = "polite"
	}
	name := cfg.Name
	if name == "" {
		name = JobName(cfg.Job)
	}
	worker := Worker()
	var onFile func(string) error
	if cfg.Files != nil {
		onFile = func(path string) error {
			if abs, err := filepath.Abs(path); err == nil {
				path = abs // polite wacz may run from another folder
			}
			return cfg.Files.AddWarcFile(frontier.WarcFile{Job: cfg.Job, Run: run.ID, Worker: worker, Path: path})
		}
	}
	w, err := warc.Open(dir, warc.Options{
		Prefix:  warcPrefix(name, run.ID, run.StartedAt),
		Worker:  worker,
		OnFile:  onFile,
		MaxSize: cfg.MaxSize,
		Info: warc.Info{Software: software, UserAgent: cfg.UserAgent, Robots: "obey (product token " + cfg.Agent + ")",
			Job: name, Run: strconv.FormatInt(run.ID, 10), Purpose: cfg.Purpose,
			Requisites: cfg.Requisites, Redacted: redactedNote(cfg.Redacted)},
	})
	if err != nil {
		return nil, fmt.Errorf("open WARC files: %w", err)
	}
	return w, nil
}

// redactedNote is the warcinfo's word on the secret headers: their
// values, and the cookies set in answer to them, are written as
// [redacted]; "" with none.
func redactedNote(names []string) string {
	if len(names) == 0 {
		return ""
	}
	return "request headers " + strings.Join(names, ", ") + " and the Set-Cookie of their answers are written as [redacted]"
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// Worker is this process's identity in a WARC file name, HOST~PID, the
// host name made safe for a file name.
func Worker() string {
	h := frontier.ThisProcess("")
	host := unsafeName.ReplaceAllString(h.Hostname, "_")
	if len(host) > 60 {
		host = host[:60]
	}
	return fmt.Sprintf("%s~%d", host, h.PID)
}

// JobName is the short name WARC files show for a job given no display
// name, instead of a seed file's path: the file's base name without its
// extension.
func JobName(job string) string {
	short := filepath.Base(job)
	if ext := filepath.Ext(short); ext != "" && ext != short {
		short = strings.TrimSuffix(short, ext)
	}
	return short
}

// warcPrefix is JOB-RUN-TIMESTAMP with the job's display name made safe
// for a file name:
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
