package cmd

import (
	"net/url"

	usepref "github.com/polite-crawler/polite/crawl/usage"
	"github.com/polite-crawler/polite/robots"
)

// checkUsage fills r's usage fields when purposes are declared: the
// Content-Usage lines of rb that apply to u for agent, and the first
// declared purpose they refuse.
func (r *checkResult) checkUsage(rb *robots.Robots, agent string, u *url.URL, purposes []usepref.Purpose) {
	if len(purposes) == 0 {
		return
	}
	r.purposes = purposes
	signals := usepref.Robots(rb.ContentUsage(agent, u.RequestURI()))
	for _, s := range signals {
		r.Usage = append(r.Usage, s.String())
	}
	if p, s, ok := usepref.RefusesAny(signals, purposes); ok {
		r.RefusedBy = string(p) + " refused by " + s.String()
	}
}
