// Package cmd holds polite's commands: it parses flags into configurations
// and calls into crawl/, store/ and robots/. It holds no crawling logic.
package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/seeds"
	"github.com/polite-crawler/polite/store"
)

// Version is set at link time (-ldflags "-X github.com/polite-crawler/polite/cmd.Version=1.2.3").
var Version = devVersion

// ProjectURL is the address polite names in its User-Agent so that a site
// owner can find out what it is.
var ProjectURL = "https://github.com/polite-crawler/polite"

// IO is where a command reads and writes. Results go to Out; progress,
// warnings and logs to ErrOut.
type IO struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	IsTTY  func() bool // is ErrOut a terminal
	Width  func() int  // Out's terminal width in columns; 0 (or nil) when Out is no terminal
}

// globals are the flags every command takes.
type globals struct {
	DB        string
	Verbose   bool
	Quiet     bool
	LogFormat string
	errOut    io.Writer // where openDB's warnings go
}

// Execute runs polite with the process's arguments and streams and returns
// its exit code.
func Execute() int {
	ctx, stop := signalContext()
	defer stop()
	io := IO{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr, IsTTY: func() bool { return term.IsTerminal(int(os.Stderr.Fd())) },
		Width: func() int {
			if w, _, err := term.GetSize(int(os.Stdout.Fd())); err == nil {
				return w
			}
			return 0
		}}
	defer profile()()
	return Main(ctx, os.Args[1:], io)
}

// Main runs polite with args and returns its exit code.
func Main(ctx context.Context, args []string, io IO) int {
	root, g := newRootCmd(io)
	root.SetArgs(args)
	root.SetIn(io.In)
	root.SetOut(io.Out)
	root.SetErr(io.ErrOut)
	strictUsage(root, args)
	err := root.ExecuteContext(ctx)
	if errors.Is(err, syscall.EPIPE) {
		// The reader went away (polite report --html - | head): not
		// polite's failure, and nothing left to say to anyone.
		return crawl.ExitBrokenPipe
	}
	code := exitCode(err)
	if err != nil && !errors.Is(err, errSilent) {
		var (
			intr *crawl.Interrupted
			ee   *exitError
		)
		if !errors.As(err, &intr) && !errors.As(err, &ee) {
			if g.LogFormat == "json" {
				slog.New(slog.NewJSONHandler(io.ErrOut, nil)).Error(err.Error(), "exit", code)
			} else {
				fmt.Fprintf(io.ErrOut, "polite: %v\n", err)
			}
		}
	}
	return code
}

// errSilent is returned by a command that already said what went wrong.
var errSilent = errors.New("silent")

// exitError carries an exit code for a command whose outcome is not an error
// message, such as a crawl with dead URLs.
type exitError struct{ code int }

func (e *exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

// exitCode maps an error to polite's documented exit codes.
func exitCode(err error) int {
	var (
		ee   *exitError
		intr *crawl.Interrupted
		se   *seeds.Error
	)
	switch {
	case err == nil:
		return crawl.ExitOK
	case errors.As(err, &ee):
		return ee.code
	case errors.As(err, &intr):
		return intr.Code
	case errors.Is(err, store.ErrLocked):
		return crawl.ExitLocked
	case errors.Is(err, crawl.ErrUsage), errors.Is(err, seeds.ErrNone), errors.As(err, &se), errors.Is(err, errUsage):
		return crawl.ExitUsage
	}
	return crawl.ExitFailure
}

// errUsage marks a bad flag or argument.
var errUsage = errors.New("usage")

func newRootCmd(io IO) (*cobra.Command, *globals) {
	g := &globals{errOut: io.ErrOut}
	root := &cobra.Command{
		Use:   "polite",
		Short: "A web crawler that fetches from other people's servers without hurting them",
		Long: `polite fetches the URLs of a seed file while obeying robots.txt, pacing every
host with a controller that learns the rate the host tolerates and remembers
it between runs, and leaves the bodies, a manifest and a report.`,
		Example: `  polite crawl --out /srv/crawl --max-duration 50m seeds.txt
  polite status
  polite runs
  polite report --html /tmp/last.html
  polite forget api.example.org`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       buildVersion().line(),
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetUsageFunc(usage)
	pf := root.PersistentFlags()
	pf.StringVar(&g.DB, "db", "", "database file or postgres:// URL (default $POLITE_DB, else $XDG_STATE_HOME/polite/polite.db)")
	pf.BoolVarP(&g.Verbose, "verbose", "v", false, "log a line per request")
	pf.BoolVarP(&g.Quiet, "quiet", "q", false, "quiet for cron: no progress bar, no summary when the run ends 0; warnings and errors only")
	g.LogFormat = "text"
	pf.Var(newEnumValue(&g.LogFormat, "text", "json"), "log-format", "log format on stderr: text or json")
	root.AddCommand(
		newCrawlCmd(io, g),
		newStatusCmd(io, g),
		newRobotsCmd(io, g),
		newRunsCmd(io, g),
		newReportCmd(io, g),
		newChangesCmd(io, g),
		newForgetCmd(io, g),
		newExcludeCmd(io, g),
		newWaczCmd(io, g),
		newVersionCmd(io),
	)
	completeFromDB(root, g)
	return root, g
}

// dbPath resolves --db, $POLITE_DB and the XDG default.
func (g *globals) dbPath() (string, error) {
	if g.DB != "" {
		return g.DB, nil
	}
	if p := os.Getenv("POLITE_DB"); p != "" {
		return p, nil
	}
	state := os.Getenv("XDG_STATE_HOME")
	if state == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("%w: no --db given and no home folder: %v", errUsage, err)
		}
		state = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(state, "polite", "polite.db"), nil
}

// logger returns the slog logger for stderr.
func (g *globals) logger(w io.Writer, quietInfo bool) (*slog.Logger, error) {
	level := slog.LevelInfo
	switch {
	case g.Verbose:
		level = slog.LevelDebug
	case g.Quiet || quietInfo:
		level = slog.LevelWarn
	}
	opts := &slog.HandlerOptions{Level: level}
	switch g.LogFormat {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("%w: --log-format must be text or json, got %q", errUsage, g.LogFormat)
}
