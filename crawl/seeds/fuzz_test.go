package seeds

import (
	"errors"
	"strings"
	"testing"

	"github.com/polite-crawler/polite/crawl/urls"
)

// The seed corpus of FuzzReadSeeds lives in testdata/fuzz/FuzzReadSeeds
// and runs as an ordinary test; `make fuzz` runs the target for a while.

func FuzzReadSeeds(f *testing.F) {
	f.Add([]byte("https://example.org/a 5\n# comment\n\nftp://x/\n"), false)
	f.Fuzz(func(t *testing.T, data []byte, _ bool) { // the flag of older corpora: both ways are checked
		seeds, sr := readAll("f", string(data))
		n, err := Check("f", strings.NewReader(string(data)))
		var se *Error
		switch {
		case err == nil && (n == 0 || n != len(seeds) || sr.RejectedCount() != 0):
			t.Fatalf("Check = %d, nil; the reader read %d seeds and skipped %d lines", n, len(seeds), sr.RejectedCount())
		case err != nil && !errors.Is(err, ErrNone) && !errors.As(err, &se):
			t.Fatalf("unexpected error %v", err)
		case errors.As(err, &se) && (sr.RejectedCount() == 0 || se.Rejected != sr.Rejected()[0]):
			t.Fatalf("Check failed on %+v, the reader's first skipped line is %v", se.Rejected, sr.Rejected())
		}
		lines := strings.Count(string(data), "\n") + 1
		last := 0
		for _, s := range seeds {
			if again, err := urls.Normalize(s.URL); err != nil || again != s.URL {
				t.Errorf("seed %q is not normalised: %q, %v", s.URL, again, err)
			}
			if s.Line <= last || s.Line > lines {
				t.Errorf("seed %q at line %d after line %d, file of %d lines", s.URL, s.Line, last, lines)
			}
			last = s.Line
		}
		for _, r := range sr.Rejected() {
			if len(r.Reason) == 0 || r.Line < 1 || r.Line > lines || len(r.Text) > 200+len("…") {
				t.Errorf("rejected line %+v", r)
			}
		}
	})
}
