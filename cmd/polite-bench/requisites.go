package main

import "strings"

// The throughput origins' pages need requisites of their own, which
// polite fetches with --warc (--requisites any-host, its default there):
// the --warc row counts complete pages, a page with all its requisites.

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
