package fetch

import (
	"net/http"
	"testing"
	"time"

	"github.com/polite-crawler/polite/pace"
)

func TestParseRateLimit(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_750_000_000, 0)
	s := time.Second
	tests := []struct {
		name   string
		header map[string][]string
		want   *pace.Quota // nil: no quota
	}{
		{"no headers", nil, nil},

		// The current draft: RateLimit and RateLimit-Policy lists.
		{"list with policy", map[string][]string{
			"RateLimit":        {`"default";r=5;t=30`},
			"RateLimit-Policy": {`"default";q=10;w=60`}},
			&pace.Quota{Limit: 10, Remaining: 5, Reset: 30 * s}},
		{"list without policy", map[string][]string{"RateLimit": {`"default";r=5;t=30`}},
			&pace.Quota{Remaining: 5, Reset: 30 * s}},
		{"list with a token name", map[string][]string{
			"RateLimit": {`day;r=100;t=3600`}, "RateLimit-Policy": {`day;q=1000;w=86400`}},
			&pace.Quota{Limit: 1000, Remaining: 100, Reset: time.Hour}},
		{"list without t takes the policy window", map[string][]string{
			"RateLimit": {`"p";r=5`}, "RateLimit-Policy": {`"p";q=10;w=60`}},
			&pace.Quota{Limit: 10, Remaining: 5, Reset: 60 * s}},
		{"the most restrictive of several policies", map[string][]string{
			"RateLimit":        {`"burst";r=50;t=1, "day";r=100;t=3600`},
			"RateLimit-Policy": {`"burst";q=100;w=1, "day";q=5000;w=86400`}},
			&pace.Quota{Limit: 5000, Remaining: 100, Reset: time.Hour}},
		{"an exhausted policy is the most restrictive", map[string][]string{
			"RateLimit": {`"a";r=1;t=600, "b";r=0;t=5`}},
			&pace.Quota{Remaining: 0, Reset: 5 * s}},
		{"list split over two field lines", map[string][]string{"RateLimit": {`"a";r=9;t=90`, `"b";r=1;t=20`}},
			&pace.Quota{Remaining: 1, Reset: 20 * s}}, // 20s a request against 10s
		{"list item with a negative remaining is skipped", map[string][]string{"RateLimit": {`"a";r=-1;t=30`}}, nil},
		{"list item with a string remaining is skipped", map[string][]string{"RateLimit": {`"a";r="5";t=30`}}, nil},
		{"list item with zero reset is skipped", map[string][]string{"RateLimit": {`"a";r=5;t=0`}}, nil},
		{"list item with an absurd reset is skipped", map[string][]string{"RateLimit": {`"a";r=5;t=999999999999`}}, nil},

		// Drafts 06 and 07: a dictionary.
		{"dictionary", map[string][]string{"RateLimit": {"limit=10, remaining=5, reset=30"}},
			&pace.Quota{Limit: 10, Remaining: 5, Reset: 30 * s}},
		{"dictionary without limit", map[string][]string{"RateLimit": {"remaining=0, reset=12"}},
			&pace.Quota{Remaining: 0, Reset: 12 * s}},
		{"dictionary with a negative reset", map[string][]string{"RateLimit": {"limit=10, remaining=5, reset=-30"}}, nil},
		{"dictionary with a decimal", map[string][]string{"RateLimit": {"limit=10, remaining=5.5, reset=30"}}, nil},
		{"dictionary with a limit below remaining drops the limit", map[string][]string{"RateLimit": {"limit=1, remaining=5, reset=30"}},
			&pace.Quota{Remaining: 5, Reset: 30 * s}},
		{"malformed structured field", map[string][]string{"RateLimit": {"limit=10,, remaining=(("}}, nil},

		// Earlier drafts: three fields, Reset in delta seconds.
		{"RateLimit-* fields", map[string][]string{
			"RateLimit-Limit": {"100"}, "RateLimit-Remaining": {"10"}, "RateLimit-Reset": {"20"}},
			&pace.Quota{Limit: 100, Remaining: 10, Reset: 20 * s}},
		{"RateLimit-Limit as a list with a window", map[string][]string{
			"RateLimit-Limit": {"100, 100;w=60"}, "RateLimit-Remaining": {"10"}, "RateLimit-Reset": {"20"}},
			&pace.Quota{Limit: 100, Remaining: 10, Reset: 20 * s}},
		{"RateLimit-* without a reset", map[string][]string{"RateLimit-Limit": {"100"}, "RateLimit-Remaining": {"10"}}, nil},
		{"RateLimit-* with garbage remaining", map[string][]string{"RateLimit-Remaining": {"lots"}, "RateLimit-Reset": {"20"}}, nil},
		{"RateLimit-* with garbage limit keeps the rest", map[string][]string{
			"RateLimit-Limit": {"many"}, "RateLimit-Remaining": {"10"}, "RateLimit-Reset": {"20"}},
			&pace.Quota{Remaining: 10, Reset: 20 * s}},

		// X-RateLimit-*: delta seconds or a Unix time.
		{"X-RateLimit-* in delta seconds", map[string][]string{
			"X-Ratelimit-Limit": {"60"}, "X-Ratelimit-Remaining": {"59"}, "X-Ratelimit-Reset": {"60"}},
			&pace.Quota{Limit: 60, Remaining: 59, Reset: 60 * s}},
		{"X-RateLimit-Reset as a Unix time", map[string][]string{
			"X-RateLimit-Limit": {"5000"}, "X-RateLimit-Remaining": {"0"}, "X-RateLimit-Reset": {"1750000090"}},
			&pace.Quota{Limit: 5000, Remaining: 0, Reset: 90 * s}},
		{"X-RateLimit-Reset as a fractional delta", map[string][]string{
			"X-RateLimit-Remaining": {"3"}, "X-RateLimit-Reset": {"1.5"}},
			&pace.Quota{Remaining: 3, Reset: 1500 * time.Millisecond}},
		{"X-RateLimit-Reset as a Unix time in the past", map[string][]string{
			"X-RateLimit-Remaining": {"0"}, "X-RateLimit-Reset": {"1749999000"}}, nil},
		{"X-RateLimit-Reset as an absurd epoch", map[string][]string{
			"X-RateLimit-Remaining": {"1"}, "X-RateLimit-Reset": {"99999999999999"}}, nil},
		{"X-RateLimit-Reset NaN", map[string][]string{"X-RateLimit-Remaining": {"1"}, "X-RateLimit-Reset": {"NaN"}}, nil},
		{"X-RateLimit-Reset Inf", map[string][]string{"X-RateLimit-Remaining": {"1"}, "X-RateLimit-Reset": {"+Inf"}}, nil},
		{"X-RateLimit-Remaining negative", map[string][]string{"X-RateLimit-Remaining": {"-1"}, "X-RateLimit-Reset": {"10"}}, nil},
		{"X-RateLimit-Remaining overflowing", map[string][]string{
			"X-RateLimit-Remaining": {"99999999999999999999999"}, "X-RateLimit-Reset": {"10"}}, nil},
		{"X-RateLimit-Remaining enormous", map[string][]string{
			"X-RateLimit-Remaining": {"9007199254740993"}, "X-RateLimit-Reset": {"10"}}, nil},

		// Precedence and fallback.
		{"the structured field wins over the older ones", map[string][]string{
			"RateLimit":             {`"p";r=5;t=30`},
			"RateLimit-Remaining":   {"50"},
			"RateLimit-Reset":       {"1"},
			"X-RateLimit-Remaining": {"500"},
			"X-RateLimit-Reset":     {"1"}},
			&pace.Quota{Remaining: 5, Reset: 30 * s}},
		{"a malformed RateLimit falls back to X-RateLimit-*", map[string][]string{
			"RateLimit": {"garbage;;;"}, "X-RateLimit-Remaining": {"7"}, "X-RateLimit-Reset": {"70"}},
			&pace.Quota{Remaining: 7, Reset: 70 * s}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, vs := range tt.header {
				for _, v := range vs {
					h.Add(k, v)
				}
			}
			got, ok := ParseRateLimit(h, now)
			switch {
			case tt.want == nil && (ok || got != nil):
				t.Errorf("ParseRateLimit = %+v, %v; want nil, false", got, ok)
			case tt.want != nil && (!ok || got == nil):
				t.Errorf("ParseRateLimit = %+v, %v; want %+v, true", got, ok, *tt.want)
			case tt.want != nil && *got != *tt.want:
				t.Errorf("ParseRateLimit = %+v, want %+v", *got, *tt.want)
			}
		})
	}
}
