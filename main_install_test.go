package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// needTool returns the path of a program a test runs. Without it the test
// skips, saying why, except under CI (CI=true), whose .ci/run installs it.
func needTool(t *testing.T, name, why string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but %s is missing: %s", name, why)
		}
		t.Skipf("%s is not installed: %s", name, why)
	}
	return p
}

// TestGoInstallReportsCommit: a binary built by go install in a git
// checkout says in polite version which commit it was built from, that
// commit's time and whether the tree had changes. The checkout is a copy
// of this tree, committed at a known time.
func TestGoInstallReportsCommit(t *testing.T) {
	git := needTool(t, "git", "the checkout the build reads is a git repository (Debian: git)")
	files, err := exec.Command(git, "ls-files", "-co", "--exclude-standard", "-z").Output()
	if err != nil {
		t.Skipf("this tree is not a git checkout (git ls-files: %v): no commit to report", err)
	}
	src := t.TempDir()
	for _, name := range strings.Split(strings.TrimRight(string(files), "\x00"), "\x00") {
		b, err := os.ReadFile(name)
		if os.IsNotExist(err) {
			continue // deleted, not yet committed
		}
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(src, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=polite", "GIT_AUTHOR_EMAIL=polite@example.org", "GIT_AUTHOR_DATE=2026-01-02T15:04:05Z",
		"GIT_COMMITTER_NAME=polite", "GIT_COMMITTER_EMAIL=polite@example.org", "GIT_COMMITTER_DATE=2026-01-02T15:04:05Z")
	sh := func(name string, args ...string) string {
		t.Helper()
		c := exec.Command(name, args...)
		c.Dir, c.Env = src, env
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	sh(git, "init", "-q")
	sh(git, "add", "-A")
	sh(git, "commit", "-q", "-m", "a release")
	head := sh(git, "rev-parse", "HEAD")

	gobin := t.TempDir()
	// GOFLAGS as a user's go env has it (the default, -buildvcs=auto), not
	// as this machine's may; -trimpath reuses the packages already built.
	env = append(env, "GOBIN="+gobin, "GOFLAGS=-buildvcs=auto -trimpath", "CGO_ENABLED=0")
	version := func() (line string, v struct {
		Commit     string `json:"commit"`
		CommitTime string `json:"commit_time"`
		Modified   bool   `json:"modified"`
	}) {
		t.Helper()
		sh("go", "install", ".")
		bin := filepath.Join(gobin, "polite")
		line = sh(bin, "version")
		if err := json.Unmarshal([]byte(sh(bin, "version", "--json")), &v); err != nil {
			t.Fatal(err)
		}
		return line, v
	}
	line, v := version()
	if v.Commit != head[:12] || v.CommitTime != "2026-01-02T15:04:05Z" || v.Modified {
		t.Errorf("clean checkout: version --json %+v, want commit %s of 2026-01-02T15:04:05Z, not modified", v, head[:12])
	}
	if want := "(commit " + head[:12] + ", 2026-01-02T15:04:05Z, go"; !strings.Contains(line, want) {
		t.Errorf("clean checkout: version %q, want it to contain %q", line, want)
	}

	if err := os.WriteFile(filepath.Join(src, "notes.txt"), []byte("not committed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	line, v = version()
	if v.Commit != head[:12] || !v.Modified {
		t.Errorf("changed checkout: version --json %+v, want commit %s, modified", v, head[:12])
	}
	if want := "(commit " + head[:12] + "+modified, "; !strings.Contains(line, want) {
		t.Errorf("changed checkout: version %q, want it to contain %q", line, want)
	}
}

// TestSystemdUnits: the example service and timer pass systemd-analyze
// verify (the unit files' keys, the timer's unit, the command's path), say
// what docs/scheduling.md promises, and the service's polite command line
// is one polite accepts.
func TestSystemdUnits(t *testing.T) {
	service, err := os.ReadFile("docs/examples/polite-crawl@.service")
	if err != nil {
		t.Fatal(err)
	}
	timer, err := os.ReadFile("docs/examples/polite-crawl@.timer")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"StateDirectory=polite", "Environment=XDG_STATE_HOME=%S", "Environment=POLITE_CONTACT=",
		"ProtectSystem=strict", "ReadWritePaths=/srv/polite/%i", "NoNewPrivileges=yes", "User=polite", "LoadCredential=headers:"} {
		if !bytes.Contains(service, []byte("\n"+w)) && !bytes.Contains(service, []byte("\n#"+w)) {
			t.Errorf("polite-crawl@.service lacks %s", w)
		}
	}
	for _, w := range []string{"OnCalendar=hourly", "RandomizedDelaySec=", "Persistent=true", "WantedBy=timers.target"} {
		if !bytes.Contains(timer, []byte("\n"+w)) {
			t.Errorf("polite-crawl@.timer lacks %s", w)
		}
	}

	// The command line, instance "nightly", with --help: exit 0 if polite
	// knows every flag, 2 if not.
	exec1 := regexp.MustCompile(`(?m)^ExecStart=/usr/local/bin/polite (.*)$`).FindSubmatch(service)
	if exec1 == nil {
		t.Fatal("polite-crawl@.service has no ExecStart=/usr/local/bin/polite line")
	}
	args := strings.Fields(strings.ReplaceAll(string(exec1[1]), "%i", "nightly"))
	if r := run(t, "", append(args, "--help")...); r.code != 0 {
		t.Errorf("polite %s --help: exit %d: %s", strings.Join(args, " "), r.code, r.stderr)
	}

	analyze := needTool(t, "systemd-analyze", "the units are not verified (Debian: systemd)")
	dir := t.TempDir()
	// The command must exist to pass: this test's binary stands in.
	unit := strings.ReplaceAll(string(service), "/usr/local/bin/polite", polite)
	if err := os.WriteFile(filepath.Join(dir, "polite-crawl@.service"), []byte(unit), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "polite-crawl@.timer"), timer, 0o644); err != nil {
		t.Fatal(err)
	}
	c := exec.Command(analyze, "verify", filepath.Join(dir, "polite-crawl@nightly.service"), filepath.Join(dir, "polite-crawl@nightly.timer"))
	out, err := c.CombinedOutput()
	// verify warns of an unknown key and still exits 0: any word fails.
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
}
