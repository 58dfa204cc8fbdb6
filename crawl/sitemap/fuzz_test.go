package sitemap

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The seed corpus lives in testdata/fuzz/FuzzRead and the sample files of
// testdata; `make fuzz` runs the target for a while.

func FuzzRead(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.*"))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(gz(b))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		opt := &Options{MaxBytes: 1 << 16, MaxURLs: 20, MaxProblems: 5}
		r := Read(bytes.NewReader(data), opt)
		if r.Bytes > opt.MaxBytes {
			t.Errorf("read %d bytes, limit %d", r.Bytes, opt.MaxBytes)
		}
		if !r.Gzip && r.Bytes != int64(len(data)) && r.Cut == None && r.Kind != Unknown {
			t.Errorf("read %d of %d bytes without a cut", r.Bytes, len(data))
		}
		if r.Listed > opt.MaxURLs || len(r.URLs)+len(r.Sitemaps)+r.Skipped != r.Listed {
			t.Errorf("listed %d = %d URLs + %d sitemaps + %d skipped?", r.Listed, len(r.URLs), len(r.Sitemaps), r.Skipped)
		}
		if len(r.Problems) > opt.MaxProblems || (r.MoreProblems > 0 && len(r.Problems) < opt.MaxProblems) {
			t.Errorf("%d problems kept and %d more, limit %d", len(r.Problems), r.MoreProblems, opt.MaxProblems)
		}
		if (r.Cut == None) != (r.Err() == nil) {
			t.Errorf("cut %v but Err() = %v", r.Cut, r.Err())
		}
		if r.Kind == Index && len(r.URLs) > 0 || r.Kind != Index && len(r.Sitemaps) > 0 {
			t.Errorf("kind %v with %d URLs and %d sitemaps", r.Kind, len(r.URLs), len(r.Sitemaps))
		}
		for _, e := range append(r.URLs, r.Sitemaps...) {
			if err := checkLoc(e.Loc); err != nil || e.Loc != strings.TrimSpace(e.Loc) {
				t.Errorf("kept bad URL %q: %v", e.Loc, err)
			}
			if e.Priority < 0 || e.Priority > 1 {
				t.Errorf("%s: priority %v", e.Loc, e.Priority)
			}
			if e.LastMod.IsZero() != e.LastModUntil.IsZero() || e.LastModUntil.Before(e.LastMod) {
				t.Errorf("%s: lastmod %v until %v", e.Loc, e.LastMod, e.LastModUntil)
			}
			if err := CheckURL(e.Loc, Listed{Sitemap: "http://a.example/sitemap.xml"}, nil); err != nil && !strings.Contains(err.Error(), "listed in") {
				t.Errorf("%s: CheckURL refuses a kept URL as %v", e.Loc, err)
			}
		}
		// Handed over in batches of 3, the entries are the same, in the same order.
		var each []Entry
		eo := *opt
		eo.Batch, eo.Each = 3, func(b Batch) {
			if len(b.Entries) == 0 || len(b.Entries) > 3 || b.Kind != r.Kind {
				t.Errorf("a batch of %d %v entries in a %v body", len(b.Entries), b.Kind, r.Kind)
			}
			each = append(each, b.Entries...)
		}
		re := Read(bytes.NewReader(data), &eo)
		if want := append(r.URLs, r.Sitemaps...); !slices.EqualFunc(each, want, func(a, b Entry) bool { return a.Loc == b.Loc && a.LastMod.Equal(b.LastMod) }) ||
			re.Listed != r.Listed || re.Cut != r.Cut || len(re.URLs)+len(re.Sitemaps) != 0 {
			t.Errorf("with Each: %d entries, listed %d, cut %v; without: %d, %d, %v", len(each), re.Listed, re.Cut, len(want), r.Listed, r.Cut)
		}
	})
}

// FuzzParseLastMod: whatever a server writes, a lastmod read is within
// the instants polite can store (it never wraps when stored as Unix
// nanoseconds), and its until is not before it.
func FuzzParseLastMod(f *testing.F) {
	for _, y := range []string{"0001", "1677", "1678", "1969", "2262", "2263", "9999", "10000"} {
		for _, s := range []string{y, y + "-12", y + "-12-31", y + "-01-01T00:00:00Z", y + "-12-31T23:59:59.999999999-12:00"} {
			f.Add(s)
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		lm, until, err := ParseLastMod(s)
		if err != nil {
			if !lm.IsZero() || !until.IsZero() {
				t.Errorf("%q: error %v with times %v, %v", s, err, lm, until)
			}
			return
		}
		for _, at := range []time.Time{lm, until} {
			if at.Before(MinTime) || at.After(MaxTime) || !time.Unix(0, at.UnixNano()).Equal(at) {
				t.Errorf("%q: %v is outside what polite can store", s, at)
			}
		}
		if until.Before(lm) {
			t.Errorf("%q: until %v before %v", s, until, lm)
		}
	})
}
