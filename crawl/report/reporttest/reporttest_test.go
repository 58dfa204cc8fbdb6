package reporttest

import (
	"strings"
	"testing"
)

func TestReportHTMLProblems(t *testing.T) {
	t.Parallel()
	const svg = `<svg class="timeline" aria-label="timeline of a.example"></svg>`
	page := func(body string) []byte {
		return []byte("<!doctype html><html><head><title>t</title><style>p{}</style></head><body>" + body + "</body></html>")
	}
	tests := []struct {
		name string
		page []byte
		want string // in one of the problems; "" for none
	}{
		{"good", page(`<p><a href="#x">x</a></p>` + svg), ""},
		{"script", page(`<script>1</script>` + svg), "<script>"},
		{"image", page(`<img src="https://a.example/x.png">` + svg), "<img>"},
		{"stylesheet", page(`<link rel="stylesheet" href="s.css">` + svg), "<link>"},
		{"external link", page(`<a href="https://a.example/">a</a>` + svg), "refers to a resource"},
		{"font in style", []byte(`<!doctype html><html><head><style>@font-face{src:url(f.woff)}</style></head><body>` + svg + `</body></html>`), "style sheet"},
		{"event handler", page(`<p onclick="x()">p</p>` + svg), "runs script"},
		{"unclosed", page(`<div><p>x</div>` + svg), "closes"},
		{"no doctype", []byte(`<html><body>` + svg + `</body></html>`), "doctype"},
		{"no timeline", page(`<p>x</p>`), "0 timelines"},
		{"timeline of another host", page(`<svg class="timeline" aria-label="timeline of b.example"></svg>`), "want the one of a.example"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := reportHTMLProblems(tt.page, []string{"a.example"})
			if tt.want == "" {
				if len(got) > 0 {
					t.Errorf("problems %q, want none", got)
				}
				return
			}
			if !strings.Contains(strings.Join(got, "\n"), tt.want) {
				t.Errorf("problems %q, want one saying %q", got, tt.want)
			}
		})
	}
}
