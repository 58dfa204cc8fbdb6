package crawl

import (
	"github.com/polite-crawler/polite/crawl/robotscache"
	"github.com/polite-crawler/polite/store"
)

var (
	_ Store             = (*store.DB)(nil)
	_ robotscache.Cache = (*store.DB)(nil)
)
