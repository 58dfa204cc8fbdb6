package output

import (
	"bytes"
	"encoding/json"
	"testing"
)

// indentCases are compact JSON documents that exercise what indenting
// must get right: nesting, empty objects and arrays, and strings holding
// punctuation, quotes and backslashes.
var indentCases = map[string]string{
	"scalar":           `42`,
	"empty object":     `{}`,
	"empty array":      `[]`,
	"nested empties":   `{"a":{},"b":[],"c":[{}],"d":[[]]}`,
	"punctuation":      `{"a{b":"c,d:e[f]}","g":["h\"i","j\\","k\\\"l"]}`,
	"numbers and null": `{"t":1.5e-7,"n":null,"ok":true,"no":false,"list":[1,-2,3.25]}`,
	"escaped html":     `{"u":"\u003cb\u003e\u0026"}`,
	"report-like": `{"run_id":1,"hosts":[{"host":"a:1","timeline":[{"t":0.1,"delay":0,"latency":1.2,"status":200},` +
		`{"t":0.2,"delay":0.5,"latency":3,"status":429,"retry_after":7}]}],"frontier":{"done":2}}`,
}

// WriteIndented writes what json.Indent would, and a newline: report.json
// reads the same as when it was indented whole in memory.
func TestWriteIndentedIsJSONIndent(t *testing.T) {
	for name, in := range indentCases {
		t.Run(name, func(t *testing.T) {
			checkIndented(t, []byte(in))
		})
	}
}

// The report's own shape: a value marshalled and indented by
// json.MarshalIndent is byte for byte what WriteIndented writes of its
// compact form.
func TestWriteIndentedMatchesMarshalIndent(t *testing.T) {
	v := map[string]any{
		"hosts":  []map[string]any{{"host": "x", "timeline": []any{}, "holds": nil}, {"host": "y:8080", "2xx": 3}},
		"empty":  map[string]int{},
		"quoted": `say "hi", {ok}: [yes] \ no`,
	}
	compact, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.MarshalIndent(v, "", "  ")
	var got bytes.Buffer
	if err := WriteIndented(&got, compact); err != nil {
		t.Fatal(err)
	}
	if got.String() != string(want)+"\n" {
		t.Errorf("WriteIndented:\n%s\nwant json.MarshalIndent's:\n%s", got.String(), want)
	}
}

// FuzzWriteIndented checks WriteIndented against json.Indent on any
// valid JSON, made compact first as json.Marshal would give it.
func FuzzWriteIndented(f *testing.F) {
	for _, in := range indentCases {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var compact bytes.Buffer
		if json.Compact(&compact, []byte(in)) != nil {
			return
		}
		checkIndented(t, compact.Bytes())
	})
}

func checkIndented(t *testing.T, compact []byte) {
	t.Helper()
	var want bytes.Buffer
	if err := json.Indent(&want, compact, "", "  "); err != nil {
		t.Fatalf("json.Indent(%q): %v", compact, err)
	}
	want.WriteByte('\n')
	var got bytes.Buffer
	if err := WriteIndented(&got, compact); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Errorf("WriteIndented(%q):\n%s\nwant:\n%s", compact, got.String(), want.String())
	}
}
