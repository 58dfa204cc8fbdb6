package usage

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/polite-crawler/polite/robots"
)

// TDMRepPath is where an origin publishes its TDMRep rules.
const TDMRepPath = "/.well-known/tdmrep.json"

// MaxTDMRep bounds a tdmrep.json body, as robots.MaxBytes bounds a
// robots.txt; MaxTDMRules bounds its rules.
const (
	MaxTDMRep   = 500 << 10
	MaxTDMRules = 10000
)

// TDMRule is one rule of a tdmrep.json: the paths location matches, and
// their reservation.
type TDMRule struct {
	Location    string `json:"location"`
	Reservation int    `json:"tdm-reservation"`
	Policy      string `json:"tdm-policy,omitempty"`
}

// TDMFile is an origin's tdmrep.json, its rules in file order.
type TDMFile struct {
	Rules []TDMRule
}

// ParseTDMRep reads a tdmrep.json body: a JSON array of rules, each with
// a location (a path pattern: "*" any run of characters, a final "$" the
// end of the path) and a tdm-reservation of 0 or 1. A body that is not
// such an array, or is too large, is an error naming what is wrong; a
// rule without a location starting with "/" or "*", or with another
// reservation, is an error too, naming its index.
func ParseTDMRep(body []byte) (*TDMFile, error) {
	if len(body) > MaxTDMRep {
		return nil, fmt.Errorf("tdmrep.json: larger than %d bytes", MaxTDMRep)
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, fmt.Errorf("tdmrep.json: not a JSON array of rules: %w", err)
	}
	if len(raw) > MaxTDMRules {
		return nil, fmt.Errorf("tdmrep.json: more than %d rules", MaxTDMRules)
	}
	f := &TDMFile{}
	for i, m := range raw {
		var r TDMRule
		if err := json.Unmarshal(m, &r); err != nil {
			return nil, fmt.Errorf("tdmrep.json: rule %d: %w", i, err)
		}
		if !strings.HasPrefix(r.Location, "/") && !strings.HasPrefix(r.Location, "*") {
			return nil, fmt.Errorf("tdmrep.json: rule %d: location %q is not a path", i, r.Location)
		}
		if r.Reservation != 0 && r.Reservation != 1 {
			return nil, fmt.Errorf("tdmrep.json: rule %d: tdm-reservation %d is neither 0 nor 1", i, r.Reservation)
		}
		f.Rules = append(f.Rules, r)
	}
	return f, nil
}

// For returns the signal of the first rule whose location matches path
// (rules apply in file order), and whether one matched.
func (f *TDMFile) For(path string) (Signal, bool) {
	if f == nil {
		return Signal{}, false
	}
	for i, r := range f.Rules {
		if robots.MatchPattern(r.Location, path) { // "*" any run, a final "$" the end
			return Signal{Source: FromTDMRep, TDM: tdm(r.Reservation), Policy: r.Policy,
				Rule: fmt.Sprintf("rule %d, location %s", i, r.Location)}, true
		}
	}
	return Signal{}, false
}
