package report

import (
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// A Notice is something a run did that needs a person: polite crawl
// writes each one to stderr as a warning, under --quiet too, so that cron
// mails it while stdout keeps the summary.
type Notice struct {
	Msg   string
	Attrs []slog.Attr
}

// CutShortRuns is how many runs of a job in a row a budget or
// --max-duration must cut short before a run says so on stderr: a
// crontab that cuts every run on purpose is not mailed every hour.
const CutShortRuns = 3

// attentionURLs is how many dead URLs a notice names.
const attentionURLs = 3

// Attention lists what needs a person in the run: each host that gave no
// page all run, with why and when it may be tried again; the dead URLs;
// and, when cutShort (the job has ended cut short in each of its last
// CutShortRuns runs, this one included), the budget that cut it.
func (r *Report) Attention(cutShort bool) []Notice {
	var ns []Notice
	for _, h := range r.Hosts {
		if h.RefusedAll() {
			why := h.StoppedReason
			if h.Stopped != frontier.StopAuth {
				why = fmt.Sprintf("authentication failed (%d %s 401 or 403, no page)", h.AuthRefused, Plural(h.AuthRefused, "answer", "answers"))
			}
			ns = append(ns, Notice{Msg: "host refused polite's credentials", Attrs: []slog.Attr{
				slog.String("host", h.Host), slog.String("why", why), slog.String("next_try", h.NextTry())}})
			continue
		}
		if !h.GaveNothing() {
			continue
		}
		attrs := []slog.Attr{slog.String("host", h.Host), slog.String("why", h.StoppedReason), slog.String("next_try", h.NextTry())}
		if h.LastError != "" {
			attrs = append(attrs, slog.String("reason", h.LastError.String()))
		}
		ns = append(ns, Notice{Msg: "host gave no page all run", Attrs: attrs})
	}
	if n := len(r.Dead); n > 0 {
		var first []string
		for _, d := range r.Dead[:min(n, attentionURLs)] {
			first = append(first, fmt.Sprintf("%s (%s)", d.URL, d.Reason))
		}
		ns = append(ns, Notice{Msg: "dead URLs", Attrs: []slog.Attr{
			slog.Int("count", n),
			slog.String("first", strings.Join(first, ", ")),
		}})
	}
	if c := r.Changes; c != nil && c.Gone > 0 {
		ns = append(ns, Notice{Msg: "pages gone (404 or 410 where a page was)", Attrs: []slog.Attr{
			slog.Int("count", c.Gone),
			slog.String("first", strings.Join(c.GoneURLs[:min(len(c.GoneURLs), attentionURLs)], ", ")),
		}})
	}
	if cutShort && r.Stop == frontier.RunBudget {
		ns = append(ns, Notice{Msg: fmt.Sprintf("job cut short %d runs in a row", CutShortRuns), Attrs: []slog.Attr{
			slog.String("by", r.Budgets()),
			slog.Int("waiting", r.Totals.Waiting),
		}})
	}
	return ns
}

// GaveNothing reports whether the host gave no page all run (no 2xx, no
// 304) because of a stop of its own: held by a Retry-After or a quota,
// unreachable, its certificate refused, robots.txt unavailable, a
// Crawl-delay too long, an address polite refuses. A host the run's budget or end left waiting is not one.
func (h *HostStats) GaveNothing() bool {
	if h.S2xx+h.S304 > 0 {
		return false
	}
	switch h.Stopped {
	case frontier.StopDeferred, frontier.StopUnreachable, frontier.StopRobots, frontier.StopCrawlDelay, frontier.StopPrivate, frontier.StopTLS,
		frontier.StopAuth:
		return true
	case "", frontier.StopDone, frontier.StopBudget, frontier.StopInterrupted, frontier.StopError,
		frontier.StopOperator: // the operator's own choice: no news to them
		return false
	}
	return false // a report of an older polite: its sentence
}

// NextTry says when a host that stopped may be tried again: after its
// Retry-After, at the next run, or what must change first.
func (h *HostStats) NextTry() string {
	switch {
	case !h.RetryAt.IsZero():
		return "after " + h.RetryAt.UTC().Format(time.RFC3339)
	case h.Stopped == frontier.StopPrivate:
		return "never: polite refuses its address unless a seed names the host"
	case h.Stopped == frontier.StopTLS:
		return "next run, once the certificate is fixed or trusted (--ca-file)"
	case h.RefusedAll():
		return "next run, once its credentials are accepted (--header, --header-file)"
	case h.Stopped == frontier.StopCrawlDelay:
		return "when its Crawl-delay is within --max-crawl-delay"
	}
	return "next run"
}
