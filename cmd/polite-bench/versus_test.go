package main

import (
	"strings"
	"testing"
	"time"
)

// TestBesideTargets: the verdicts against colly, the durable reference
// and, for --warc, in requests a second.
func TestBesideTargets(t *testing.T) {
	sec := func(pages int, s float64) crawlerFigures {
		return crawlerFigures{pages: pages, wall: time.Duration(s * float64(time.Second))}
	}
	colly, durable, polite := sec(4000, 1), sec(4000, 1.2), sec(4000, 1.25)
	colly.p90, polite.p90 = 900*time.Millisecond, 950*time.Millisecond // polite's start and end are longer
	tr := &throughputResult{hosts: 200, pages: 20, polite: polite, colly: &colly, durable: durable}
	warc := sec(4000, 4.2) // 16,200 requests against the plain crawl's 4,200 in 1.25 s: 1.15x
	tr.withWarc = &warc
	got := strings.Join(tr.besideTargets(), "\n")
	for _, want := range []string{
		"polite >= 1.0 of colly's pages/s: NOT met (0.80, 0.95 from the first request to 90% of the pages)",
		">= 0.9 of the durable reference's, proposed instead: met (0.96; the durable reference is 0.83 of colly)",
		">= 0.8 of the plain crawl's requests a second: met (1.15: 3857 against 3360)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("targets lack %q:\n%s", want, got)
		}
	}
	if tr.colly = nil; len(tr.besideTargets()) != 1 {
		t.Errorf("without colly: %q, want the --warc line alone", tr.besideTargets())
	}
}
