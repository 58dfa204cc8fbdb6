package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/polite-crawler/polite/crawl/frontier"
	"github.com/polite-crawler/polite/pace"
	"github.com/polite-crawler/polite/store"
)

// runMain runs polite in-process and returns its exit code and output.
func runMain(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = Main(context.Background(), args, IO{In: strings.NewReader(""), Out: &out, ErrOut: &errOut, IsTTY: func() bool { return false }})
	return code, out.String(), errOut.String()
}

func TestGoldenCrawlHelp(t *testing.T) {
	code, out, errOut := runMain(t, "crawl", "--help")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	checkGolden(t, "crawl-help.txt", out)
	// Every flag of crawl is listed once, under a heading.
	headings := regexp.MustCompile(`(?m)^[A-Z][A-Za-z ]+:$`).FindAllString(out, -1)
	want := []string{"Usage:", "Examples:", "Seeds and jobs:", "Pacing:", "Budgets and limits:", "Links and scope:", "Request headers:",
		"Output:", "Network and identity:", "Progress and logs:", "Global Flags:", "Exit codes:"}
	if strings.Join(headings, "|") != strings.Join(want, "|") {
		t.Errorf("headings %q, want %q", headings, want)
	}
	if strings.Contains(out, "Other flags:") {
		t.Errorf("a crawl flag has no heading:\n%s", out)
	}
	if !strings.Contains(out, "--max-body size ") || !strings.Contains(out, "(default 10MiB)") {
		t.Errorf("--max-body is not a size with a human default:\n%s", out)
	}
}

func TestVersionOneLine(t *testing.T) {
	_, long, _ := runMain(t, "--version")
	_, short, _ := runMain(t, "version")
	if long != short {
		t.Errorf("polite --version %q and polite version %q differ", long, short)
	}
	if !regexp.MustCompile(`^polite \S+ \((commit [0-9a-f]+(\+modified)?, (\d{4}-\d\d-\d\dT\S+, )?)?go1\.\d+\S*, \w+/\w+\)\n$`).MatchString(short) {
		t.Errorf("version line %q, want polite VERSION (commit C, TIME, goX, os/arch)", short)
	}
	code, js, _ := runMain(t, "version", "--json")
	var v versionInfo
	if err := json.Unmarshal([]byte(js), &v); code != 0 || err != nil {
		t.Fatalf("version --json: exit %d, %v: %s", code, err, js)
	}
	if v.Version == "" || !strings.HasPrefix(v.Go, "go1.") || !strings.Contains(short, v.Version) {
		t.Errorf("version --json %+v does not match the line %q", v, short)
	}
}

func TestUsageErrorsExit2(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		inStderr string
	}{
		{"unknown command, suggested", []string{"stauts"}, "did you mean status?"},
		{"unknown command", []string{"xyzzy"}, `unknown command "xyzzy"`},
		{"unknown help topic", []string{"help", "nope"}, `unknown help topic "nope"`},
		{"help topic mistyped", []string{"help", "crwal"}, "did you mean crawl?"},
		{"unknown flag, suggested", []string{"crawl", "--max-bodyy", "1MB", "x"}, "did you mean --max-body?"},
		{"unknown shorthand", []string{"runs", "-z"}, "unknown shorthand flag: 'z'"},
		{"crawl without seeds", []string{"crawl"}, "needs its seeds: a seed file, - for stdin, or one or more http(s) URLs"},
		{"status with an argument", []string{"status", "x"}, `unknown command "x" for "polite status"`},
		{"runs with an argument", []string{"runs", "x"}, "polite runs"},
		{"report with two runs", []string{"report", "1", "2"}, "accepts at most 1 arg"},
		{"version with an argument", []string{"version", "x"}, "polite version"},
		{"robots without check", []string{"robots", "nope"}, `unknown command "nope"`},
		{"robots check without URL", []string{"robots", "check"}, "robots check"},
		{"completion for no shell", []string{"completion", "tcsh"}, `unknown command "tcsh"`},
		{"completion bash with an argument", []string{"completion", "bash", "x"}, "polite completion bash"},
		{"forget nothing", []string{"forget", "--db", filepath.Join(t.TempDir(), "p.db")}, "name the hosts"},
		{"size out of range", []string{"crawl", "--max-body", "9223372036854775807", "x"}, `"--max-body" flag: must be between 1B and 1GiB`},
		{"size with a bad unit", []string{"crawl", "--max-bytes", "3 parsecs", "x"}, `"--max-bytes" flag`},
		{"duration out of range", []string{"crawl", "--max-duration", "2562047h", "x"}, `"--max-duration" flag: must be between 0s and 8760h`},
		{"bad log format", []string{"runs", "--log-format", "xml"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := runMain(t, tt.args...)
			if code != 2 {
				t.Fatalf("exit %d, want 2\nstderr: %s", code, errOut)
			}
			if !strings.Contains(errOut, tt.inStderr) {
				t.Errorf("stderr %q does not contain %q", errOut, tt.inStderr)
			}
		})
	}
}

// fillCompletionDB writes a database with two hosts, a robots.txt copy of
// a third, two exclusion rules and runs of two jobs.
func fillCompletionDB(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "polite.db")
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)
	if err := db.SaveAll([]pace.State{
		{Host: "api.example.org", Delay: time.Second, SetAt: now},
		{Host: "docs.example.org:8080", Delay: time.Second, SetAt: now},
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.PutRobots(frontier.RobotsCopy{Host: "robots-only.example.net", Status: 404, FetchedAt: now, Expires: now.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	for _, x := range []frontier.Exclusion{{Rule: ".tracker.example", Reason: "never"}, {Rule: "https://example.org/private/"}} {
		if _, err := db.AddExclusion(x); err != nil {
			t.Fatal(err)
		}
	}
	for i, job := range []string{"/srv/a/seeds.txt", "nightly", "/srv/a/seeds.txt"} {
		r, err := db.BeginRun(job, now.Add(time.Duration(i)*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if err := db.EndRun(r.ID, now.Add(time.Duration(i)*time.Hour+time.Minute), 0, "1 done", []byte("{}")); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

func TestCompletionFromTheDatabase(t *testing.T) {
	db := fillCompletionDB(t)
	missing := filepath.Join(t.TempDir(), "none.db")
	tests := []struct {
		name string
		args []string // after __complete
		want []string // completions, without descriptions
	}{
		{"forget: hosts", []string{"--db", db, "forget", ""}, []string{"api.example.org", "docs.example.org:8080", "robots-only.example.net"}},
		{"forget: hosts by prefix", []string{"--db", db, "forget", "d"}, []string{"docs.example.org:8080"}},
		{"status --host", []string{"--db", db, "status", "--host", ""}, []string{"api.example.org", "docs.example.org:8080", "robots-only.example.net"}},
		{"crawl --job", []string{"--db", db, "crawl", "--job", ""}, []string{"/srv/a/seeds.txt", "nightly"}},
		{"runs --job by prefix", []string{"runs", "--db", db, "--job", "n"}, []string{"nightly"}},
		{"status --job", []string{"--db", db, "status", "--job", "/"}, []string{"/srv/a/seeds.txt"}},
		{"report: run numbers", []string{"--db", db, "report", ""}, []string{"3", "2", "1"}},
		{"report: one run only", []string{"--db", db, "report", "3", ""}, nil},
		{"crawl --scope", []string{"crawl", "--scope", ""}, []string{"host", "domain", "any"}},
		{"crawl --progress", []string{"crawl", "--progress", "a"}, []string{"auto", "always"}},
		{"--log-format", []string{"status", "--log-format", ""}, []string{"text", "json"}},
		{"exclude remove: rules", []string{"--db", db, "exclude", "remove", ""}, []string{".tracker.example", "https://example.org/private/"}},
		{"no database yet", []string{"--db", missing, "forget", ""}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runMain(t, append([]string{"__complete"}, tt.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var got []string
			lines := strings.Split(strings.TrimSpace(out), "\n")
			for _, l := range lines[:len(lines)-1] { // the last line is the directive
				v, _, _ := strings.Cut(l, "\t")
				got = append(got, v)
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("completions %q, want %q\n%s", got, tt.want, out)
			}
			if last := lines[len(lines)-1]; last != ":4" {
				t.Errorf("directive %q, want :4 (no file completion)", last)
			}
		})
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("completion created a database at %s (stat: %v)", missing, err)
	}
}

func TestCompletionScripts(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish"} {
		t.Run(shell, func(t *testing.T) {
			code, out, errOut := runMain(t, "completion", shell)
			if code != 0 || !strings.Contains(out, "__complete") {
				t.Errorf("completion %s: exit %d, stderr %q; want a script that calls polite __complete", shell, code, errOut)
			}
		})
	}
}

// Every command's help ends with its exit codes, 2 among them.
func TestEveryCommandDocumentsItsExitCodes(t *testing.T) {
	root, _ := newRootCmd(IO{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}})
	strictUsage(root, nil)
	var paths [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		if c.Hidden {
			return
		}
		paths = append(paths, path)
		for _, sub := range c.Commands() {
			walk(sub, append(append([]string{}, path...), sub.Name()))
		}
	}
	walk(root, nil)
	if len(paths) < 10 {
		t.Fatalf("only %d commands found: %v", len(paths), paths)
	}
	for _, p := range paths {
		t.Run(strings.Join(append([]string{"polite"}, p...), " "), func(t *testing.T) {
			code, out, errOut := runMain(t, append(p, "--help")...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			_, codes, ok := strings.Cut(out, "\nExit codes:\n")
			if !ok || !strings.Contains(codes, "  2 ") {
				t.Errorf("help has no exit codes with 2 among them:\n%s", out)
			}
		})
	}
}

// TestCrawlExitCodesAreTheREADMEs: the README shows polite crawl's exit
// code table exactly as --help prints it; both come from one table.
func TestCrawlExitCodesAreTheREADMEs(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runMain(t, "crawl", "--help")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	_, codes, ok := strings.Cut(out, "\nExit codes:\n")
	if !ok {
		t.Fatalf("no exit codes in help:\n%s", out)
	}
	if block := "```text\n" + strings.TrimRight(codes, "\n") + "\n```"; !strings.Contains(string(readme), block) {
		t.Errorf("README.md's exit code table differs from polite crawl --help's:\n%s", block)
	}
}
