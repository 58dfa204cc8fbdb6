package usage

import (
	"strings"

	"github.com/dunglas/httpsfv"
)

// Value is a preference for one category.
type Value int

// The three preferences of draft-ietf-aipref-vocab-08 section 3.
const (
	Unknown Value = iota
	Allow
	Disallow
)

// Pref is one member of a Content-Usage dictionary, as written: a known
// category's or not, y or n or anything else. Unknown labels and values
// are kept, to be shown, and never read as a preference.
type Pref struct {
	Label string
	Value string // "y", "n", or the member's value written out ("?1", "\"n\"", "(a b)")
	Known bool   // Label is one of Categories
}

// Statement is one statement of preference: a Content-Usage dictionary
// (draft-ietf-aipref-vocab-08 section 6). A field that does not parse is
// a statement with every preference unknown, and Err says why.
type Statement struct {
	Prefs []Pref
	Err   string
}

// MaxField bounds a Content-Usage value read; a longer one does not parse.
const MaxField = 8 << 10

// ParseStatement parses a Content-Usage value. Several values (header
// lines) are one dictionary, joined as RFC 9651 section 4.2 says; a
// repeated key keeps its last value.
func ParseStatement(values ...string) Statement {
	n := 0
	for _, v := range values {
		n += len(v)
	}
	if n > MaxField {
		return Statement{Err: "longer than 8 KiB"}
	}
	d, err := httpsfv.UnmarshalDictionary(values)
	if err != nil {
		return Statement{Err: "not a structured-field dictionary"}
	}
	var st Statement
	for _, k := range d.Names() {
		m, _ := d.Get(k)
		st.Prefs = append(st.Prefs, Pref{Label: k, Value: memberText(m), Known: isCategory(k)})
	}
	return st
}

// memberText writes a dictionary member's value out: a token as it is
// (y, n), anything else serialised (a string quoted, a boolean ?1).
func memberText(m httpsfv.Member) string {
	if it, ok := m.(httpsfv.Item); ok {
		if t, ok := it.Value.(httpsfv.Token); ok {
			return string(t)
		}
		it.Params = httpsfv.NewParams() // parameters carry no meaning (section 6.5)
		s, err := httpsfv.Marshal(it)
		if err == nil {
			return s
		}
	}
	if s, err := httpsfv.Marshal(m); err == nil {
		return s
	}
	return "?"
}

func isCategory(label string) bool {
	for _, c := range Categories {
		if c == label {
			return true
		}
	}
	return false
}

// Get is the preference the statement states for label: Allow for the
// token y, Disallow for n, else Unknown (absent, another token, another
// type: not errors, section 6.6).
func (s Statement) Get(label string) Value {
	for _, p := range s.Prefs {
		if p.Label != label {
			continue
		}
		switch p.Value {
		case "y":
			return Allow
		case "n":
			return Disallow
		}
		return Unknown
	}
	return Unknown
}

// plain reports whether the statement is all known categories given y
// or n: shown as written, it needs no reading.
func (s Statement) plain() bool {
	if s.Err != "" {
		return false
	}
	for _, p := range s.Prefs {
		if !p.Known || (p.Value != "y" && p.Value != "n") {
			return false
		}
	}
	return true
}

// String writes the statement as read: "train-ai=n, search=y", with
// unknown labels and values as written.
func (s Statement) String() string {
	if s.Err != "" {
		return "unparsed (" + s.Err + ")"
	}
	parts := make([]string, len(s.Prefs))
	for i, p := range s.Prefs {
		parts[i] = p.Label + "=" + p.Value
		if !p.Known {
			parts[i] += " (unknown category)"
		}
	}
	return strings.Join(parts, ", ")
}
