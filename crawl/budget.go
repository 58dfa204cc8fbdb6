package crawl

import (
	"slices"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// budgets counts what a run spends against its limits: requests, bytes
// and retries (which successes earn). Only the loop goroutine touches it.
type budgets struct {
	cfg       *Config
	requests  int
	bytes     int64
	successes int
	retries   int
	bound     []frontier.Budget // the budgets that bound, in the order they did
}

// spent names the run-wide budget that is spent (BudgetMaxRequests,
// BudgetMaxBytes), or "" while both last.
func (b *budgets) spent() frontier.Budget {
	switch {
	case b.cfg.MaxRequests > 0 && b.requests >= b.cfg.MaxRequests:
		return frontier.BudgetMaxRequests
	case b.cfg.MaxBytes > 0 && b.bytes >= b.cfg.MaxBytes:
		return frontier.BudgetMaxBytes
	}
	return ""
}

// hostSpent reports whether a host that has had n requests spent
// --max-per-host; the first time, the budget counts as bound.
func (b *budgets) hostSpent(n int) bool {
	if b.cfg.MaxPerHost <= 0 || n < b.cfg.MaxPerHost {
		return false
	}
	b.bind(frontier.BudgetMaxPerHost)
	return true
}

// retryAllowed reports whether the retry budget has room for one more
// retry: RetryBase plus RetryRatio of the successes so far.
func (b *budgets) retryAllowed() bool {
	return float64(b.retries) < float64(b.cfg.RetryBase)+b.cfg.RetryRatio*float64(b.successes)
}

// bind records that a budget bound; it reports whether it is the first time.
func (b *budgets) bind(name frontier.Budget) bool {
	if slices.Contains(b.bound, name) {
		return false
	}
	b.bound = append(b.bound, name)
	return true
}
