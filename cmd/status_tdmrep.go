package cmd

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/polite-crawler/polite/crawl/frontier"
	usepref "github.com/polite-crawler/polite/crawl/usage"
)

// maxTDMShown bounds the tdmrep.json rules status shows of a host.
const maxTDMShown = 20

// tdmRepOf lists the rules of a kept tdmrep.json as status shows them,
// "rule 0, location /images/*: tdm-reservation=1", at most maxTDMShown
// and a count of the rest; "none (404)" for an answer without rules, the
// error for a body that does not parse; nil when none was kept.
func tdmRepOf(t frontier.TDMRepCopy) []string {
	if t.FetchedAt.IsZero() {
		return nil
	}
	if t.Status/100 != 2 {
		return []string{fmt.Sprintf("none (%d)", t.Status)}
	}
	f, err := usepref.ParseTDMRep(t.Body)
	if err != nil {
		return []string{"unread: " + shown(err.Error())}
	}
	var out []string
	for i, r := range f.Rules {
		if i == maxTDMShown {
			out = append(out, fmt.Sprintf("... and %d more rules", len(f.Rules)-i))
			break
		}
		line := fmt.Sprintf("rule %d, location %s: tdm-reservation=%d", i, shown(r.Location), r.Reservation)
		if r.Policy != "" {
			line += " tdm-policy=" + shown(r.Policy)
		}
		out = append(out, line)
	}
	if len(out) == 0 {
		return []string{"no rules"}
	}
	return out
}

// shown is s as written when it has no control character, else quoted:
// a site's text never moves the terminal's cursor.
func shown(s string) string {
	if strings.IndexFunc(s, unicode.IsControl) < 0 {
		return s
	}
	return strconv.Quote(s)
}
