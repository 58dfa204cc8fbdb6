package urls

import (
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestLinkRels(t *testing.T) {
	base, _ := url.Parse("https://api.example.org/v1/items?page=2")
	tests := []struct {
		name   string
		values []string
		rels   []string
		want   []string
	}{
		{"github", []string{`<https://api.example.org/v1/items?page=3>; rel="next", <https://api.example.org/v1/items?page=9>; rel="last"`},
			DefaultRels, []string{"https://api.example.org/v1/items?page=3"}},
		{"relative", []string{`</v1/items?page=3>; rel=next`}, DefaultRels, []string{"https://api.example.org/v1/items?page=3"}},
		{"several rels", []string{`<p1>; rel="first prev"`, `<p9>; rel="last"`}, []string{"prev", "last"},
			[]string{"https://api.example.org/v1/p1", "https://api.example.org/v1/p9"}},
		{"case", []string{`<p3>; REL="Next"`}, DefaultRels, []string{"https://api.example.org/v1/p3"}},
		{"--follow 'next, last'", []string{`<p9>; rel="last"`}, []string{"next", " last"}, []string{"https://api.example.org/v1/p9"}},
		{"comma in a quoted title", []string{`<p1>; title="a, <b>; rel=next"; rel="prev", <p3>; rel="next"`}, DefaultRels,
			[]string{"https://api.example.org/v1/p3"}},
		{"escaped quote", []string{`<p3>; title="say \"hi\""; rel="next"`}, DefaultRels, []string{"https://api.example.org/v1/p3"}},
		{"first rel wins", []string{`<p3>; rel="prev"; rel="next"`}, DefaultRels, nil},
		{"anchor: another context", []string{`<p3>; rel="next"; anchor="#x"`}, DefaultRels, nil},
		{"other scheme", []string{`<ftp://example.org/x>; rel="next"`}, DefaultRels, nil},
		{"once each", []string{`<p3>; rel=next, <p3>; rel=next`}, DefaultRels, []string{"https://api.example.org/v1/p3"}},
		{"garbage", []string{`next page is p3`, `<p3`, `;;;`, ``}, DefaultRels, nil},
		{"no rels followed", []string{`<p3>; rel=next`}, []string{}, nil},
		{"bad param then link", []string{`<p1>; ="x"; rel=prev, <p3>; rel=next`}, DefaultRels, []string{"https://api.example.org/v1/p3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, u := range LinkRels(tt.values, base, tt.rels) {
				got = append(got, u.String())
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("LinkRels(%q, %v) = %q, want %q", tt.values, tt.rels, got, tt.want)
			}
		})
	}
}

// A header of many links gives at most MaxLinkHeader of them.
func TestLinkRelsBounded(t *testing.T) {
	base, _ := url.Parse("https://example.org/")
	var b strings.Builder
	for i := 0; i < 10*MaxLinkHeader; i++ {
		b.WriteString(`</p` + strconv.Itoa(i) + `>; rel=next, `)
	}
	if n := len(LinkRels([]string{b.String()}, base, DefaultRels)); n != MaxLinkHeader {
		t.Errorf("%d links, want %d", n, MaxLinkHeader)
	}
}

func FuzzLinkRels(f *testing.F) {
	f.Add(`<p3>; rel="next"; title="a, b", <p1>; rel=prev`)
	f.Add(`<`)
	f.Add(`<a>;"`)
	base, _ := url.Parse("https://example.org/a/")
	f.Fuzz(func(t *testing.T, v string) {
		for _, u := range LinkRels([]string{v}, base, []string{"next", "prev"}) {
			if u.Scheme != "http" && u.Scheme != "https" {
				t.Errorf("%q gave %s", v, u)
			}
		}
	})
}
