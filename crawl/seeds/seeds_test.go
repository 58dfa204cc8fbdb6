package seeds

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/polite-crawler/polite/crawl/urls"
)

func TestReadSeedsRejectsEachBadLineWithItsNumber(t *testing.T) {
	t.Parallel()
	file := strings.Join([]string{
		"# a comment",                         // 1
		"",                                    // 2
		"https://example.org/a",               // 3
		"ftp://example.org/file",              // 4
		"https://example.org/b 10",            // 5
		"https://example.org/c high",          // 6
		"http:///nohost",                      // 7
		"example.org/noscheme",                // 8
		"https://example.org:99999/",          // 9
		"https://example.org/a",               // 10 duplicate
		"HTTPS://EXAMPLE.ORG:443/./a",         // 11 duplicate after normalisation
		"http://[::1/",                        // 12
		"https://user:pw@example.org/",        // 13
		"https://example.org/d 1 extra",       // 14
		"https://example.org/e 2 # a comment", // 15
		"http://bad\x00byte.org/",             // 16
		"   \t",                               // 17
		"http://exa mple.org/",                // 18
	}, "\n")
	seeds, sr := readAll("seeds.txt", file)
	if err := sr.Err(); err != nil {
		t.Fatalf("Err: %v", err)
	}
	rejected := sr.Rejected()
	// Duplicates are the frontier's to drop: it keeps a URL at its first line.
	wantSeeds := []Seed{
		{URL: "https://example.org/a", Line: 3},
		{URL: "https://example.org/b", Priority: 10, Line: 5},
		{URL: "https://example.org/a", Line: 10},
		{URL: "https://example.org/a", Line: 11},
		{URL: "https://example.org/e", Priority: 2, Line: 15},
	}
	if len(seeds) != len(wantSeeds) {
		t.Fatalf("got %d seeds %+v, want %d", len(seeds), seeds, len(wantSeeds))
	}
	for i, w := range wantSeeds {
		if seeds[i] != w {
			t.Errorf("seed %d = %+v, want %+v", i, seeds[i], w)
		}
	}
	wantRejected := map[int]string{
		4:  `scheme "ftp" is not http or https`,
		6:  `priority "high" is not an integer`,
		7:  "no host",
		8:  "has no scheme",
		9:  "port",
		12: "unparsable URL",
		13: "credentials",
		14: "unexpected text after the priority",
		16: "NUL byte",
		18: `priority "mple.org/" is not an integer`,
	}
	got := map[int]string{}
	for _, r := range rejected {
		got[r.Line] = r.String()
		if r.File != "seeds.txt" {
			t.Errorf("line %d: file = %q, want seeds.txt", r.Line, r.File)
		}
	}
	for line, want := range wantRejected {
		msg, ok := got[line]
		if !ok {
			t.Errorf("line %d not rejected, want %q", line, want)
			continue
		}
		prefix := fmt.Sprintf("seeds.txt:%d: ", line)
		if !strings.HasPrefix(msg, prefix) || !strings.Contains(msg, want) {
			t.Errorf("line %d: got %q, want prefix %q and %q", line, msg, prefix, want)
		}
	}
	if len(rejected) != len(wantRejected) {
		t.Errorf("got %d rejected lines %v, want %d", len(rejected), got, len(wantRejected))
	}
}

func TestCheckSeedsRefusesTheFile(t *testing.T) {
	t.Parallel()
	_, err := Check("s.txt", strings.NewReader("https://a.example/\nnot a url\n"))
	var se *Error
	if !errors.As(err, &se) {
		t.Fatalf("err = %v, want a *Error", err)
	}
	if se.Line != 2 || !strings.HasPrefix(err.Error(), "s.txt:2: ") {
		t.Errorf("err = %q, want it to name s.txt:2", err)
	}
}

// TestSeedReaderEdgeFiles: what the reader returns and skips, and what
// --strict (Check) makes of the same file.
func TestSeedReaderEdgeFiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		in        string
		seeds     int
		skipped   int
		strictErr error // nil, ErrNone, or errSeedLine for a *Error
	}{
		{"empty", "", 0, 0, ErrNone},
		{"only comments", "# a\n\n   # b\n", 0, 0, ErrNone},
		{"binary", "\x00\x01\x02\xff\xfe\n\x89PNG\r\n", 0, 2, errSeedLine},
		{"BOM and CRLF", "\ufeffhttps://a.example/x\r\nhttps://a.example/y\r\n", 2, 0, nil},
		{"no final newline", "https://a.example/x", 1, 0, nil},
		{"duplicates are returned", "https://a.example/x\nhttps://A.EXAMPLE:443/x 3\n", 2, 0, nil},
		{"one megabyte line then a good one", "https://a.example/" + strings.Repeat("a", 1<<20) + "\nhttps://a.example/ok\n", 1, 1, errSeedLine},
		{"bad lines only", strings.Repeat("ftp://a.example/\n", 3), 0, 3, errSeedLine},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seeds, sr := readAll("f", tt.in)
			if len(seeds) != tt.seeds || sr.Seeds() != tt.seeds || sr.RejectedCount() != tt.skipped || sr.Err() != nil {
				t.Errorf("got %d seeds (counted %d), %d skipped, err %v; want %d, %d, nil",
					len(seeds), sr.Seeds(), sr.RejectedCount(), sr.Err(), tt.seeds, tt.skipped)
			}
			n, err := Check("f", strings.NewReader(tt.in))
			var se *Error
			switch {
			case tt.strictErr == errSeedLine && !errors.As(err, &se):
				t.Errorf("Check = %v, want a *Error", err)
			case tt.strictErr != errSeedLine && !errors.Is(err, tt.strictErr):
				t.Errorf("Check = %v, want %v", err, tt.strictErr)
			case err == nil && n != tt.seeds:
				t.Errorf("Check counted %d seeds, want %d", n, tt.seeds)
			}
		})
	}
}

var errSeedLine = errors.New("a *seeds.Error")

// TestSeedReaderKeepsTheFirstRejectedLines: a file of many bad lines
// costs MaxRejectedKept of them in memory, and all are counted and told.
func TestSeedReaderKeepsTheFirstRejectedLines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		bad  int
		kept int
	}{
		{"a few", 3, 3},
		{"as many as kept", MaxRejectedKept, MaxRejectedKept},
		{"more", 3*MaxRejectedKept + 7, MaxRejectedKept},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := strings.Repeat("example.org/noscheme\n", tt.bad) + "https://a.example/\n"
			sr := NewReader("seeds.txt", strings.NewReader(text))
			told := 0
			sr.OnReject = func(Rejected) { told++ }
			var seeds []Seed
			for s, ok := sr.Next(); ok; s, ok = sr.Next() {
				seeds = append(seeds, s)
			}
			if len(seeds) != 1 || seeds[0].Line != tt.bad+1 {
				t.Errorf("seeds = %+v, want one at line %d", seeds, tt.bad+1)
			}
			if got := len(sr.Rejected()); got != tt.kept || sr.RejectedCount() != tt.bad || told != tt.bad {
				t.Errorf("kept %d, counted %d, told %d; want %d, %d, %d", got, sr.RejectedCount(), told, tt.kept, tt.bad, tt.bad)
			}
			want := fmt.Sprintf(`seeds.txt:%d: URL "example.org/noscheme" has no scheme (want http:// or https://)`, tt.kept)
			if last := sr.Rejected()[len(sr.Rejected())-1]; last.String() != want {
				t.Errorf("last kept = %q, want %q", last, want)
			}
		})
	}
}

// readAll reads every seed of text, as a run does a batch at a time.
func readAll(name, text string) ([]Seed, *Reader) {
	sr := NewReader(name, strings.NewReader(text))
	var seeds []Seed
	for {
		s, ok := sr.Next()
		if !ok {
			return seeds, sr
		}
		seeds = append(seeds, s)
	}
}

// TestCredentialsNeverInErrors: whatever rejects a URL with credentials
// (the credentials themselves, or any other fault found first), the error
// and the rejected seed line do not show the password.
func TestCredentialsNeverInErrors(t *testing.T) {
	t.Parallel()
	const secret = "S3cretPass"
	lines := []string{
		"http://alice:" + secret + "@example.org/",
		"ftp://alice:" + secret + "@example.org/",
		"alice:" + secret + "@example.org/",
		"http://alice:" + secret + "@example.org:99999/",
		"http://alice:" + secret + "@exa mple.org/",
		"http://alice:" + secret + "@example.org/ notanumber",
		"http://alice:" + secret + "@example.org/\x01",
		"http://alice:" + secret + "@" + strings.Repeat("a", 9000) + ".org/",
	}
	for _, l := range lines {
		if _, err := urls.Parse(l); err == nil || strings.Contains(err.Error(), secret) {
			t.Errorf("Parse(%.40q) = %v, want an error without the password", l, err)
		}
		if _, err := urls.Resolve(urls.Must("http://example.org/"), l); err == nil || strings.Contains(err.Error(), secret) {
			t.Errorf("Resolve(%.40q) = %v, want an error without the password", l, err)
		}
	}
	_, sr := readAll("seeds.txt", strings.Join(lines, "\n")+"\nhttp://example.org/ok\n")
	rejected := sr.Rejected()
	if len(rejected) != len(lines) {
		t.Fatalf("%d lines rejected, want %d", len(rejected), len(lines))
	}
	for _, r := range rejected {
		if strings.Contains(r.Text+r.Reason, secret) {
			t.Errorf("rejected line %d shows the password: %q %q", r.Line, r.Text, r.Reason)
		}
	}
}
