package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestPackageLanes keeps the layering of DESIGN.md honest: pace/ decides
// with the standard library alone, robots/ adds only its parser, neither
// knows the other or the store, and only store/ links SQLite.
func TestPackageLanes(t *testing.T) {
	tests := []struct {
		pkg       string
		direct    bool // only the package's own imports, not theirs
		forbidden []string
	}{
		{"polite/pace", false, []string{"net/http", "net", "polite/store", "polite/robots", "polite/crawl", "modernc.org/sqlite", "database/sql"}},
		// temoto/robotstxt itself imports net/http; robots/ must not use it.
		{"polite/robots", true, []string{"net/http", "net", "os", "polite/store", "polite/pace", "polite/crawl"}},
		{"polite/robots", false, []string{"polite/store", "polite/pace", "polite/crawl", "modernc.org/sqlite", "database/sql"}},
		{"polite/store", false, []string{"net/http", "polite/crawl", "polite/cmd"}},
		{"polite/crawl", true, []string{"polite/cmd", "modernc.org/sqlite", "database/sql", "github.com/spf13/cobra"}},
	}
	for _, tt := range tests {
		name := tt.pkg
		args := []string{"list", "-deps", tt.pkg}
		if tt.direct {
			name += "/direct"
			args = []string{"list", "-f", `{{join .Imports " "}}`, tt.pkg}
		}
		t.Run(name, func(t *testing.T) {
			out, err := exec.Command("go", args...).Output()
			if err != nil {
				t.Fatalf("go %s: %v", strings.Join(args, " "), err)
			}
			deps := map[string]bool{}
			for _, d := range strings.Fields(string(out)) {
				deps[d] = true
			}
			for _, f := range tt.forbidden {
				if deps[f] {
					t.Errorf("%s depends on %s", tt.pkg, f)
				}
			}
		})
	}
}
