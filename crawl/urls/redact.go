package urls

import "strings"

// Redact hides the credentials of every URL in s, so that a
// password given in a seed file is never shown, logged or stored:
// "http://alice:S3cret@host/" becomes "http://alice:xxxxx@host/", and a
// user name alone, often a token, becomes "REDACTED". A word without a
// scheme is judged up to its first "/", "?" or "#": "alice:S3cret@host/"
// is redacted too, since it may be a URL missing its scheme.
func Redact(s string) string {
	if !strings.Contains(s, "@") {
		return s
	}
	var b strings.Builder
	last := 0
	for _, w := range words(s) {
		starts := authorityStarts(s[w[0]:w[1]])
		for _, st := range starts {
			start := w[0] + st
			end := start + strings.IndexAny(s[start:w[1]]+"/", "/?#")
			at := strings.LastIndexByte(s[start:end], '@')
			if at < 0 {
				continue
			}
			b.WriteString(s[last:start])
			b.WriteString(maskUserinfo(s[start : start+at]))
			last = start + at
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// words returns the [start, end) of each run of s without white space or
// quotes.
func words(s string) [][2]int {
	var ws [][2]int
	start := -1
	for i := 0; i <= len(s); i++ {
		sep := i == len(s) || strings.IndexByte(" \t\r\n\v\f\"'<>`", s[i]) >= 0
		switch {
		case sep && start >= 0:
			ws = append(ws, [2]int{start, i})
			start = -1
		case !sep && start < 0:
			start = i
		}
	}
	return ws
}

// authorityStarts returns where the authority of each URL in the word w
// begins: after each "://", or at the word's start when it has none.
func authorityStarts(w string) []int {
	var starts []int
	for off := 0; ; {
		i := strings.Index(w[off:], "://")
		if i < 0 {
			break
		}
		off += i + 3
		starts = append(starts, off)
	}
	if len(starts) == 0 {
		starts = append(starts, 0)
	}
	return starts
}

// maskUserinfo keeps the user name of "user:password" and hides the rest.
func maskUserinfo(ui string) string {
	if i := strings.IndexByte(ui, ':'); i > 0 {
		return ui[:i] + ":xxxxx"
	}
	return "REDACTED"
}
