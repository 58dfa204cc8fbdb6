package crawl

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestReadSeedsRejectsEachBadLineWithItsNumber(t *testing.T) {
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
	seeds, rejected, err := ReadSeeds("seeds.txt", strings.NewReader(file), false)
	if err != nil {
		t.Fatalf("ReadSeeds: %v", err)
	}
	wantSeeds := []Seed{
		{URL: "https://example.org/a", Line: 3},
		{URL: "https://example.org/b", Priority: 10, Line: 5},
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

func TestReadSeedsStrictRefusesTheFile(t *testing.T) {
	_, _, err := ReadSeeds("s.txt", strings.NewReader("https://a.example/\nnot a url\n"), true)
	var se *SeedError
	if !errors.As(err, &se) {
		t.Fatalf("err = %v, want a *SeedError", err)
	}
	if se.Line != 2 || !strings.HasPrefix(err.Error(), "s.txt:2: ") {
		t.Errorf("err = %q, want it to name s.txt:2", err)
	}
}

func TestReadSeedsEdgeFiles(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    int
		wantErr error
	}{
		{"empty", "", 0, ErrNoSeeds},
		{"only comments", "# a\n\n   # b\n", 0, ErrNoSeeds},
		{"binary", "\x00\x01\x02\xff\xfe\n\x89PNG\r\n", 0, ErrNoSeeds},
		{"BOM and CRLF", "\ufeffhttps://a.example/x\r\nhttps://a.example/y\r\n", 2, nil},
		{"no final newline", "https://a.example/x", 1, nil},
		{"one megabyte line then a good one", "https://a.example/" + strings.Repeat("a", 1<<20) + "\nhttps://a.example/ok\n", 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seeds, _, err := ReadSeeds("f", strings.NewReader(tt.in), false)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if len(seeds) != tt.want {
				t.Errorf("got %d seeds, want %d", len(seeds), tt.want)
			}
		})
	}
}
