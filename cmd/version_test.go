package cmd

import (
	"runtime/debug"
	"testing"
)

// TestVersionFromBuildInfo: what each way of building polite records,
// and the version line it gives.
func TestVersionFromBuildInfo(t *testing.T) {
	vcs := func(rev, at, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev},
			{Key: "vcs.time", Value: at}, {Key: "vcs.modified", Value: modified}}
	}
	const rev = "ba3ae06abb754e09539846d7d4bd75d98116a499"
	tests := []struct {
		name     string
		linked   versionInfo // what the link-time variables said
		bi       debug.BuildInfo
		wantLine string
	}{
		{"go build in a checkout", versionInfo{Version: devVersion},
			debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs(rev, "2026-01-02T15:04:05Z", "false")},
			"polite 0.1.0-dev (commit ba3ae06abb75, 2026-01-02T15:04:05Z, go1.26, linux/amd64)"},
		{"go install . in a tree with changes", versionInfo{Version: devVersion},
			debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs(rev, "2026-01-02T15:04:05Z", "true")},
			"polite 0.1.0-dev (commit ba3ae06abb75+modified, 2026-01-02T15:04:05Z, go1.26, linux/amd64)"},
		{"go install module@latest, a tag", versionInfo{Version: devVersion},
			debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}},
			"polite 1.2.3 (go1.26, linux/amd64)"},
		{"go install module@latest, no tag: the pseudo-version names the commit", versionInfo{Version: devVersion},
			debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20260102150405-ba3ae06abb75"}},
			"polite 0.0.0-20260102150405-ba3ae06abb75 (commit ba3ae06abb75, 2026-01-02T15:04:05Z, go1.26, linux/amd64)"},
		{"a pseudo-version after a tag", versionInfo{Version: devVersion},
			debug.BuildInfo{Main: debug.Module{Version: "v1.2.4-0.20260102150405-ba3ae06abb75"}},
			"polite 1.2.4-0.20260102150405-ba3ae06abb75 (commit ba3ae06abb75, 2026-01-02T15:04:05Z, go1.26, linux/amd64)"},
		{"make build without build info: the link-time variables", versionInfo{Version: "v1.2.3-4-gba3ae06-dirty", Commit: "ba3ae06abb75", CommitTime: "2026-01-02T15:04:05Z", Modified: true},
			debug.BuildInfo{Main: debug.Module{Version: "(devel)"}},
			"polite v1.2.3-4-gba3ae06-dirty (commit ba3ae06abb75+modified, 2026-01-02T15:04:05Z, go1.26, linux/amd64)"},
		{"make build with build info: the version it set is kept", versionInfo{Version: "v1.2.3", Commit: "0000000"},
			debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs(rev, "2026-01-02T15:04:05Z", "false")},
			"polite v1.2.3 (commit ba3ae06abb75, 2026-01-02T15:04:05Z, go1.26, linux/amd64)"},
		{"nothing recorded", versionInfo{Version: devVersion}, debug.BuildInfo{},
			"polite 0.1.0-dev (go1.26, linux/amd64)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.linked.Go, tt.linked.Platform = "go1.26", "linux/amd64"
			got := tt.linked.from(&tt.bi).line()
			if got != tt.wantLine {
				t.Errorf("line = %q\nwant   %q", got, tt.wantLine)
			}
		})
	}
}
