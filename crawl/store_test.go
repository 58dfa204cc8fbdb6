package crawl

import "github.com/polite-crawler/polite/store"

var (
	_ Store       = (*store.DB)(nil)
	_ RobotsCache = (*store.DB)(nil)
)
