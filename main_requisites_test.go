package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/polite-crawler/polite/crawl/crawltest"
)

// polite crawl --warc from a site's home page fetches each page's
// requisites by default (--requisites any-host), counted apart in the
// summary; without --warc it fetches none, unless asked.
func TestCLIRequisitesWithWarc(t *testing.T) {
	tests := []struct {
		name    string
		flags   []string
		reqs    int
		summary string
	}{
		{"--warc", []string{"--warc"}, 6, "of them 6 requisites from 1 host"},
		{"without --warc", nil, 0, ""},
		{"--requisites same-host without --warc", []string{"--requisites", "same-host"}, 6, "of them 6 requisites from 1 host"},
		{"--warc --requisites off", []string{"--warc", "--requisites", "off"}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, srv := serve(t, crawltest.Config{Pages: 2, Links: 1, Requisites: 3, Robots: "User-agent: *\nAllow: /\n"})
			dir := t.TempDir()
			args := append([]string{"crawl", "--db", filepath.Join(dir, "p.db"), "--out", filepath.Join(dir, "out"), "--depth", "1"}, tt.flags...)
			r := run(t, "", append(append(args, fast...), srv.URL+"/page/0")...)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, clipText(r.stderr))
			}
			reqs := 0
			for path, n := range o.Stats().ByPath {
				if strings.HasPrefix(path, "/req/") {
					reqs += n
				}
			}
			if reqs != tt.reqs {
				t.Errorf("%d requisites requested, want %d", reqs, tt.reqs)
			}
			if got := strings.Contains(r.stdout, " requisites from "); tt.summary == "" && got || tt.summary != "" && !strings.Contains(r.stdout, tt.summary) {
				t.Errorf("summary does not say %q:\n%s", tt.summary, r.stdout)
			}
		})
	}
}
