package seeds

import (
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// TestBatchReadsAsNext: a batch's rounds of lines, parsed on several
// goroutines, give what Next gives one line at a time: the same seeds
// with their parsed URLs, the same lines skipped and told in the same
// order, no line read past the batch's last seed, and the end of the
// file where Next finds it.
func TestBatchReadsAsNext(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("\ufeffhttp://BOM.example/first\n")
	for i := range 3*parseRound + 11 {
		switch {
		case i%97 == 0:
			b.WriteString("example.org/noscheme\n")
		case i%89 == 0:
			b.WriteString("\n# a comment\n")
		case i%83 == 0:
			fmt.Fprintf(&b, "http://h%d.example/p/%d notanumber\n", i%7, i)
		case i == 2000:
			b.WriteString(strings.Repeat("x", maxSeedLine+10) + "\n")
		default:
			fmt.Fprintf(&b, "HTTP://H%d.Example:80/a/../p/%d %d\n", i%7, i, i%5)
		}
	}
	b.WriteString("http://last.example/no-newline")
	text := b.String()
	for _, n := range []int{1, 7, 1000, parseRound, 5000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			one := NewReader("s", strings.NewReader(text))
			var told1, told2 []Rejected
			one.OnReject = func(r Rejected) { told1 = append(told1, r) }
			batch := NewReader("s", strings.NewReader(text))
			batch.OnReject = func(r Rejected) { told2 = append(told2, r) }
			for call := 0; ; call++ {
				var want []Seed
				var wantURLs []*url.URL
				for len(want) < n {
					s, ok := one.Next()
					if !ok {
						break
					}
					want, wantURLs = append(want, s), append(wantURLs, one.parsed)
				}
				got, gotURLs, more := batch.nextBatch(n, nil, nil)
				if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotURLs, wantURLs) {
					t.Fatalf("call %d: %d seeds, want %d (first %+v, want %+v)", call, len(got), len(want), got[:min(1, len(got))], want[:min(1, len(want))])
				}
				if batch.line != one.line {
					t.Fatalf("call %d: read to line %d, Next to line %d", call, batch.line, one.line)
				}
				if !more {
					if len(got) == n {
						t.Fatalf("call %d: the end with a full batch", call)
					}
					if _, ok := one.Next(); ok {
						t.Fatalf("call %d: the end, where Next reads on", call)
					}
					break
				}
				if len(got) != n {
					t.Fatalf("call %d: %d seeds and more, want %d", call, len(got), n)
				}
			}
			if batch.Seeds() != one.Seeds() || !reflect.DeepEqual(batch.Rejected(), one.Rejected()) ||
				!reflect.DeepEqual(told2, told1) || batch.RejectedCount() != one.RejectedCount() {
				t.Errorf("%d seeds, %d skipped (%d told); Next: %d, %d (%d told)",
					batch.Seeds(), batch.RejectedCount(), len(told2), one.Seeds(), one.RejectedCount(), len(told1))
			}
			if one.Seeds() < 2*parseRound || one.RejectedCount() < 100 {
				t.Errorf("the file has %d seeds and %d bad lines: too few to tell", one.Seeds(), one.RejectedCount())
			}
		})
	}
}
