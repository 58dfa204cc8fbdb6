package cmd

import (
	"net/url"

	"github.com/polite-crawler/polite/crawl/urls"
	usepref "github.com/polite-crawler/polite/crawl/usage"
	"github.com/polite-crawler/polite/robots"
)

// checkUsage fills r's usage fields when policy declares purposes: the
// rules known before fetching u that apply (rb's Content-Usage lines for
// the policy's agent, the rule of the tdmrep.json policy was given for
// u's origin), and the first declared purpose they refuse.
func (r *checkResult) checkUsage(policy *usepref.Policy, rb *robots.Robots, u *url.URL) {
	if policy == nil || len(policy.Purposes) == 0 {
		return
	}
	r.purposes = policy.Purposes
	host := urls.Host(u)
	policy.SetRobots(host, rb)
	signals := policy.Known(host, u)
	for _, s := range signals {
		r.Usage = append(r.Usage, s.String())
	}
	if p, s, ok := usepref.RefusesAny(signals, policy.Purposes); ok {
		r.RefusedBy = string(p) + " refused by " + s.String()
	}
}
