package report

// The exit codes of polite, as the README documents them; package crawl
// names them (crawl.ExitOK, ...) and a report carries one (ExitCode).
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

// ExitMeaning says what an exit code means, as the README does.
func ExitMeaning(code int) string {
	switch code {
	case exitOK:
		return "every URL fetched, unchanged or excluded by the site's rules"
	case exitFailure:
		return "some URLs failed for good, a host was unreachable all run, or a host's TLS was refused"
	case exitUsage:
		return "usage or input error"
	case exitLocked:
		return "another crawl held the database"
	case exitHangup:
		return "ended by SIGHUP"
	case exitInterrupted:
		return "interrupted by SIGINT"
	case exitBrokenPipe:
		return "ended by SIGPIPE"
	case exitTerminated:
		return "interrupted by SIGTERM"
	}
	return "unknown"
}
