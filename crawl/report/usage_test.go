package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/polite-crawler/polite/crawl/report/reporttest"
	"github.com/polite-crawler/polite/crawl/usage"
)

// Each host's usage preferences, and what they excluded, are in the text
// summary, report.json and report.html.
func TestUsageShown(t *testing.T) {
	r := &Report{Job: "j", RunID: 1, Purpose: "train-ai", Usage: []usage.HostUsage{{
		Host:     "a.example",
		Signals:  []string{"Content-Usage: train-ai=n", "robots.txt line 3: Content-Usage: / search=y", "bots=n <b>", `tdm-policy=javascript:alert(1)"><img src=x>`},
		Excluded: []usage.RuleExclude{{Rule: "train-ai refused by Content-Usage: train-ai=n", URLs: 3}},
	}}}
	var text, page, js bytes.Buffer // js: report.json as written, one object
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if want := "  3 URLs of a.example excluded by usage preferences: train-ai refused by Content-Usage: train-ai=n\n"; !strings.Contains(text.String(), want) {
		t.Errorf("text summary lacks %q:\n%s", want, text.String())
	}
	if err := r.WriteHTML(&page); err != nil {
		t.Fatal(err)
	}
	reporttest.CheckReportHTML(t, page.Bytes(), nil) // well formed, loads nothing: a host's text cannot break it
	for _, want := range []string{"<h2>Usage preferences</h2>", "declared purpose (train-ai)", `data-usage-host="a.example"`,
		"robots.txt line 3: Content-Usage: / search=y", "train-ai refused by Content-Usage: train-ai=n</td><td>3</td>", "bots=n &lt;b&gt;"} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if err := json.NewEncoder(&js).Encode(r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"purpose":"train-ai"`, `"usage":[{"host":"a.example"`, `"rule":"train-ai refused by Content-Usage: train-ai=n","urls":3`} {
		if !strings.Contains(js.String(), want) {
			t.Errorf("report.json lacks %q:\n%s", want, js.String())
		}
	}
	// Without a purpose the page says nothing was excluded.
	r.Purpose, r.Usage[0].Excluded = "", nil
	page.Reset()
	if err := r.WriteHTML(&page); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), "no purpose was declared, so nothing was excluded") {
		t.Error("report.html without a purpose does not say nothing was excluded")
	}
}
