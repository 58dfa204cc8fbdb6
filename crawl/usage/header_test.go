package usage

import (
	"net/http"
	"testing"
)

// TDMRep's HTTP headers (the report's tdm-reservation and tdm-policy) and odd values: a reservation
// is 0 or 1 (space around it allowed), anything else says nothing, and a
// tdm-policy without a reservation is no signal.
func TestTDMHeaderConformance(t *testing.T) {
	for _, c := range []struct {
		name   string
		header http.Header
		want   int // -1: no signal
		shown  string
	}{
		{"the report's pair: reservation and policy", http.Header{"Tdm-Reservation": {"1"}, "Tdm-Policy": {"https://provider.com/policies/policy.json"}},
			1, "tdm-reservation header: tdm-reservation=1 tdm-policy=https://provider.com/policies/policy.json"},
		{"no reservation", http.Header{"Tdm-Reservation": {"0"}}, 0, "tdm-reservation header: tdm-reservation=0"},
		{"space around the value", http.Header{"Tdm-Reservation": {" 1 "}}, 1, "tdm-reservation header: tdm-reservation=1"},
		{"first of two lines", http.Header{"Tdm-Reservation": {"1", "0"}}, 1, "tdm-reservation header: tdm-reservation=1"},
		{"not 0 or 1", http.Header{"Tdm-Reservation": {"2"}}, -1, ""},
		{"a word", http.Header{"Tdm-Reservation": {"yes"}}, -1, ""},
		{"empty", http.Header{"Tdm-Reservation": {""}}, -1, ""},
		{"policy alone", http.Header{"Tdm-Policy": {"https://provider.com/policy.json"}}, -1, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []Signal
			for _, s := range Response(c.header, nil) {
				if s.Source == FromTDMHeader {
					got = append(got, s)
				}
			}
			switch {
			case c.want < 0 && len(got) != 0:
				t.Errorf("got %v, want no signal", got)
			case c.want >= 0 && (len(got) != 1 || *got[0].TDM != c.want || got[0].String() != c.shown):
				t.Errorf("got %v, want %q", got, c.shown)
			}
		})
	}
}
