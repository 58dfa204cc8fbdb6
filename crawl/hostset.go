package crawl

import (
	"errors"
	"log/slog"
	"slices"
	"sort"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/crawl/hostgroup"
	"github.com/polite-crawler/polite/crawl/report"
	"github.com/polite-crawler/polite/pace"
)

// takeBatch is how many eligible entries of a host are taken from the
// frontier at once: on PostgreSQL, a run of the host's pages under one lease.
const takeBatch = 32

// takeAhead is how many hosts one Take serves at most, crawling alone: the
// host whose turn it is and the next ones of the ring that want entries
// (new to the run, or their buffer spent), for one commit.
const takeAhead = 16

// ahead returns h's key and, crawling alone, those of the next hosts of
// the ring (among the next 2*takeAhead) with due entries and none buffered.
func (s *hostSet) ahead(h *hostRun, now time.Time) []string {
	keys := []string{h.key}
	for i := 1; s.shared == nil && i < len(s.ring) && i <= 2*takeAhead && len(keys) < takeAhead; i++ {
		o := s.byKey[s.ring[(h.at+i)%len(s.ring)]]
		if len(o.buf) == 0 && o.queued > 0 && !o.held() && !now.Before(o.nextAt) {
			keys = append(keys, o.key)
		}
	}
	return keys
}

// refreshEvery is how often at most the loop reads the hosts' queues again
// while requests are in flight (see runLoop.step).
const refreshEvery = 100 * time.Millisecond

// hostSet is the run state of every host met so far, in the round-robin
// order dispatch serves them, and what the frontier last said of their
// queues. Only the loop goroutine touches it.
type hostSet struct {
	frontier Frontier
	paces    PaceStates
	shared   Shared        // nil: this process crawls alone (Config.Shared)
	maxHold  time.Duration // --max-hold: the longest wait an earlier run may leave

	start         time.Time     // the run's start, for the hold marks and the run's end
	maxDuration   time.Duration // --max-duration; 0: none
	maxRetryAfter time.Duration // --max-retry-after: a longer wait defers the host

	job    string
	runID  int64
	pacer  *pace.Pacer
	groups *hostgroup.Groups        // which pace each host is paced under (--pace-by)
	floors map[string]time.Duration // --floor-host
	log    *slog.Logger

	byKey       map[string]*hostRun
	paced       map[string]*paceGroup // by pace key
	ring        []string
	next        int       // where the next dispatch pass starts in ring
	stale       bool      // the frontier's queues changed: refresh before trusting queued
	refreshedAt time.Time // the last refresh
}

// get returns the run state of a host, restoring the pace state it is
// paced under from the database the first time that pace is met.
func (s *hostSet) get(key string, now time.Time) *hostRun {
	if h := s.byKey[key]; h != nil {
		return h
	}
	h := &hostRun{key: key, stats: &report.HostStats{Host: key}, grp: s.paced[s.groups.Key(key)]}
	if h.grp == nil {
		h.grp = &paceGroup{key: s.groups.Key(key)}
		s.paced[h.grp.key] = h.grp
		if st, ok, err := s.paces.Load(h.pace()); err == nil && ok {
			if note := s.pacer.Restore(st, now); note != "" && s.log != nil {
				s.log.Warn("stored hold cut", "host", h.pace(), "note", note)
			}
			h.stats.StoredStartS = report.Seconds(st.Delay)
		}
	}
	h.grp.hosts = append(h.grp.hosts, h)
	if d, ok := s.floors[key]; ok {
		s.pacer.SetNameFloor(h.pace(), key, d, pace.FloorHost)
	}
	h.stats.DelayStartS = report.Seconds(s.pacer.Delay(h.pace(), now))
	s.byKey[key], h.at = h, len(s.ring)
	s.ring = append(s.ring, key)
	return h
}

// refresh reloads which hosts have queued entries.
func (s *hostSet) refresh(now time.Time) error {
	qs, err := s.frontier.QueuedHosts(s.job)
	if err != nil {
		return err
	}
	for _, h := range s.byKey {
		h.queued = 0
	}
	s.groups.Prepare(qs) // --pace-by ip: the new hosts' names looked up at once
	for _, q := range qs {
		h := s.get(q.Host, now)
		h.queued, h.nextAt = q.Queued, q.NextAt
	}
	s.stale, s.refreshedAt = false, now
	return nil
}

// anyWork reports whether a host not held still has URLs.
func (s *hostSet) anyWork() bool {
	for _, h := range s.byKey {
		if h.active() {
			return true
		}
	}
	return false
}

// fill takes the host's next eligible entries from the frontier when its
// buffer is empty; it reports whether the buffer holds any.
func (s *hostSet) fill(h *hostRun, now time.Time) (bool, error) {
	if len(h.buf) > 0 {
		return true, nil
	}
	if h.queued <= 0 {
		return false, nil
	}
	keys := s.ahead(h, now)
	taken, err := s.frontier.TakeHosts(s.job, keys, now, takeBatch)
	if err != nil {
		return false, err
	}
	for _, k := range keys[1:] { // served ahead of their turn
		if es := taken[k]; len(es) > 0 {
			o := s.byKey[k]
			o.queued, o.buf = o.queued-len(es), es
		}
	}
	es := taken[h.key]
	if len(es) == 0 {
		// Nothing eligible yet: ask the frontier when.
		s.stale = true
		h.nextAt = now.Add(time.Second)
		return false, nil
	}
	h.queued -= len(es)
	h.buf = es
	return true, nil
}

// learned returns the pace states worth keeping: of the paces polite sent
// a request under, or knew from an earlier run. A host it never contacted
// (its address refused, a budget spent first) has taught nothing. In a
// shared database, only the paces this process owns at now: the others'
// states are their owners' to write.
func (s *hostSet) learned(now time.Time) []pace.State {
	var sts []pace.State
	taught := func(h *hostRun) bool {
		return (h.requests > 0 && h.hold.leave != leaveRefused) || h.stats.StoredStartS > 0
	}
	for _, st := range s.pacer.States() {
		if g := s.paced[st.Host]; s.writes(st.Host, now) && (g == nil || slices.ContainsFunc(g.hosts, taught)) {
			sts = append(sts, st)
		}
	}
	return sts
}

// save writes every pace state worth keeping, and the members of the
// groups met since the last save.
func (s *hostSet) save(now time.Time) error {
	err := s.paces.SaveAll(s.learned(now))
	if ms := s.groups.Unsaved(); len(ms) > 0 {
		err = errors.Join(err, s.paces.SavePaceGroups(s.runID, string(s.groups.By()), ms))
	}
	return err
}

// owns reports whether this process owns h's pace at now in a shared database.
func (s *hostSet) owns(h *hostRun, now time.Time) bool { return now.Before(h.grp.ownedUntil) }

// writes reports whether this process may write the pace state of key:
// always with a database of its own, only while it owns the pace in a
// shared one.
func (s *hostSet) writes(key string, now time.Time) bool {
	if s.shared == nil {
		return true
	}
	g := s.paced[key]
	return g != nil && now.Before(g.ownedUntil)
}

// reload restores the pace state of key as stored, when this process
// takes the pace over in a shared database: it continues from what the
// last owner learned (delay, safe and refused gaps, congestion memory,
// holds).
func (s *hostSet) reload(key string, now time.Time) {
	st, ok, err := s.paces.Load(key)
	if err != nil && s.log != nil {
		s.log.Warn("cannot load pace state", "host", key, "err", err)
	}
	if err == nil && ok {
		s.pacer.Restore(st, now)
	}
}

// giveBack puts the entries of h this process holds but may not send
// (another process owns the host) back in the queue, for the owner.
func (s *hostSet) giveBack(h *hostRun, l *ledger) {
	if len(h.buf) == 0 {
		return
	}
	for _, e := range h.buf {
		e.State = frontier.Queued
		l.change(e)
	}
	h.queued += len(h.buf)
	h.buf = nil
	s.stale = true
}

// sorted returns the hosts in the order of their keys.
func (s *hostSet) sorted() []*hostRun {
	keys := make([]string, 0, len(s.byKey))
	for k := range s.byKey {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	hs := make([]*hostRun, len(keys))
	for i, k := range keys {
		hs[i] = s.byKey[k]
	}
	return hs
}

// leave writes back what a held host leaves at the run's end: its queued
// URLs in state (with the host's hold as their reason unless queued),
// none eligible before the hold's Retry-After, if it has one. What it
// settles is counted in l.
func (s *hostSet) leave(h *hostRun, state frontier.State, l *ledger, now time.Time) error {
	// Taken entries are in flight, so each Take reaches the next batch;
	// what an error leaves in flight the next run queues again.
	always := now.Add(100 * 365 * 24 * time.Hour)
	var held []frontier.Entry // left queued: put back once all were taken
	for {
		es, err := s.frontier.Take(s.job, h.key, always, 256)
		if err != nil || len(es) == 0 {
			if err == nil && len(held) > 0 {
				_, err = s.frontier.Record(s.job, nil, held, nil)
			}
			return err
		}
		for i := range es {
			es[i].State, es[i].NextAt = state, later(es[i].NextAt, h.hold.until)
			if state != frontier.Queued {
				es[i].Reason = h.hold.entryReason()
			}
		}
		if state == frontier.Queued {
			held = append(held, es...)
			continue
		}
		l.counts[state] += len(es)
		if _, err := s.frontier.Record(s.job, nil, es, nil); err != nil {
			return err
		}
	}
}

// lastMod gives a page's buffered entry, if its host took it already, the
// lastmod a sitemap lists for it (e's, and that sitemap); the frontier
// takes them with e.
func (s *hostSet) lastMod(e frontier.Entry) {
	h := s.byKey[e.Host]
	if h == nil || e.LastMod.IsZero() {
		return
	}
	for i := range h.buf {
		if h.buf[i].URL == e.URL {
			h.buf[i].LastMod, h.buf[i].ListedBy = e.LastMod, e.ListedBy
		}
	}
}
