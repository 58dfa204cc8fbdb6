package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/polite-crawler/polite/cmd"
)

// need returns the path of a program the test runs, skipping without it
// unless under CI, which installs it (.ci/run).
func need(t *testing.T, name, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but %s is missing: .ci/run installs Debian's %s", name, pkg)
		}
		t.Skipf("%s is not installed (Debian: apt-get install %s): the pages are not rendered", name, pkg)
	}
	return p
}

func generate(t *testing.T, args ...string) {
	t.Helper()
	var stderr bytes.Buffer
	if code := run(args, &stderr); code != 0 {
		t.Fatalf("polite-docs %v: exit %d: %s", args, code, stderr.String())
	}
}

// overstrike is grotty's bold and underline (c BS c, _ BS c).
var overstrike = regexp.MustCompile(".\b")

// TestManPages renders every command's page with groff, as man does, and
// finds in it, without a warning, the command, each flag --help lists for
// it and its exit codes. The pages of one SOURCE_DATE_EPOCH are the same
// bytes each time.
func TestManPages(t *testing.T) {
	groff := need(t, "groff", "groff-base (man-db brings it)")
	t.Setenv("SOURCE_DATE_EPOCH", "1767366245") // 2026-01-02
	dir := t.TempDir()
	generate(t, "-version", "1.2.3", "-man", dir)
	pages, _ := filepath.Glob(filepath.Join(dir, "*"))
	commands := manCommands(cmd.Tree())
	if len(pages) != len(commands) {
		t.Errorf("%d pages for %d commands: %v", len(pages), len(commands), pages)
	}
	for _, c := range commands {
		name := manName(c)
		t.Run(name, func(t *testing.T) {
			page := filepath.Join(dir, name)
			r := exec.Command(groff, "-man", "-Tutf8", "-ww", "-rLL=300n", page) // wide: few lines to join
			var out, warn bytes.Buffer
			r.Stdout, r.Stderr = &out, &warn
			if err := r.Run(); err != nil || warn.Len() > 0 {
				t.Fatalf("groff -man -Tutf8 -ww %s: %v\n%s", name, err, warn.String())
			}
			text := overstrike.ReplaceAllString(out.String(), "")
			words := strings.Join(strings.Fields(strings.ReplaceAll(text, "\u2010\n", "")), " ")
			for _, w := range []string{
				strings.ReplaceAll(c.CommandPath(), " ", "-") + " - " + c.Short,
				"SYNOPSIS " + c.UseLine(),
				"polite 1.2.3 Jan 2026",
			} {
				if !strings.Contains(words, w) {
					t.Errorf("%s lacks %q:\n%s", name, w, text)
				}
			}
			for _, f := range helpFlags(c) {
				if !regexp.MustCompile(`(^|\s)` + regexp.QuoteMeta("--"+f.Name) + `\b`).MatchString(text) {
					t.Errorf("%s does not show --%s", name, f.Name)
				}
			}
			codes := cmd.ExitCodes(c)
			if codes == "" {
				t.Fatalf("%s has no exit codes in its --help", c.CommandPath())
			}
			section := text[strings.Index(text, "EXIT STATUS"):]
			for _, line := range strings.Split(codes, "\n") {
				if !strings.Contains(section, strings.TrimSpace(line)) {
					t.Errorf("%s: EXIT STATUS lacks %q:\n%s", name, strings.TrimSpace(line), section)
				}
			}
		})
	}
	again := t.TempDir()
	generate(t, "-version", "1.2.3", "-man", again)
	for _, p := range pages {
		a, _ := os.ReadFile(p)
		b, _ := os.ReadFile(filepath.Join(again, filepath.Base(p)))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between two runs", filepath.Base(p))
		}
	}
}

// helpFlags are the flags polite COMMAND --help lists.
func helpFlags(c *cobra.Command) []*pflag.Flag {
	c.InitDefaultHelpFlag()
	var fl []*pflag.Flag
	add := func(f *pflag.Flag) {
		if !f.Hidden && f.Deprecated == "" {
			fl = append(fl, f)
		}
	}
	c.NonInheritedFlags().VisitAll(add)
	c.InheritedFlags().VisitAll(add)
	return fl
}

// TestManPagesShowCrawlFlags: man -l polite-crawl.1, as a user runs it,
// shows the crawl flags and their help.
func TestManPagesShowCrawlFlags(t *testing.T) {
	man := need(t, "man", "man-db")
	dir := t.TempDir()
	generate(t, "-man", dir)
	r := exec.Command(man, "--warnings", "-l", filepath.Join(dir, "polite-crawl.1"))
	r.Env = append(os.Environ(), "MANWIDTH=100", "MANPAGER=cat", "PAGER=cat")
	var out, warn bytes.Buffer
	r.Stdout, r.Stderr = &out, &warn
	if err := r.Run(); err != nil || warn.Len() > 0 {
		t.Fatalf("man --warnings -l polite-crawl.1: %v\n%s", err, warn.String())
	}
	text := overstrike.ReplaceAllString(out.String(), "")
	for _, w := range []string{"--max-duration", "--out", "--user-agent", "--depth", "hard stop"} {
		if !strings.Contains(text, w) {
			t.Errorf("man -l polite-crawl.1 lacks %q:\n%s", w, text)
		}
	}
}

// TestCompletions: the three scripts, each the shell's own syntax, and
// bash's checked by bash itself.
func TestCompletions(t *testing.T) {
	dir := t.TempDir()
	generate(t, "-completions", dir)
	for name, want := range map[string]string{
		"polite.bash": "complete -o default -F __start_polite polite",
		"_polite":     "#compdef polite",
		"polite.fish": "complete -c polite",
	} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), want) {
			t.Errorf("%s lacks %q", name, want)
		}
	}
	bash := need(t, "bash", "bash")
	if out, err := exec.Command(bash, "-n", filepath.Join(dir, "polite.bash")).CombinedOutput(); err != nil {
		t.Errorf("bash -n polite.bash: %v\n%s", err, out)
	}
}

// TestUsage: no output asked for is a usage error.
func TestUsage(t *testing.T) {
	var stderr bytes.Buffer
	if code := run(nil, &stderr); code != 2 || !strings.Contains(stderr.String(), "usage: polite-docs") {
		t.Errorf("no flags: exit %d, %q; want 2 and the usage", code, stderr.String())
	}
	t.Setenv("SOURCE_DATE_EPOCH", "soon")
	stderr.Reset()
	if code := run([]string{"-man", t.TempDir()}, &stderr); code != 1 || !strings.Contains(stderr.String(), `SOURCE_DATE_EPOCH="soon"`) {
		t.Errorf("a bad SOURCE_DATE_EPOCH: exit %d, %q; want 1 naming it", code, stderr.String())
	}
}
