package seeds

import (
	"net/url"
	"runtime"
	"sync"
)

// parseRound is how many lines a Loader has its Reader read at once, and
// then parse on the machine's cores (nextBatch): parsing and normalising
// a seed's URL costs ten times more than reading its line.
const parseRound = 4096

// minPart is the fewest lines one goroutine of a round parses: fewer are
// not worth a goroutine.
const minPart = 512

// nextBatch appends to seeds, and their parsed URLs to us, the next valid
// seeds, up to n of them, as Next would return them one by one: it reads
// no more lines than they take, and skipped lines are counted, kept and
// told in the order of the file. It holds n lines at most, parsed on the
// machine's cores. more is false once the file has no more lines (or a
// read failed: Err).
func (sr *Reader) nextBatch(n int, seeds []Seed, us []*url.URL) (_ []Seed, _ []*url.URL, more bool) {
	want := len(seeds) + n
	for len(seeds) < want {
		raw, ended := sr.raw[:0], false
		for len(raw) < want-len(seeds) {
			r, ok := sr.readOne()
			if !ok {
				ended = true
				break
			}
			raw = append(raw, r)
		}
		parsed := parseAll(raw, sr.out)
		for i := range parsed {
			if sr.take(&parsed[i]) {
				seeds = append(seeds, parsed[i].seed)
				us = append(us, parsed[i].u)
			}
		}
		clear(raw) // nothing of the round outlives it but what was taken
		clear(parsed)
		sr.raw, sr.out = raw, parsed
		if ended {
			return seeds, us, false
		}
	}
	return seeds, us, true
}

// parseAll parses lines into out's memory, the lines split among the
// cores, and returns them in order.
func parseAll(lines []rawLine, out []parsedLine) []parsedLine {
	if cap(out) < len(lines) {
		out = make([]parsedLine, len(lines))
	}
	out = out[:len(lines)]
	parts := min(runtime.GOMAXPROCS(0), max(len(lines)/minPart, 1))
	size := (len(lines) + parts - 1) / parts
	var wg sync.WaitGroup
	for from := size; from < len(lines); from += size {
		wg.Go(func() { parseInto(lines[from:min(from+size, len(lines))], out[from:]) })
	}
	parseInto(lines[:min(size, len(lines))], out)
	wg.Wait()
	return out
}

func parseInto(lines []rawLine, out []parsedLine) {
	for i, r := range lines {
		out[i] = parseLine(r)
	}
}
