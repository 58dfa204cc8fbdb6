package report

import (
	"fmt"
	"strings"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// MaxChangedURLs is how many changed (and gone) URLs a report names; the
// counts cover them all.
const MaxChangedURLs = 20

// Changes is what a run's fetches showed of their pages, against the
// fetch before (--revisit): report.json's changes.
type Changes struct {
	New       int `json:"new"`
	Changed   int `json:"changed"`
	Unchanged int `json:"unchanged"`
	Gone      int `json:"gone"`
	NotDue    int `json:"not_due"` // left alone: their revisit was not due when the pass started

	ChangedURLs []string `json:"changed_urls,omitempty"` // the first MaxChangedURLs changed
	GoneURLs    []string `json:"gone_urls,omitempty"`    // the first MaxChangedURLs gone
}

// Add counts one fetch of url that showed ch ("" counts nothing).
func (c *Changes) Add(ch frontier.Change, url string) {
	switch ch {
	case frontier.ChangeNew:
		c.New++
	case frontier.ChangeChanged:
		c.Changed++
		if len(c.ChangedURLs) < MaxChangedURLs {
			c.ChangedURLs = append(c.ChangedURLs, url)
		}
	case frontier.ChangeUnchanged:
		c.Unchanged++
	case frontier.ChangeGone:
		c.Gone++
		if len(c.GoneURLs) < MaxChangedURLs {
			c.GoneURLs = append(c.GoneURLs, url)
		}
	case frontier.ChangeNotDue:
		c.NotDue++
	}
}

// Of returns a copy of c for a report: nil when nothing was counted.
func (c *Changes) Of() *Changes {
	if c.New+c.Changed+c.Unchanged+c.Gone+c.NotDue == 0 {
		return nil
	}
	out := *c
	return &out
}

// Line is the changes in one line for a person: "3 new, 2 changed, 40
// unchanged, 1 gone, 950 not due".
func (c *Changes) Line() string {
	if c == nil {
		return ""
	}
	var parts []string
	for _, p := range []struct {
		n    int
		word string
	}{{c.New, "new"}, {c.Changed, "changed"}, {c.Unchanged, "unchanged"}, {c.Gone, "gone"}, {c.NotDue, "not due"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.word))
		}
	}
	return strings.Join(parts, ", ")
}

// writeText adds the changes to the text summary: their counts, then the
// first changed and gone URLs.
func (c *Changes) writeText(b *strings.Builder) {
	if c == nil {
		return
	}
	fmt.Fprintf(b, "  changes: %s\n", c.Line())
	for _, l := range []struct {
		word string
		urls []string
		n    int
	}{{"changed", c.ChangedURLs, c.Changed}, {"gone", c.GoneURLs, c.Gone}} {
		for i, u := range l.urls {
			if i == textLimit {
				break
			}
			fmt.Fprintf(b, "  %s: %s\n", l.word, u)
		}
		if more := l.n - min(len(l.urls), textLimit); more > 0 {
			fmt.Fprintf(b, "  ... and %d more %s\n", more, l.word)
		}
	}
}
