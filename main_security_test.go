package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/polite-crawler/polite/crawl/crawltest"
)

// TestCLIMaxBodyRange: a --max-body out of range is exit 2 naming the flag
// and the range, before anything is fetched (9223372036854775807 once made
// every body empty and "done"); the largest allowed value keeps bodies whole.
func TestCLIMaxBodyRange(t *testing.T) {
	o, srv := serve(t, crawltest.Config{})
	seeds := writeFile(t, "seeds.txt", srv.URL+"/a/1\n")
	tests := []struct {
		name string
		max  string
		code int
	}{
		{"the largest int64", "9223372036854775807", 2},
		{"one byte over 1 GiB", "1073741825", 2},
		{"zero", "0", 2},
		{"1 GiB", "1073741824", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out")
			before := o.Stats().Requests
			args := append([]string{"crawl", "--db", filepath.Join(dir, "polite.db"), "--out", out}, fast...)
			r := run(t, "", append(args, "--max-body", tt.max, seeds)...)
			if r.code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, tt.code, r.stdout, r.stderr)
			}
			if tt.code == 2 {
				if !strings.Contains(r.stderr, "--max-body") || !strings.Contains(r.stderr, "1 GiB") {
					t.Errorf("stderr does not name --max-body and its range:\n%s", r.stderr)
				}
				if n := o.Stats().Requests - before; n != 0 {
					t.Errorf("%d requests made with a bad --max-body, want none", n)
				}
				return
			}
			bodies := bodiesOnDisk(t, out)
			if len(bodies) != 1 {
				t.Fatalf("%d bodies on disk, want 1", len(bodies))
			}
			for name, b := range bodies {
				if len(b) == 0 {
					t.Errorf("%s is empty: the body was not kept whole", name)
				}
			}
		})
	}
}
