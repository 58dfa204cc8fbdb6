package report

import (
	"fmt"
	"strings"
)

// The exit codes of polite crawl; package crawl names them (crawl.ExitOK,
// ...) and a report carries one (ExitCode).
const (
	exitOK          = 0
	exitFailure     = 1
	exitUsage       = 2
	exitLocked      = 3
	exitHangup      = 129
	exitInterrupted = 130
	exitBrokenPipe  = 141
	exitTerminated  = 143
)

// Exit is one row of polite crawl's exit code table: the codes, what they
// mean in short (report.html) and in full (--help and the README).
type Exit struct {
	Codes []int
	Short string
	Full  string
}

// CrawlExits is polite crawl's exit code table, the one source of
// `polite help crawl`, the README's table and ExitMeaning.
var CrawlExits = []Exit{
	{[]int{exitOK}, "every URL fetched, unchanged, not due or excluded",
		"every URL fetched, unchanged (304) or excluded: by the site's robots.txt, " +
			"by the operator's exclusion list, or by the site's usage preferences " +
			"refusing the declared --purpose (not kept, each with its rule in the report). URLs left queued by a budget or a time " +
			"limit are not a failure, nor is a host held off by the server's Retry-After " +
			"(it is named on stderr), a URL not due for a revisit (--revisit adaptive), " +
			"or a page gone (404 or 410 where a page was: named on stderr)"},
	{[]int{exitFailure}, "some URLs failed for good, a host was unreachable all run, its TLS was refused, or it refused polite (401, 403)",
		"some URLs failed for good (dead), a host was unreachable all run (refused, " +
			"timed out, no DNS) or refused by its certificate, a host answered 401 or 403 " +
			"to 5 requests in a row (stopped for the run), or the output could not be " +
			"written; each is named on stderr"},
	{[]int{exitUsage}, "usage or input error",
		"usage or input error: an unknown flag or command, a bad flag value, no seed " +
			"argument, an argument that is neither file, - nor URL, an unreadable seed " +
			"file, no valid seed, a --db folder that does not exist, an unusable --ca-file, " +
			"a --header-file that others may read"},
	{[]int{exitLocked}, "another crawl held the database", "another crawl holds the database"},
	{[]int{exitHangup, exitInterrupted, exitBrokenPipe, exitTerminated}, "ended by a signal",
		"ended by SIGHUP, SIGINT, SIGPIPE or SIGTERM (128 + the signal's number), " +
			"after saving state and the run's end"},
}

// ExitMeaning says in short what an exit code of polite crawl means.
func ExitMeaning(code int) string {
	switch code {
	case exitHangup:
		return "ended by SIGHUP"
	case exitInterrupted:
		return "interrupted by SIGINT"
	case exitBrokenPipe:
		return "ended by SIGPIPE"
	case exitTerminated:
		return "interrupted by SIGTERM"
	}
	for _, e := range CrawlExits {
		for _, c := range e.Codes {
			if c == code {
				return e.Short
			}
		}
	}
	return "unknown"
}

// CrawlExitText is CrawlExits as --help and the README print it: a code
// column, then the meaning wrapped to width columns.
func CrawlExitText(width int) string {
	const indent = "       "
	var b strings.Builder
	for _, e := range CrawlExits {
		codes := make([]string, len(e.Codes))
		for i, c := range e.Codes {
			codes[i] = fmt.Sprint(c)
		}
		col := strings.Join(codes, " ")
		line := fmt.Sprintf("  %-4s ", col)
		if len(col) > 4 { // the codes get a line of their own
			b.WriteString("  " + col + "\n")
			line = indent
		}
		fresh := true
		for _, w := range strings.Fields(e.Full) {
			if !fresh && len(line)+1+len(w) > width {
				b.WriteString(line + "\n")
				line, fresh = indent, true
			}
			if !fresh {
				line += " "
			}
			line, fresh = line+w, false
		}
		b.WriteString(line + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// HostFailed reports whether a host failed the run: unreachable all run,
// its TLS refused, or refusing polite's requests (401, 403).
func (r *Report) HostFailed() bool {
	return len(r.Unreachable()) > 0 || len(r.TLSRefused()) > 0 || len(r.Refusing()) > 0
}

// Outcome says what the exit code means for this run, for the HTML
// header: an exit 0 with URLs waiting does not claim every URL fetched.
func (r *Report) Outcome() string {
	if r.ExitCode == exitOK && r.Totals.Waiting > 0 {
		return fmt.Sprintf("nothing failed; %d %s wait for the next run", r.Totals.Waiting, Plural(r.Totals.Waiting, "URL", "URLs"))
	}
	if r.ExitCode == exitFailure && len(r.Unreachable()) > 0 && r.Totals.Dead == 0 {
		return "a host was unreachable for the whole run"
	}
	if r.ExitCode == exitFailure && len(r.TLSRefused()) > 0 && r.Totals.Dead == 0 {
		return "a host's TLS was refused: its URLs wait for the next run"
	}
	if r.ExitCode == exitFailure && len(r.Refusing()) > 0 && r.Totals.Dead == 0 {
		return "a host refused polite's requests (401, 403): its URLs wait for the next run"
	}
	return ExitMeaning(r.ExitCode)
}
