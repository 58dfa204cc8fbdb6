package e2etest

import "github.com/polite-crawler/polite/crawl/internal/crawlfix"

// The fixtures shared with crawl's own end-to-end tests.
var (
	fastConfig   = crawlfix.FastConfig
	mustOpen     = crawlfix.OpenDB
	serve        = crawlfix.Serve
	sitemapCrawl = crawlfix.SitemapCrawl
	sitemapStats = crawlfix.SitemapStats
)
