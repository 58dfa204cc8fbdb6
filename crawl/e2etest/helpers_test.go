package e2etest

import "github.com/polite-crawler/polite/crawl/crawltest"

// The fixtures shared with crawl's own end-to-end tests.
var (
	fastConfig   = crawltest.FastConfig
	mustOpen     = crawltest.OpenDB
	sitemapStats = crawltest.SitemapStats
)
