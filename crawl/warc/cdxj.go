package warc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	gowarc "github.com/nlnwa/gowarc/v3"
)

// cdxLine is one capture in the CDXJ index, with the fields and field
// order pywb and warcio's cdx-index use.
type cdxLine struct {
	URLKey    string `json:"-"`
	Timestamp string `json:"-"`
	URL       string `json:"url"`
	Mime      string `json:"mime,omitempty"`
	Status    string `json:"status,omitempty"`
	Digest    string `json:"digest,omitempty"`
	Length    int64  `json:"length,string"`
	Offset    int64  `json:"offset,string"`
	File      string `json:"filename"`
}

// newCDXLine indexes rec, the response or revisit record of ex; the
// writer fills in the file, offset and length.
func newCDXLine(ex Exchange, rec gowarc.WarcRecord) cdxLine {
	l := cdxLine{
		URLKey:    surt(ex.URL),
		Timestamp: ex.Date.UTC().Format("20060102150405"),
		URL:       ex.URL,
		Mime:      "warc/revisit",
	}
	if rec.Type() != gowarc.Revisit {
		l.Mime = headerValue(ex.ResponseHead, "content-type")
		if i := strings.IndexByte(l.Mime, ';'); i >= 0 {
			l.Mime = l.Mime[:i]
		}
		l.Mime = strings.TrimSpace(l.Mime)
	}
	if s := statusCode(ex.ResponseHead); s > 0 {
		l.Status = strconv.Itoa(s)
	}
	if d := rec.WarcHeader().Get(gowarc.WarcPayloadDigest); d != "" {
		_, l.Digest, _ = strings.Cut(d, ":")
	}
	return l
}

// statusCode is the code in an HTTP status line, 0 when there is none.
func statusCode(head []byte) int {
	line, _, _ := bytes.Cut(head, []byte("\n"))
	f := strings.Fields(string(line))
	if len(f) < 2 || !strings.HasPrefix(f[0], "HTTP/") {
		return 0
	}
	n, err := strconv.Atoi(f[1])
	if err != nil || n < 100 || n > 999 {
		return 0
	}
	return n
}

// headerValue is the first value of the header field name (lower case)
// in an HTTP head, "" when absent.
func headerValue(head []byte, name string) string {
	_, rest, _ := bytes.Cut(head, []byte("\n")) // the status line
	for len(rest) > 0 {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		k, v, ok := bytes.Cut(line, []byte(":"))
		if ok && strings.EqualFold(string(bytes.TrimSpace(k)), name) {
			return string(bytes.TrimSpace(v))
		}
	}
	return ""
}

var wwwRE = regexp.MustCompile(`^(https?://)www\d*\.`)

// surt is the sort-friendly URL key of a capture, as warcio and pywb make
// it: scheme and "www." dropped, host labels reversed, query arguments
// sorted, all lower case ("com,example)/a?b=1&c=2").
func surt(raw string) string {
	if !strings.HasPrefix(raw, "http:") && !strings.HasPrefix(raw, "https:") {
		return raw
	}
	noWWW := raw
	if strings.Contains(raw, "://www") {
		noWWW = wwwRE.ReplaceAllString(raw, "$1")
	}
	u, err := url.Parse(strings.ToLower(noWWW))
	if err != nil || u.Host == "" {
		return raw
	}
	labels := strings.Split(u.Hostname(), ".")
	slices.Reverse(labels)
	key := strings.Join(labels, ",")
	if p := u.Port(); p != "" && !(u.Scheme == "http" && p == "80") && !(u.Scheme == "https" && p == "443") {
		key += ":" + p
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	key += ")" + path
	if u.RawQuery != "" {
		args := strings.Split(u.RawQuery, "&")
		slices.Sort(args)
		key += "?" + strings.Join(args, "&")
	}
	return key
}

func (l cdxLine) String() string {
	var b strings.Builder
	b.WriteString(l.URLKey + " " + l.Timestamp + " ")
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // "&" in a query stays "&", as warcio writes it
	enc.Encode(l)            // strings and integers only: it cannot fail
	return strings.TrimSuffix(b.String(), "\n")
}

// indexPath is the index beside a WARC file: NAME.warc.gz -> NAME.cdxj.
func indexPath(warcPath string) string {
	return strings.TrimSuffix(warcPath, ".warc.gz") + ".cdxj"
}

// writeIndex writes lines, sorted as replay tools search them, to path:
// to a temporary name first, renamed once synced, so an index is whole
// or absent.
func writeIndex(path string, lines []cdxLine) error {
	text := make([]string, len(lines))
	for i, l := range lines {
		text[i] = l.String()
	}
	slices.Sort(text)
	tmp, err := os.CreateTemp(filepath.Dir(path), ".cdxj-*")
	if err != nil {
		return fmt.Errorf("warc: index %s: %w", path, err)
	}
	bw := bufio.NewWriter(tmp)
	for _, t := range text {
		bw.WriteString(t)
		bw.WriteByte('\n')
	}
	err = bw.Flush()
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("warc: index %s: %w", path, err)
	}
	return nil
}
