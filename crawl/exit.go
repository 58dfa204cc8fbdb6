package crawl

import "errors"

// The exit codes of polite, as the README documents them. A run's report
// carries one (report.Report.ExitCode) and says what it means
// (report.ExitMeaning); the command exits with it.
const (
	ExitOK          = 0   // every URL fetched, unchanged or excluded (report.CrawlExits has the table)
	ExitFailure     = 1   // some URLs failed for good, a host was unreachable all run, its TLS refused or refusing (401, 403), or an error
	ExitUsage       = 2   // usage or input error
	ExitLocked      = 3   // another crawl held the database
	ExitHangup      = 129 // ended by SIGHUP
	ExitInterrupted = 130 // interrupted by SIGINT
	ExitBrokenPipe  = 141 // ended by SIGPIPE
	ExitTerminated  = 143 // interrupted by SIGTERM
)

// exitCode is a finished run's exit code: the signal's for an interrupted
// run, a failure for any other error or for dead URLs.
func exitCode(runErr error, dead bool) int {
	var intr *Interrupted
	switch {
	case errors.As(runErr, &intr):
		return intr.Code
	case runErr != nil, dead:
		return ExitFailure
	}
	return ExitOK
}
