package cmd

import (
	"encoding/json"
	"fmt"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

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

// Commit, CommitTime and Modified say what polite was built from when the
// build info does not (-buildvcs=false, a checkout Go does not read): the
// Makefile sets them at link time, e.g. -ldflags "-X
// github.com/polite-crawler/polite/cmd.Commit=abc1234"; CommitTime is
// RFC 3339, Modified is "true" for a tree with uncommitted changes. What
// the build info records wins.
var (
	Commit     = ""
	CommitTime = ""
	Modified   = ""
)

// devVersion is Version when the build set none.
const devVersion = "0.1.0-dev"

// buildVersion is polite's version: the link-time variables, then what Go
// recorded in the binary.
func buildVersion() versionInfo {
	v := versionInfo{Version: Version, Commit: Commit, CommitTime: CommitTime, Modified: Modified == "true",
		Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi, ok := debug.ReadBuildInfo(); ok {
		v = v.from(bi)
	}
	return v
}

// pseudoVersion matches the end of a Go pseudo-version, the module version
// go install records for a commit without a tag
// (v0.0.0-20260102150405-abcdef123456): its commit time and commit.
var pseudoVersion = regexp.MustCompile(`[-.](\d{14})-([0-9a-f]{12})(\+incompatible)?$`)

// from adds what the build info says. go build and go install in a
// checkout record the commit, its time and whether the tree had changes
// (vcs.revision, vcs.time, vcs.modified); go install module@version
// records the module's version, a pseudo-version naming the commit when
// it has no tag. A version set at link time is kept.
func (v versionInfo) from(bi *debug.BuildInfo) versionInfo {
	if mv := bi.Main.Version; mv != "" && mv != "(devel)" {
		if v.Version == devVersion {
			v.Version = strings.TrimPrefix(mv, "v")
		}
		if m := pseudoVersion.FindStringSubmatch(mv); m != nil {
			v.Commit = m[2]
			if t, err := time.Parse("20060102150405", m[1]); err == nil {
				v.CommitTime = t.UTC().Format(time.RFC3339)
			}
		}
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
		if v.CommitTime != "" {
			parts = append(parts, v.CommitTime)
		}
	}
	parts = append(parts, v.Go, v.Platform)
	return fmt.Sprintf("polite %s (%s)", v.Version, strings.Join(parts, ", "))
}

func newVersionCmd(io IO) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print polite's version, commit and Go version",
		Long: `Print polite's version, the commit it was built from and that commit's
time (when the build recorded them; "+modified" marks a tree with
uncommitted changes), the Go version and the platform, on one line;
polite --version prints the same line. --json prints them as a JSON object.`,
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
