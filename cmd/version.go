package cmd

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// versionInfo is what polite version prints.
type versionInfo struct {
	Version    string `json:"version"`
	Commit     string `json:"commit,omitempty"`
	CommitTime string `json:"commit_time,omitempty"`
	Modified   bool   `json:"modified,omitempty"` // built from a tree with uncommitted changes
	Go         string `json:"go"`
	Platform   string `json:"platform"`
}

// Commit is the commit polite was built from, set at link time (-ldflags
// "-X github.com/polite-crawler/polite/cmd.Commit=abc1234") for builds
// that do not stamp version control information (-buildvcs=false).
var Commit = ""

// devVersion is Version when the build set none.
const devVersion = "0.1.0-dev"

// buildVersion reads the version from the link-time Version, else the
// module version go install recorded, and the commit from the build info.
func buildVersion() versionInfo {
	v := versionInfo{Version: Version, Commit: Commit, Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	if v.Version == devVersion && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v.Version = strings.TrimPrefix(bi.Main.Version, "v")
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value[:min(len(s.Value), 12)]
		case "vcs.time":
			v.CommitTime = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

// line is the one line both polite version and polite --version print.
func (v versionInfo) line() string {
	var parts []string
	if v.Commit != "" {
		c := "commit " + v.Commit
		if v.Modified {
			c += "+modified"
		}
		parts = append(parts, c)
	}
	parts = append(parts, v.Go, v.Platform)
	return fmt.Sprintf("polite %s (%s)", v.Version, strings.Join(parts, ", "))
}

func newVersionCmd(io IO) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print polite's version, commit and Go version",
		Long: `Print polite's version, the commit it was built from (when the build
recorded one) and the Go version, on one line; polite --version prints the
same line. --json prints them as a JSON object.`,
		Example: "  polite version\n  polite version --json | jq -r .commit",
		Args:    cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			v := buildVersion()
			if asJSON {
				b, err := json.Marshal(v)
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(io.Out, "%s\n", b)
				return err
			}
			_, err := fmt.Fprintln(io.Out, v.line())
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON object")
	return cmd
}
