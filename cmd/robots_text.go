package cmd

// The output of polite robots check: text as its help documents, or JSON.

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	usepref "github.com/polite-crawler/polite/crawl/usage"
)

// write prints the results, as text or with --json.
func (opts *robotsCheckOptions) write(io IO, agent string, results []checkResult) error {
	if !opts.JSON {
		return writeChecks(io.Out, agent, results)
	}
	enc := json.NewEncoder(io.Out)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Agent   string        `json:"agent"`
		Results []checkResult `json:"results"`
	}{agent, results})
}

// fmtPer writes a Request-rate's time the way robots.txt does: 10s, 1m, 2h.
func fmtPer(d time.Duration) string {
	switch {
	case d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d%time.Minute == 0:
		return fmt.Sprintf("%dm", d/time.Minute)
	}
	return fmt.Sprintf("%gs", d.Seconds())
}

// writeChecks writes the text form documented in the command's help.
func writeChecks(w io.Writer, agent string, rs []checkResult) error {
	var b strings.Builder
	field := func(name, format string, a ...any) {
		fmt.Fprintf(&b, "  %-14s%s\n", name, fmt.Sprintf(format, a...))
	}
	for i, r := range rs {
		if i > 0 {
			b.WriteString("\n")
		}
		verdict := "ALLOWED"
		if !r.Allowed {
			verdict = "DISALLOWED"
		}
		fmt.Fprintf(&b, "%-12s%s\n", verdict, r.URL)
		field("robots.txt", "%s", r.Robots.describe())
		field("agent", "%s", agent)
		if r.Group == "" {
			field("group", "none")
		} else {
			field("group", "%q (line %d)", r.Group, r.GroupLine)
		}
		if r.Rule == "" {
			field("rule", "none")
		} else {
			field("rule", "%q (line %d)", r.Rule, r.RuleLine)
		}
		field("reason", "%s", r.Reason)
		if r.crawlDelay > 0 {
			field("crawl-delay", "%s", r.crawlDelay)
		} else {
			field("crawl-delay", "none")
		}
		if rr := r.RequestRate; rr != nil {
			field("request-rate", "%s (a request every %s)", rr.Text, time.Duration(rr.IntervalS*float64(time.Second)))
		} else {
			field("request-rate", "none")
		}
		for _, s := range r.Sitemaps {
			field("sitemap", "%s", s)
		}
		if len(r.Sitemaps) == 0 {
			field("sitemap", "none")
		}
		if len(r.purposes) > 0 {
			if r.Robots.TDMRep != "" {
				field("tdmrep.json", "%s", r.Robots.TDMRep)
			}
			for _, u := range r.Usage {
				field("usage", "%s", u)
			}
			if len(r.Usage) == 0 {
				field("usage", "none")
			}
			if r.RefusedBy != "" {
				field("purpose", "%s", r.RefusedBy)
			} else {
				field("purpose", "%s not refused", usepref.Join(r.purposes))
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// describe says where rules came from in one line.
func (s checkSource) describe() string {
	const ts = time.RFC3339
	switch {
	case s.File != "":
		return s.File
	case s.Cached:
		return fmt.Sprintf("%s (cached copy of %s, until %s)", s.URL, s.FetchedAt.Format(ts), s.Expires.Format(ts))
	case s.Unreachable, s.Stale:
		return fmt.Sprintf("%s (%s)", s.URL, s.How)
	}
	redirects := ""
	if s.Requests > 1 {
		redirects = fmt.Sprintf(" after %d redirects", s.Requests-1)
	}
	return fmt.Sprintf("%s (fetched: %s%s; cached until %s)", s.URL, s.How, redirects, s.Expires.Format(ts))
}
