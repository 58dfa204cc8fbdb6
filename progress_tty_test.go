package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polite-crawler/polite/crawl/crawltest"
)

// shellQuote quotes s for sh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// TestCLIProgressBarOnlyOnATerminal runs the real binary under a
// pseudo-terminal (util-linux script) and with plain pipes: the progress
// bar is drawn on stderr only when stderr is the terminal.
func TestCLIProgressBarOnlyOnATerminal(t *testing.T) {
	scriptCmd, err := exec.LookPath("script")
	if err != nil {
		t.Skip("script (util-linux) is not installed: no pseudo-terminal to run polite under")
	}
	_, srv := serve(t, crawltest.Config{})
	seeds := writeFile(t, "seeds.txt", srv.URL+"/a\n"+srv.URL+"/b\n"+srv.URL+"/c\n")
	dir := t.TempDir()
	crawlCmd := func(name string) string {
		args := []string{polite, "crawl", "--db", filepath.Join(dir, name+".db"), "--out", filepath.Join(dir, name),
			"--floor", "5ms", "--start", "5ms", "--decrease", "5ms", seeds}
		for i, a := range args {
			args[i] = shellQuote(a)
		}
		return strings.Join(args, " ")
	}
	errFile := filepath.Join(dir, "stderr.txt")
	tests := []struct {
		name    string
		pty     bool   // run under script
		shell   string // the command line
		wantBar bool
	}{
		{"stderr is a terminal", true, crawlCmd("tty"), true},
		{"stderr is a terminal, --quiet", true, crawlCmd("quiet") + " --quiet", false},
		{"stdout a terminal, stderr a file", true, crawlCmd("file") + " 2>" + shellQuote(errFile), false},
		{"pipes, as under cron", false, crawlCmd("pipe"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var cmd *exec.Cmd
			if tt.pty {
				cmd = exec.Command(scriptCmd, "-q", "-e", "-c", tt.shell, "/dev/null")
			} else {
				cmd = exec.Command("sh", "-c", tt.shell)
			}
			cmd.Env = testEnv(t, "TERM=xterm")
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Run(); err != nil {
				t.Fatalf("%s: %v\n%s", tt.shell, err, out.String())
			}
			all := out.String()
			if b, err := os.ReadFile(errFile); err == nil {
				all += string(b)
			}
			if got := strings.Contains(all, "URLs,"); got != tt.wantBar {
				t.Errorf("progress bar drawn: %v, want %v; output:\n%q", got, tt.wantBar, all)
			}
			// --quiet prints no summary for a run that ends 0.
			if got, want := strings.Contains(all, "3 done"), !strings.Contains(tt.shell, "--quiet"); got != want {
				t.Errorf("summary in the output: %v, want %v\n%q", got, want, all)
			}
			if tt.wantBar && !strings.Contains(all, "3/3 URLs") {
				t.Errorf("the bar's last frame does not show 3/3 URLs:\n%q", all)
			}
		})
	}
}
