package cmd

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/frontier"
)

func TestTDMRepOf(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var many strings.Builder
	many.WriteString("[")
	for i := range maxTDMShown + 5 {
		if i > 0 {
			many.WriteString(",")
		}
		fmt.Fprintf(&many, `{"location": "/p%d/", "tdm-reservation": 1}`, i)
	}
	many.WriteString("]")
	for _, tc := range []struct {
		name string
		copy frontier.TDMRepCopy
		want []string // nil: none; else the lines, or the last line when long
	}{
		{"none kept", frontier.TDMRepCopy{}, nil},
		{"404", frontier.TDMRepCopy{Status: 404, FetchedAt: at}, []string{"none (404)"}},
		{"rules", frontier.TDMRepCopy{Status: 200, FetchedAt: at,
			Body: []byte(`[{"location": "/images/*", "tdm-reservation": 1, "tdm-policy": "https://p.example/policy.json"}, {"location": "/*", "tdm-reservation": 0}]`)},
			[]string{"rule 0, location /images/*: tdm-reservation=1 tdm-policy=https://p.example/policy.json", "rule 1, location /*: tdm-reservation=0"}},
		{"empty array", frontier.TDMRepCopy{Status: 200, FetchedAt: at, Body: []byte(`[]`)}, []string{"no rules"}},
		{"control characters quoted", frontier.TDMRepCopy{Status: 200, FetchedAt: at, Body: []byte(`[{"location": "/a\u001b[2J", "tdm-reservation": 1}]`)},
			[]string{`rule 0, location "/a\x1b[2J": tdm-reservation=1`}},
		{"bad body", frontier.TDMRepCopy{Status: 200, FetchedAt: at, Body: []byte(`{}`)}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tdmRepOf(tc.copy)
			if tc.name == "bad body" {
				if len(got) != 1 || !strings.HasPrefix(got[0], "unread: tdmrep.json: ") {
					t.Errorf("got %q, want one unread line", got)
				}
				return
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	got := tdmRepOf(frontier.TDMRepCopy{Status: 200, FetchedAt: at, Body: []byte(many.String())})
	if len(got) != maxTDMShown+1 || got[maxTDMShown] != "... and 5 more rules" {
		t.Errorf("%d rules: %d lines, last %q; want %d and the rest counted", maxTDMShown+5, len(got), got[len(got)-1], maxTDMShown+1)
	}
}
