package pace

import (
	"fmt"
	"time"
)

// HoldReason says why a host is held: no request to it before a time.
type HoldReason string

// The reasons a host is held. Every hold is bounded by Config.MaxHold.
const (
	HoldBackoff    HoldReason = "backoff"     // the raised delay after a congestion signal
	HoldRetryAfter HoldReason = "retry-after" // the server's Retry-After
	HoldQuota      HoldReason = "quota"       // a RateLimit quota spent until its reset
	HoldBreaker    HoldReason = "breaker"     // the latency breaker's cooldown
)

// maxHold returns MaxHold, or its default when unset.
func (c Config) maxHold() time.Duration {
	if c.MaxHold > 0 {
		return c.MaxHold
	}
	return DefaultConfig().MaxHold
}

// bound returns a wait the server asked for (what names it), at most
// MaxHold, and a note when it was cut.
func (c Config) bound(d time.Duration, what string) (time.Duration, string) {
	if m := c.maxHold(); d > m {
		return m, fmt.Sprintf("%s of %s bounded by --max-hold %s", what, longDuration(d), m)
	}
	return d, ""
}

// longDuration prints a duration a person can read when it is years long.
func longDuration(d time.Duration) string {
	const year = 365 * 24 * time.Hour
	if d >= 2*year {
		return fmt.Sprintf("%d years", d/year)
	}
	return d.Round(time.Second).String()
}

// hold keeps the host back until now+d for why, d at most MaxHold; it
// never shortens a hold.
func (h *host) hold(cfg Config, now time.Time, d time.Duration, why HoldReason) {
	if d <= 0 {
		return
	}
	if until := now.Add(min(d, cfg.maxHold())); until.After(h.holdUntil) {
		h.holdUntil, h.holdReason = until, why
	}
}

// Hold keeps every request to host back until until, the caller's own
// decision (such as honouring in a later run a Retry-After longer than
// MaxRetryAfter), for why. It is bounded by now+MaxHold, never shortens a
// hold, and is kept in State (HoldUntil, HoldReason) so that the next run
// honours it too. It returns a note for the log when it cut the hold.
func (p *Pacer) Hold(host string, now, until time.Time, why HoldReason) string {
	h := p.entry(host)
	d, note := p.cfg.bound(until.Sub(now), "hold")
	h.hold(p.cfg, now, d, why)
	return note
}

// restoreHold takes over a stored hold still in force, bounded by
// now+MaxHold (a hold stored before the bound existed may reach 2036),
// and returns a note when it cut it.
func (h *host) restoreHold(cfg Config, st State, now time.Time) string {
	if !st.HoldUntil.After(now) {
		return ""
	}
	why := st.HoldReason
	if why == "" {
		why = HoldRetryAfter // stored before reasons were: only Retry-After was kept
	}
	d, note := cfg.bound(st.HoldUntil.Sub(now), "stored "+string(why)+" hold")
	h.hold(cfg, now, d, why)
	return note
}

// Holding is a host's hold at a time.
type Holding struct {
	Until  time.Time
	Reason HoldReason
}

// HoldAt returns st's hold in force at now, bounded by maxHold from now,
// and false when none.
func HoldAt(st State, maxHold time.Duration, now time.Time) (Holding, bool) {
	if !st.HoldUntil.After(now) {
		return Holding{}, false
	}
	why := st.HoldReason
	if why == "" {
		why = HoldRetryAfter
	}
	until := st.HoldUntil
	if maxHold > 0 && until.Sub(now) > maxHold {
		until = now.Add(maxHold)
	}
	return Holding{Until: until, Reason: why}, true
}
