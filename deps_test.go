package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestPackageLanes keeps the layering of DESIGN.md honest: pace/ decides
// with the standard library alone, robots/ adds only its parser, neither
// knows the other or the store, only store/ links SQLite, and the stores'
// conformance suite (store/storetest) knows neither store.
func TestPackageLanes(t *testing.T) {
	tests := []struct {
		pkg       string
		direct    bool // only the package's own imports, not theirs
		forbidden []string
	}{
		{"github.com/polite-crawler/polite/pace", false, []string{"net/http", "net", "github.com/polite-crawler/polite/store", "github.com/polite-crawler/polite/robots", "github.com/polite-crawler/polite/crawl", "modernc.org/sqlite", "database/sql"}},
		// temoto/robotstxt itself imports net/http; robots/ must not use it.
		{"github.com/polite-crawler/polite/robots", true, []string{"net/http", "net", "os", "github.com/polite-crawler/polite/store", "github.com/polite-crawler/polite/pace", "github.com/polite-crawler/polite/crawl"}},
		{"github.com/polite-crawler/polite/robots", false, []string{"github.com/polite-crawler/polite/store", "github.com/polite-crawler/polite/pace", "github.com/polite-crawler/polite/crawl", "modernc.org/sqlite", "database/sql"}},
		{"github.com/polite-crawler/polite/store", false, []string{"net/http", "github.com/polite-crawler/polite/crawl", "github.com/polite-crawler/polite/cmd"}},
		// The stores' conformance suite is written against the interfaces
		// alone: it knows neither store nor any database driver.
		{"github.com/polite-crawler/polite/store/storetest", false, []string{"github.com/polite-crawler/polite/store", "github.com/polite-crawler/polite/store/postgres", "github.com/polite-crawler/polite/cmd", "modernc.org/sqlite", "database/sql", "github.com/jackc/pgx/v5"}},
		{"github.com/polite-crawler/polite/crawl", true, []string{"github.com/polite-crawler/polite/cmd", "modernc.org/sqlite", "database/sql", "github.com/spf13/cobra"}},
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
