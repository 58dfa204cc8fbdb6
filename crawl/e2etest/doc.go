// Package e2etest holds crawl's end-to-end tests that cannot be fast:
// hostile sitemaps streamed in full (about 200 MB over loopback), the
// check that a run leaves no goroutine, file or connection behind, and
// WARC files read back by warcio.js (node; POLITE_WARCIO_DIR). They
// run crawl.Run against crawltest origins on loopback, in their own
// package so that go test ./crawl/ stays quick. make test runs the
// sitemap test without -race.
package e2etest
