package urls

import (
	"net/url"
	"reflect"
	"testing"
)

func TestPageRequisites(t *testing.T) {
	t.Parallel()
	base, _ := url.Parse("http://example.org/dir/page")
	tests := []struct {
		name string
		html string
		want []string
	}{
		{"img src and srcset", `<img src="i.png" srcset="i2.png 2x, /i3.png 3x">`,
			[]string{"http://example.org/dir/i.png", "http://example.org/dir/i2.png", "http://example.org/i3.png"}},
		{"picture source", `<picture><source srcset="/a.webp 1x"><img src="/a.png"></picture>`,
			[]string{"http://example.org/a.webp", "http://example.org/a.png"}},
		{"link rels", `<link rel="stylesheet" href="/s.css"><link rel="shortcut icon" href="/f.ico"><link rel="preload" href="/p.woff2"><link rel="modulepreload" href="/m.js"><link rel="next" href="/p2">`,
			[]string{"http://example.org/s.css", "http://example.org/f.ico", "http://example.org/p.woff2", "http://example.org/m.js"}},
		{"script, media, embed, object", `<script src="/s.js"></script><script>var x="/no.js"</script><video src="/v.mp4" poster="/v.jpg"><source src="/v.webm"></video><audio src="/a.ogg"></audio><embed src="/e.swf"><object data="/o.svg"></object>`,
			[]string{"http://example.org/s.js", "http://example.org/v.mp4", "http://example.org/v.jpg", "http://example.org/v.webm", "http://example.org/a.ogg", "http://example.org/e.swf", "http://example.org/o.svg"}},
		{"inline style and style attribute", `<style>@import "/i.css"; body{background:url('/bg.png')}</style><div style="background-image: url(/d.png)">x</div>`,
			[]string{"http://example.org/i.css", "http://example.org/bg.png", "http://example.org/d.png"}},
		{"base href", `<base href="http://cdn.example/x/"><img src="y.png">`, []string{"http://cdn.example/x/y.png"}},
		{"links are not requisites; data and odd schemes skipped", `<a href="/a">a</a><img src="data:image/png;base64,AAAA"><img src="javascript:x"><img src="">`, nil},
		{"duplicates once", `<img src="/a.png"><img src="/a.png#x">`, []string{"http://example.org/a.png"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, u := range PageRequisites([]byte(tt.html), base) {
				got = append(got, u.String())
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCSSRequisites(t *testing.T) {
	t.Parallel()
	base, _ := url.Parse("http://example.org/css/site.css")
	css := `@import "base.css"; @import url(print.css) print;
	body { background: URL( "../img/bg.png" ) } .a{background:url(data:image/gif;base64,R0lG)} .b { src: url(font.woff2) }`
	var got []string
	for _, u := range CSSRequisites([]byte(css), base) {
		got = append(got, u.String())
	}
	want := []string{"http://example.org/css/base.css", "http://example.org/css/print.css", "http://example.org/img/bg.png", "http://example.org/css/font.woff2"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestRequisitesAllows(t *testing.T) {
	t.Parallel()
	page, _ := url.Parse("http://example.org/")
	same, _ := url.Parse("http://example.org/a.png")
	other, _ := url.Parse("http://cdn.example/a.png")
	for _, tt := range []struct {
		mode        Requisites
		same, other bool
	}{{"", false, false}, {RequisitesOff, false, false}, {RequisitesSameHost, true, false}, {RequisitesAnyHost, true, true}} {
		if got := tt.mode.On(); got != tt.same {
			t.Errorf("%q on: %v", tt.mode, got)
		}
		if got := tt.mode.Allows(page, same); got != tt.same {
			t.Errorf("%s same host: %v", tt.mode, got)
		}
		if got := tt.mode.Allows(page, other); got != tt.other {
			t.Errorf("%s other host: %v", tt.mode, got)
		}
	}
}
