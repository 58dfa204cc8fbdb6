package crawl

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/polite-crawler/polite/crawl/fetch"
	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/output"
	"github.com/polite-crawler/polite/crawl/report"
)

// ledger is what a run has decided and not yet written, and what it has
// written of its outcomes: the frontier changes and fetch records pending
// for the next Record, the manifest, the dead list and the counts per
// state. Only the loop goroutine touches it.
type ledger struct {
	job      string
	name     string // the job's display name, for the manifest
	runID    int64
	manifest io.WriteCloser

	added   []frontier.Entry
	changed []frontier.Entry
	fetches []frontier.Fetch
	taken   []chan struct{} // closed once written: the workers whose sitemap batches wait read on

	dead    []report.DeadURL
	changes report.Changes         // what the fetches showed of their pages
	counts  map[frontier.State]int // outcomes of this run
	wait    int                    // the job's waiting entries, as this run wrote them: the report's count when the store is lost
	err     error                  // the first manifest write that failed

	gen       int64     // flushes so far
	flushedAt time.Time // when the last flush began
}

// Answers are committed in groups: a loop step writes the ledger only once
// groupMax changes wait, groupWait has passed since the last flush, or the
// loop has nothing in flight, and dispatch writes it before giving a host
// whose answer waits another request. So a crawl killed at any moment
// fetches again at most one URL per host (PerHost): in flight, or answered
// and not yet written.
const (
	groupMax  = 256
	groupWait = 10 * time.Millisecond
)

// due reports whether the ledger must be written at now; idle: nothing
// else could join the transaction (nothing in flight, or stopping).
func (l *ledger) due(now time.Time, idle bool) bool {
	n := l.pending()
	return n+len(l.taken) > 0 && (idle || len(l.taken) > 0 || n >= groupMax || now.Sub(l.flushedAt) >= groupWait)
}

// pending is how many changes wait for the next flush.
func (l *ledger) pending() int { return len(l.added) + len(l.changed) + len(l.fetches) }

func newLedger(job, name string) *ledger {
	return &ledger{job: job, name: name, counts: map[frontier.State]int{}}
}

// add puts a discovered URL (a link, a redirect target) into the frontier.
func (l *ledger) add(e frontier.Entry) { l.added = append(l.added, e) }

// addListed adds what the sitemaps read want queued; a page a host has
// buffered already takes the lastmod listed (hostSet.lastMod). taken, if
// not nil, is closed once they are written.
func (l *ledger) addListed(es []frontier.Entry, s *hostSet, taken chan struct{}) {
	for _, e := range es {
		l.add(e)
		s.lastMod(e)
	}
	if taken != nil {
		l.taken = append(l.taken, taken)
	}
}

// change writes e back as it is, counting nothing.
func (l *ledger) change(e frontier.Entry) { l.changed = append(l.changed, e) }

// settle writes e back in a state that counts as an outcome of this run.
func (l *ledger) settle(e frontier.Entry) {
	l.changed = append(l.changed, e)
	l.counts[e.State]++
}

// finish gives e its final state and reason for this run and records it;
// a dead entry joins the dead list, but a page gone (or still gone),
// which its revisits follow.
func (l *ledger) finish(e *frontier.Entry, s frontier.State, reason frontier.Reason) {
	e.State, e.Reason = s, reason
	l.settle(*e)
	if s == frontier.Dead && e.Revisit.Change == "" {
		l.dead = append(l.dead, report.DeadURL{URL: e.URL, Reason: reason, Attempts: e.Attempts})
	}
}

// writeManifest appends the final fetch of an entry to manifest.jsonl and
// queues its fetch record. delay is the host's delay when it started.
func (l *ledger) writeManifest(e frontier.Entry, resp fetch.Response, delay time.Duration, now time.Time) {
	m := output.ManifestLine{Job: l.name, Run: l.runID,
		URL: e.URL, Status: resp.Status, File: e.File, SHA256: e.SHA256, Bytes: e.Bytes,
		FetchedAt: now.UTC().Format(time.RFC3339Nano), LatencyMS: report.Millis(resp.TTFB),
		Attempts: e.Attempts, Reason: e.Reason, Change: e.Revisit.Change, Usage: resp.Usage,
	}
	l.changes.Add(e.Revisit.Change, e.URL)
	if resp.Header != nil {
		m.ContentType = resp.Header.Get("Content-Type")
		m.Location = resp.Header.Get("Location")
	}
	line, _ := json.Marshal(m)
	if _, err := l.manifest.Write(append(line, '\n')); err != nil && l.err == nil {
		l.err = fmt.Errorf("write manifest: %w", err)
	}
	l.fetches = append(l.fetches, frontier.Fetch{
		RunID: l.runID, URL: e.URL, Host: e.Host, Status: resp.Status, Reason: e.Reason,
		File: e.File, SHA256: e.SHA256, Bytes: e.Bytes, ContentType: m.ContentType,
		FetchedAt: now, Latency: resp.TTFB, Attempts: e.Attempts, Delay: delay,
	})
}

// flush writes pending frontier changes and fetch records in one Record;
// it reports whether new entries went in (the hosts' queues changed).
func (l *ledger) flush(f Frontier, now time.Time) (added bool, err error) {
	l.flushedAt = now
	if l.pending() > 0 {
		n, err := f.Record(l.job, l.added, l.changed, l.fetches)
		if err != nil {
			return false, err
		}
		l.wait += n - frontier.Settled(l.changed)
		// New entries change the hosts' queues, and so may a listed
		// lastmod (it queues a fetched page again); a link met before
		// changes nothing.
		added = n > 0 || slices.ContainsFunc(l.added, func(e frontier.Entry) bool { return !e.LastMod.IsZero() })
		l.added, l.changed, l.fetches = l.added[:0], l.changed[:0], l.fetches[:0]
	}
	l.gen++
	for _, c := range l.taken {
		close(c)
	}
	l.taken = l.taken[:0]
	return added, nil
}

// closeManifest closes the run's manifest journal; it returns the first
// write to it that failed, or the close's error.
func (l *ledger) closeManifest() error {
	if l.manifest == nil {
		return l.err
	}
	err := l.manifest.Close()
	l.manifest = nil
	if l.err != nil {
		return l.err
	}
	if err != nil {
		return fmt.Errorf("write manifest: %w", err)
	}
	return nil
}

func (l *ledger) close() { l.closeManifest() }
