package sitemap

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestDeps keeps sitemap a parser and a set of rules: the standard
// library only, and none of it that does network I/O. The crawl fetches; this package
// reads what it is handed.
func TestDeps(t *testing.T) {
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := exec.LookPath(goTool); err != nil {
		goTool = "go"
	}
	out, err := exec.Command(goTool, "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}|{{.ImportPath}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	const self = "github.com/polite-crawler/polite/crawl/sitemap"
	banned := []string{"net/http", "net", "os/exec", "database/sql"}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		nonStd, path, _ := strings.Cut(line, "|")
		if nonStd != "" && path != self {
			t.Errorf("sitemap imports %s, outside the standard library", path)
		}
		for _, b := range banned {
			if path == b {
				t.Errorf("sitemap depends on %s", path)
			}
		}
	}
}
