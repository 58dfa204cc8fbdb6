package report

import (
	"fmt"
	"strings"
)

// writeUsage writes, for the text summary, the URLs each host's usage
// preferences excluded (--purpose), rule by rule; preferences that
// excluded nothing are left to report.json and report.html.
func (r *Report) writeUsage(b *strings.Builder) {
	for _, h := range r.Usage {
		for _, x := range h.Excluded {
			fmt.Fprintf(b, "  %d %s of %s excluded by usage preferences: %s\n", x.URLs, Plural(x.URLs, "URL", "URLs"), h.Host, x.Rule)
		}
	}
}
