package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The throughput scenario's --warc row: the origins' pages need
// requisites of their own, which polite fetches with --warc (--requisites
// any-host, its default there); the row counts complete pages, a page
// with all its requisites, and the pages the WARC files' indexes list.

// benchRequisites is how many requisites each page of the throughput
// origins needs (an image, a stylesheet, a script); polite fetches them
// with --warc only.
const benchRequisites = 3

// completeRate is complete pages (a page with its requisites) per second.
func (f crawlerFigures) completeRate() float64 {
	if f.wall <= 0 {
		return 0
	}
	return float64(f.complete) / f.wall.Seconds()
}

// requisiteOf returns the page a requisite's path (/req/N/I.EXT) belongs
// to, N.
func requisiteOf(path string) (string, bool) {
	rest, ok := strings.CutPrefix(path, "/req/")
	if !ok {
		return "", false
	}
	page, _, _ := strings.Cut(rest, "/")
	return page, true
}

// warcCaptures counts the 200 page captures (robots.txt left out) that
// the CDXJ indexes beside the WARC files in dir list.
func warcCaptures(dir string) (int, error) {
	idx, err := filepath.Glob(filepath.Join(dir, "*.cdxj"))
	if err != nil || len(idx) == 0 {
		return 0, fmt.Errorf("no WARC index in %s: %v", dir, err)
	}
	n := 0
	for _, p := range idx {
		data, err := os.ReadFile(p)
		if err != nil {
			return n, err
		}
		for line := range strings.Lines(string(data)) {
			_, js, _ := strings.Cut(line, " {")
			var c struct {
				URL    string `json:"url"`
				Status string `json:"status"`
			}
			if err := json.Unmarshal([]byte("{"+js), &c); err != nil {
				return n, fmt.Errorf("%s: %w", p, err)
			}
			if c.Status == "200" && strings.Contains(c.URL, "/page/") {
				n++
			}
		}
	}
	return n, nil
}
