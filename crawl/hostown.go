package crawl

import (
	"fmt"
	"slices"
	"time"

	"github.com/polite-crawler/polite/pace"
)

// claim claims h's next request slot in a database shared with other
// crawling processes (the Shared role), so that together they keep the
// pace h is paced under (its own, or its group's) as one, driven by the
// one that owns it; without it, this process alone paces h, and h is
// ready. Taking the pace over, it first reloads what the last owner
// learned; refused because another owns it, it gives back to l the
// entries it holds of the host. A failed claim is fatal: the caller stops
// the run.
func (s *hostSet) claim(h *hostRun, now time.Time, l *ledger) (time.Time, bool, error) {
	if s.shared == nil {
		return time.Time{}, true, nil
	}
	c, err := s.shared.Claim(h.pace(), now, s.pacer.Delay(h.pace(), now))
	if err != nil {
		return time.Time{}, false, fmt.Errorf("claim the pace of %s: %w", h.pace(), err)
	}
	switch {
	case c.OK:
		if c.TookOver {
			s.reload(h.pace(), now)
		}
		h.grp.ownedUntil = c.Until
	case c.Owned:
		h.grp.ownedUntil = time.Time{}
		s.giveBack(h, l)
	}
	return c.Wait, c.OK, nil
}

// release saves the pace state of a pace this process owns in a shared
// database and gives it up, once it sends no more under it (none of its
// hosts has work left that is not held) and has nothing in flight there:
// another process may continue at once from what it learned.
func (s *hostSet) release(h *hostRun, now time.Time) {
	g := h.grp
	if s.shared == nil || g.inflight > 0 || !s.owns(h, now) || slices.ContainsFunc(g.hosts, (*hostRun).active) {
		return
	}
	s.saveState(g.key, now)
	g.ownedUntil = time.Time{}
	if err := s.shared.ReleaseHost(g.key); err != nil {
		s.log.Warn("cannot release host", "host", g.key, "err", err)
	}
}

// boundEarlierWait bounds a wait an earlier run left in the frontier by
// --max-hold from now: no hold polite sets lasts longer, so a later one
// (an older polite kept a Retry-After to 2036 or 9999) is cut, once and
// for good: the host's entries, and its pace state, keep the bound, and
// the cut is logged.
func (s *hostSet) boundEarlierWait(h *hostRun, now, until time.Time) time.Time {
	maxHold := s.maxHold
	if maxHold <= 0 {
		maxHold = pace.DefaultConfig().MaxHold
	}
	bound := now.Add(maxHold)
	if !until.After(bound) {
		return until
	}
	if _, err := s.frontier.BoundWait(s.job, h.key, bound); err != nil {
		s.log.Warn("cannot bound a stored wait", "host", h.key, "err", err)
	}
	s.pacer.Hold(h.pace(), now, bound, pace.HoldRetryAfter)
	s.saveState(h.pace(), now)
	h.nextAt = bound
	s.log.Warn("stored hold cut", "host", h.key, "until", until.UTC().Format(time.RFC3339),
		"note", "bounded by --max-hold "+maxHold.String()+" to "+bound.UTC().Format(time.RFC3339))
	return bound
}

// saveState writes one host's pace state at once.
func (s *hostSet) saveState(key string, now time.Time) {
	if !s.writes(key, now) {
		return // another crawling process drives the host: its state is theirs
	}
	if err := s.paces.Save(s.pacer.State(key)); err != nil {
		s.log.Warn("cannot save pace state", "host", key, "err", err)
	}
}
