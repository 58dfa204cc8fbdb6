package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// TestChangesCountAndName: every change is counted, the first
// MaxChangedURLs changed and gone URLs named; the text summary names at
// most textLimit of each and says how many more.
func TestChangesCountAndName(t *testing.T) {
	var c Changes
	if c.Of() != nil {
		t.Error("nothing counted: Of() not nil")
	}
	for i := range MaxChangedURLs + 5 {
		c.Add(frontier.ChangeChanged, fmt.Sprintf("https://a.example/%d", i))
	}
	for _, ch := range []frontier.Change{frontier.ChangeNew, frontier.ChangeUnchanged, frontier.ChangeUnchanged,
		frontier.ChangeGone, frontier.ChangeNotDue, ""} {
		c.Add(ch, "https://a.example/x")
	}
	got := c.Of()
	if got.Changed != MaxChangedURLs+5 || len(got.ChangedURLs) != MaxChangedURLs || got.New != 1 ||
		got.Unchanged != 2 || got.Gone != 1 || got.NotDue != 1 {
		t.Errorf("counted %+v", got)
	}
	if want := "1 new, 25 changed, 2 unchanged, 1 gone, 1 not due"; got.Line() != want {
		t.Errorf("Line() = %q, want %q", got.Line(), want)
	}
	var b strings.Builder
	got.writeText(&b)
	text := b.String()
	if n := strings.Count(text, "  changed: "); n != textLimit {
		t.Errorf("%d changed lines, want %d:\n%s", n, textLimit, text)
	}
	for _, want := range []string{"  changes: 1 new, 25 changed", fmt.Sprintf("  ... and %d more changed\n", 25-textLimit),
		"  gone: https://a.example/x\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
}
