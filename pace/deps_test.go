package pace

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestDeps keeps pace pure: the standard library only, and none of it that
// does network I/O or reads files on pace's behalf.
func TestDeps(t *testing.T) {
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := exec.LookPath(goTool); err != nil {
		goTool = "go"
	}
	out, err := exec.Command(goTool, "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}|{{.ImportPath}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	banned := []string{"net/http", "net", "os/exec", "database/sql"}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		nonStd, path, _ := strings.Cut(line, "|")
		if nonStd != "" && path != "github.com/polite-crawler/polite/pace" {
			t.Errorf("pace imports %s, outside the standard library", path)
		}
		for _, b := range banned {
			if path == b {
				t.Errorf("pace imports %s", path)
			}
		}
	}
}
