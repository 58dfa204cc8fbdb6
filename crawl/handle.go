package crawl

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/polite-crawler/polite/pace"
	"github.com/polite-crawler/polite/robots"
	"github.com/polite-crawler/polite/store"
)

// maxHops bounds a redirect chain.
const maxHops = 10

// handle takes a finished request back into the run's state.
func (c *crawler) handle(r result) {
	h := c.hosts[r.host]
	c.inflight--
	h.inflight--
	now := c.clock.Now()
	if r.robots != nil {
		c.handleRobots(h, r, now)
		return
	}
	e, resp := r.entry, r.resp
	if resp.Reason == "canceled" {
		// Cut by the end of the grace period: not the host's fault.
		e.Attempts--
		e.State = store.Queued
		c.pendingUpdates = append(c.pendingUpdates, e)
		return
	}
	v := c.observe(h, r, now)
	e.LastStatus = resp.Status
	if r.werr != nil {
		c.fatal = fmt.Errorf("write body of %s: %w", e.URL, r.werr)
		c.log.Error("stopping: cannot write bodies", "err", r.werr)
		e.State = store.Queued
		e.Attempts--
		c.pendingUpdates = append(c.pendingUpdates, e)
		return
	}
	switch st := resp.Status; {
	case resp.Err != nil:
		c.failed(h, e, resp.Reason, false, v, now)
	case st == http.StatusNotModified:
		// The body on disk is still current: the entry keeps its file,
		// hash and size, and takes any validators the 304 sends.
		e.FetchedAt = now
		if et := resp.Header.Get("ETag"); et != "" {
			e.ETag = et
		}
		if lm := resp.Header.Get("Last-Modified"); lm != "" {
			e.LastModified = lm
		}
		c.successes++
		c.finishEntry(h, &e, store.NotModified, "")
		c.writeManifest(e, r, now)
	case st >= 200 && st < 300:
		e.FetchedAt, e.File, e.SHA256, e.Bytes = now, r.file, r.sha, int64(len(resp.Body))
		e.ETag, e.LastModified = resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
		c.bytes += e.Bytes
		c.successes++
		c.finishEntry(h, &e, store.Done, "")
		c.writeManifest(e, r, now)
		c.addLinks(e, r)
	case st >= 300 && st < 400:
		e.FetchedAt = now
		c.successes++
		if refused := c.redirect(e, r); refused != "" {
			c.finishEntry(h, &e, store.Dead, refused)
		} else {
			c.finishEntry(h, &e, store.Done, "")
		}
		c.writeManifest(e, r, now)
	case st == http.StatusTooManyRequests || st == http.StatusServiceUnavailable:
		c.failed(h, e, fmt.Sprintf("http-%d", st), true, v, now)
	case st == 500 || st == 502 || st == 504:
		c.failed(h, e, fmt.Sprintf("http-%d", st), false, v, now)
	default:
		e.FetchedAt = now
		c.finishEntry(h, &e, store.Dead, fmt.Sprintf("http-%d", st))
		c.writeManifest(e, r, now)
	}
}

// observe feeds a response into the host's pacer and records it.
func (c *crawler) observe(h *hostRun, r result, now time.Time) pace.Verdict {
	resp, s := r.resp, h.stats
	o := pace.Outcome{Status: resp.Status, TTFB: resp.TTFB, SlowDown: r.slow}
	if resp.Err != nil {
		o.Status = 0
	}
	if resp.Header != nil {
		if ra := resp.Header.Get("Retry-After"); ra != "" && (resp.Status == 429 || resp.Status == 503) {
			if d, ok := pace.ParseRetryAfter(ra, now); ok {
				o.RetryAfter = d
			} else {
				o.BadRetryAfter = ra
			}
		}
		if q, ok := ParseRateLimit(resp.Header, now); ok {
			o.Quota = q
		}
	}
	v := c.pacer.Observe(h.key, now, o)
	if v.Capped != "" {
		c.log.Warn("absurd wait from the server", "host", h.key, "status", resp.Status, "note", v.Capped)
	}
	if v.Raised {
		if err := c.db.Save(c.pacer.State(h.key)); err != nil {
			c.log.Warn("cannot save pace state", "host", h.key, "err", err)
		}
	}
	switch {
	case v.Congestion:
		h.backingOff = true
		c.log.Info("host backing off", "host", h.key, "status", resp.Status, "signal", v.Signal,
			"delay", fmtDur(c.pacer.Delay(h.key, now)), "hold", fmtDur(v.Hold))
	case resp.Err == nil && resp.Status < 400:
		h.backingOff = false
	}
	if o.RetryAfter > 0 {
		s.RetryAfters++
	}
	switch st := resp.Status; {
	case resp.Err != nil:
		s.Errors++
	case st == 304:
		s.S304++
	case st < 300:
		s.S2xx++
	case st < 400:
		s.S3xx++
	case st == 429:
		s.S429++
		c.throttled++
	case st < 500:
		s.S4xx++
	default:
		s.S5xx++
		if st == 503 {
			s.S503++
			c.throttled++
		}
	}
	s.Bytes += int64(len(resp.Body))
	if resp.Err == nil {
		s.latencies = append(s.latencies, resp.TTFB)
	}
	st := resp.Status
	if resp.Err != nil {
		st = 0
	}
	s.Timeline = append(s.Timeline, Point{
		AtS:         now.Sub(c.start).Seconds(),
		DelayS:      c.pacer.Delay(h.key, now).Seconds(),
		LatencyMS:   ms(resp.TTFB),
		Status:      st,
		RetryAfterS: o.RetryAfter.Seconds(),
	})
	c.log.Debug("fetch", "url", r.url.String(), "status", resp.Status, "ttfb", fmtDur(resp.TTFB),
		"delay", fmtDur(c.pacer.Delay(h.key, now)), "err", resp.Reason)
	// How long the server asked polite to stay away (bounded by
	// --max-hold), as a time that the host's entries keep across runs.
	wait := v.Away
	switch {
	case v.Defer:
		h.skip = "deferred: Retry-After beyond --max-retry-after"
		h.deferUntil = now.Add(wait)
		c.log.Info("host deferred to a later run", "host", h.key, "retry_after", fmtDur(wait))
	case o.RetryAfter > 0 && c.cfg.MaxDuration > 0 && now.Add(wait).After(c.start.Add(c.cfg.MaxDuration)):
		// The run ends before the server wants to hear from polite again:
		// stop asking, and leave the host's URLs queued for the next run
		// to resume, not before the Retry-After.
		h.skip, h.budgetSkip = "waiting: Retry-After beyond the end of the run", true
		h.deferUntil = now.Add(wait)
		c.log.Info("host waits for the next run", "host", h.key, "retry_after", fmtDur(wait))
	}
	if !h.deferUntil.IsZero() {
		// The next run honours it too: the pacer keeps it in the state.
		c.pacer.Hold(h.key, now, h.deferUntil, pace.HoldRetryAfter)
		if err := c.db.Save(c.pacer.State(h.key)); err != nil {
			c.log.Warn("cannot save pace state", "host", h.key, "err", err)
		}
	}
	return v
}

// failed decides between a retry and a dead letter for a failed request.
func (c *crawler) failed(h *hostRun, e store.Entry, reason string, congestion bool, v pace.Verdict, now time.Time) {
	retryable := true
	switch reason {
	case "too-large", "tls", "bad-url", "bad-headers", "bad-encoding":
		retryable = false
	case "private-address":
		c.finishEntry(h, &e, store.Excluded, reason)
		return
	}
	switch {
	case v.Defer || h.budgetSkip && !h.deferUntil.IsZero():
		// Not before the server's Retry-After, in this run or the next.
		e.Reason, e.NextAt = reason, later(e.NextAt, h.deferUntil)
		e.State = store.Queued // the run's end holds it: the next run resumes it
		if v.Defer {
			e.State = store.Deferred
			c.counts[store.Deferred]++
		}
		c.pendingUpdates = append(c.pendingUpdates, e)
		return
	case !retryable || e.Attempts >= c.cfg.MaxAttempts:
		e.FetchedAt = now
		c.finishEntry(h, &e, store.Dead, reason)
		c.writeManifest(e, result{url: mustURL(e.URL), resp: response{Status: e.LastStatus}}, now)
		return
	case float64(c.retries) >= float64(c.cfg.RetryBase)+c.cfg.RetryRatio*float64(c.successes):
		e.State, e.Reason = store.Deferred, reason+" (retry budget spent)"
		c.pendingUpdates = append(c.pendingUpdates, e)
		c.counts[store.Deferred]++
		if !contains(c.budgets, "retry-budget") {
			c.budgets = append(c.budgets, "retry-budget")
			c.log.Info("retry budget spent: failures wait for the next run", "retries", c.retries)
		}
		return
	}
	c.retries++
	h.stats.Retries++
	wait := v.Hold // 429, 503: the pacer's penalty and any Retry-After
	if !congestion {
		base := c.retryBase()
		wait = pace.Backoff(time.Duration(e.Attempts-1)*base, base, retryCap, c.cfg.Rand)
	}
	e.State, e.Reason, e.NextAt = store.Queued, reason, now.Add(wait)
	c.pendingUpdates = append(c.pendingUpdates, e)
	h.queued++
	if h.nextAt.IsZero() || e.NextAt.Before(h.nextAt) || len(h.buf) == 0 && h.queued == 1 {
		h.nextAt = e.NextAt
	}
}

// retryCap bounds the backoff before a retry that carries no pacing
// penalty (5xx other than 503, timeouts, resets).
const retryCap = time.Minute

// retryBase is the first backoff before such a retry: twice the default
// floor (1 s with the defaults), at least 10 ms. Later attempts wait
// longer, with decorrelated jitter.
func (c *crawler) retryBase() time.Duration {
	return max(2*c.cfg.Pace.Floor, 10*time.Millisecond)
}

// later returns the later of two times.
func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// finishEntry records an entry's final state for this run; e takes the
// state and reason, so that the manifest line written next shows them.
func (c *crawler) finishEntry(h *hostRun, e *store.Entry, s store.State, reason string) {
	e.State, e.Reason = s, reason
	c.pendingUpdates = append(c.pendingUpdates, *e)
	c.counts[s]++
	if s == store.Dead {
		c.dead = append(c.dead, DeadURL{URL: e.URL, Reason: reason, Attempts: e.Attempts})
	}
}

// redirect puts a 3xx target into the frontier, to pass robots.txt and
// pacing of its own host, at the same depth. It returns why the redirect
// was refused ("" when it was followed, or when there is no Location):
// a scheme other than http(s), an unusable Location, a chain longer than
// maxHops, or a loop back into its own chain.
func (c *crawler) redirect(e store.Entry, r result) string {
	loc := r.resp.Header.Get("Location")
	if loc == "" {
		return ""
	}
	refuse := func(reason string, args ...any) string {
		c.log.Info("redirect refused", append([]any{"url", e.URL, "location", clip(loc, 200), "reason", reason}, args...)...)
		return reason
	}
	ref, err := url.Parse(strings.TrimSpace(loc))
	if err != nil {
		return refuse("bad-redirect", "err", err)
	}
	if s := strings.ToLower(r.url.ResolveReference(ref).Scheme); s != "http" && s != "https" {
		return refuse("redirect-scheme", "scheme", s)
	}
	u, err := resolve(r.url, loc)
	if err != nil {
		return refuse("bad-redirect", "err", err)
	}
	target := u.String()
	if c.inChain(e, target) {
		return refuse("redirect-loop")
	}
	if e.Hops+1 > maxHops {
		return refuse("too-many-redirects", "hops", e.Hops+1)
	}
	if e.Depth > 0 && !inScope(c.cfg.Scope, r.url, u) {
		// A link found on a page may not leave --scope by redirecting;
		// a seed's redirects are the user's to follow.
		c.log.Info("redirect out of scope not followed", "url", e.URL, "location", target, "scope", c.cfg.Scope)
		return ""
	}
	if c.redirectFrom == nil {
		c.redirectFrom = map[string]string{}
	}
	if _, seen := c.redirectFrom[target]; !seen {
		c.redirectFrom[target] = e.URL
	}
	c.pendingNew = append(c.pendingNew, store.Entry{
		Job: c.cfg.Job, URL: target, Host: hostKey(u), State: store.Queued,
		Priority: e.Priority, Depth: e.Depth, Hops: e.Hops + 1, Parent: e.URL, NextAt: c.clock.Now(),
	})
	return ""
}

// inChain reports whether target is e itself or one of the URLs whose
// redirects led to e: the entry's parent (kept in the frontier), then the
// parents this run saw.
func (c *crawler) inChain(e store.Entry, target string) bool {
	if target == e.URL {
		return true
	}
	cur := ""
	if e.Hops > 0 {
		cur = e.Parent
	}
	for i := 0; cur != "" && i <= maxHops; i++ {
		if cur == target {
			return true
		}
		cur = c.redirectFrom[cur]
	}
	return false
}

// addLinks puts a page's links into the frontier one level deeper.
func (c *crawler) addLinks(e store.Entry, r result) {
	for _, l := range r.links {
		c.pendingNew = append(c.pendingNew, store.Entry{
			Job: c.cfg.Job, URL: l.String(), Host: hostKey(l), State: store.Queued,
			Priority: e.Priority, Depth: e.Depth + 1, Parent: e.URL, NextAt: c.clock.Now(),
		})
	}
}

// handleRobots takes a robots.txt fetch into use.
func (c *crawler) handleRobots(h *hostRun, r result, now time.Time) {
	h.robotsBusy = false
	if r.robots.reason == "canceled" {
		return
	}
	c.observe(h, r, now)
	// Redirects followed are requests too (the first one was counted).
	c.requests += r.robots.hops
	h.stats.Requests += r.robots.hops
	if r.robots.reason == "private-address" && r.robots.hops == 0 {
		// polite refused to dial the host: it is no seed's host and it
		// resolves to a loopback, private or link-local address. That is
		// polite's rule, not the host's state: the host gets no more
		// requests, and its URLs end the run excluded (leftover).
		h.skip = "private-address"
		h.stats.Robots = "refused: private address"
		c.log.Info("host refused: private address", "host", h.key)
		return
	}
	rb, how, fresh := interpretRobots(h.key, r.robots, h.robotsCopy, c.cfg.RobotsTTL, now)
	if fresh != nil {
		if err := c.db.PutRobots(*fresh); err != nil {
			c.log.Warn("cannot cache robots.txt", "host", h.key, "err", err)
		}
		h.robotsCopy = fresh
	}
	if rb == nil {
		// Until robots.txt is known every request to the host is a
		// robots.txt fetch, so h.requests counts the attempts.
		if h.requests >= c.cfg.MaxAttempts {
			h.skip = how + ": URLs wait for the next run"
			h.stats.Robots = h.skip
			c.log.Info("robots.txt unreachable: host left for the next run", "host", h.key, "status", how, "attempts", h.requests)
			return
		}
		base := c.cfg.RobotsRetry
		if base <= 0 {
			base = 5 * time.Second
		}
		h.robotsWait = pace.Backoff(h.robotsWait, base, max(base, 5*time.Minute), c.cfg.Rand)
		h.robotsRetryAt = now.Add(h.robotsWait)
		h.stats.Robots = fmt.Sprintf("%s: host waits, retry in %s", how, fmtDur(h.robotsWait))
		c.log.Info("robots.txt unreachable: host waits", "host", h.key, "status", how, "retry_in", fmtDur(h.robotsWait))
		return
	}
	c.useRobots(h, rb, how)
}

// useRobots applies a host's robots.txt: its rules and its published floors.
func (c *crawler) useRobots(h *hostRun, rb *robots.Robots, how string) {
	h.rb, h.robotsRetryAt = rb, time.Time{}
	g := rb.Group(c.agent)
	switch rb.Access {
	case robots.Parsed:
		h.stats.Robots = "parsed (" + how + ")"
	case robots.AllowAll:
		h.stats.Robots = "no restrictions (" + how + ")"
	default:
		h.stats.Robots = how
	}
	c.pacer.SetFloor(h.key, g.CrawlDelay, pace.FloorCrawlDelay)
	c.pacer.SetFloor(h.key, g.RequestRate.Interval(), pace.FloorRequestRate)
	if c.cfg.MaxCrawlDelay > 0 && g.CrawlDelay > c.cfg.MaxCrawlDelay {
		h.skip = fmt.Sprintf("Crawl-delay %s over --max-crawl-delay %s", g.CrawlDelay, c.cfg.MaxCrawlDelay)
		c.log.Info("host skipped", "host", h.key, "reason", h.skip)
	}
}

// manifestLine is one line of manifest.jsonl.
type manifestLine struct {
	URL         string  `json:"url"`
	Status      int     `json:"status"`
	File        string  `json:"file,omitempty"`
	SHA256      string  `json:"sha256,omitempty"`
	Bytes       int64   `json:"bytes"`
	ContentType string  `json:"content_type,omitempty"`
	FetchedAt   string  `json:"fetched_at"`
	LatencyMS   float64 `json:"latency_ms"`
	Attempts    int     `json:"attempts"`
	Location    string  `json:"location,omitempty"`
	Reason      string  `json:"reason,omitempty"`
}

// writeManifest appends the final fetch of an entry to manifest.jsonl and
// queues its fetch record.
func (c *crawler) writeManifest(e store.Entry, r result, now time.Time) {
	m := manifestLine{
		URL: e.URL, Status: r.resp.Status, File: e.File, SHA256: e.SHA256, Bytes: e.Bytes,
		FetchedAt: now.UTC().Format(time.RFC3339Nano), LatencyMS: ms(r.resp.TTFB),
		Attempts: e.Attempts, Reason: e.Reason,
	}
	if r.resp.Header != nil {
		m.ContentType = r.resp.Header.Get("Content-Type")
		m.Location = r.resp.Header.Get("Location")
	}
	line, _ := json.Marshal(m)
	if _, err := c.manifest.Write(append(line, '\n')); err != nil && c.fatal == nil {
		c.fatal = fmt.Errorf("write manifest: %w", err)
	}
	c.pendingFetches = append(c.pendingFetches, store.Fetch{
		RunID: c.run.ID, URL: e.URL, Host: e.Host, Status: r.resp.Status, Reason: e.Reason,
		File: e.File, SHA256: e.SHA256, Bytes: e.Bytes, ContentType: m.ContentType,
		FetchedAt: now, Latency: r.resp.TTFB, Attempts: e.Attempts, Delay: r.delay,
	})
}

// flush writes pending frontier changes and fetch records.
func (c *crawler) flush() error {
	if len(c.pendingNew)+len(c.pendingUpdates)+len(c.pendingFetches) == 0 {
		return nil
	}
	if _, err := c.db.Record(c.cfg.Job, c.pendingNew, c.pendingUpdates, c.pendingFetches); err != nil {
		return err
	}
	if len(c.pendingNew) > 0 {
		c.needHosts = true
	}
	c.pendingNew, c.pendingUpdates, c.pendingFetches = c.pendingNew[:0], c.pendingUpdates[:0], c.pendingFetches[:0]
	return nil
}
