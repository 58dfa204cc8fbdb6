package output

import (
	"bufio"
	"io"
)

// WriteIndented writes compact JSON (as json.Marshal gives it) to w
// indented by two spaces a level, as json.Indent with no prefix would,
// and a newline after it, as it reads: no indented copy is held, so a
// large report costs its compact form alone. Empty objects and arrays stay
// {} and []. What is not compact JSON is written with its bytes as they
// are and the indentation undefined.
func WriteIndented(w io.Writer, compact []byte) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	depth := 0
	var inString, escaped, open bool // open: a { or [ just written, its line not yet broken
	for _, c := range compact {
		if inString {
			bw.WriteByte(c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		if open && c != '}' && c != ']' {
			depth++
			newline(bw, depth)
		}
		wasOpen := open
		open = false
		switch c {
		case '"':
			inString = true
			bw.WriteByte(c)
		case '{', '[':
			open = true
			bw.WriteByte(c)
		case ',':
			bw.WriteByte(c)
			newline(bw, depth)
		case ':':
			bw.WriteString(": ")
		case '}', ']':
			if !wasOpen {
				depth--
				newline(bw, depth)
			}
			bw.WriteByte(c)
		default:
			bw.WriteByte(c)
		}
	}
	bw.WriteByte('\n')
	return bw.Flush()
}

func newline(w *bufio.Writer, depth int) {
	w.WriteByte('\n')
	for range depth {
		w.WriteString("  ")
	}
}
