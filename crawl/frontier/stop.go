package frontier

// Stop is why a host got no more requests in a run: report.json's
// stopped value of a host. A report of an older polite kept a sentence
// there instead; read back, it is kept as it is (Known says which).
type Stop string

// The stopped values of a host.
const (
	StopDone        Stop = "done"                 // every URL of the host had its answer
	StopUnreachable Stop = "unreachable"          // no request of the run was answered (refused, timed out, no DNS)
	StopPrivate     Stop = "private-address"      // polite refused its address
	StopRobots      Stop = "robots-unreachable"   // robots.txt could not be read: its URLs wait for a later run
	StopCrawlDelay  Stop = "crawl-delay"          // its Crawl-delay is over --max-crawl-delay
	StopTLS         Stop = "tls"                  // its TLS handshake was refused (Reason.TLS): its URLs wait for a later run
	StopDeferred    Stop = "deferred"             // a Retry-After or rate-limit quota keeps it away past the run
	StopBudget      Stop = "budget"               // a budget or --max-duration ended its share with URLs waiting
	StopInterrupted Stop = "interrupted"          // a signal ended the run with URLs waiting
	StopError       Stop = "error"                // an error ended the run with URLs waiting
	StopOperator    Stop = "excluded-by-operator" // a rule of polite exclude covers it: no request of any kind
	StopAuth        Stop = "auth"                 // it answered 401 or 403 to report.MaxRefusing requests in a row: its URLs wait for a later run
)

// Known reports whether s is one of the stopped values above.
func (s Stop) Known() bool {
	switch s {
	case StopDone, StopUnreachable, StopPrivate, StopRobots, StopCrawlDelay, StopTLS, StopDeferred,
		StopBudget, StopInterrupted, StopError, StopOperator, StopAuth:
		return true
	}
	return false
}

// String is the stopped value as report.json writes it.
func (s Stop) String() string { return string(s) }

// MarshalText writes the stopped value: exactly its text.
func (s Stop) MarshalText() ([]byte, error) { return []byte(s), nil }

// UnmarshalText reads a stopped value back, whatever the text: an older
// polite's sentence is kept, not refused.
func (s *Stop) UnmarshalText(b []byte) error {
	*s = Stop(b)
	return nil
}

// RunStop is why a run stopped dispatching: report.json's stop. The zero
// RunStop is a run still going.
type RunStop string

// The ways a run stops.
const (
	RunDone        RunStop = "done"        // nothing was left to do
	RunBudget      RunStop = "budget"      // a budget bound: --max-requests, --max-bytes, --max-duration
	RunInterrupted RunStop = "interrupted" // a signal
	RunError       RunStop = "error"       // an error, such as a body that could not be written
)

// HostStop is the stopped value of a host that the run's stop left with
// URLs and no stop of its own. A run that stopped done (it had nothing
// left to do) leaves no such host; it says budget, as it always has.
func (s RunStop) HostStop() Stop {
	switch s {
	case RunInterrupted:
		return StopInterrupted
	case RunError:
		return StopError
	case RunDone, RunBudget:
		return StopBudget
	}
	return StopBudget
}

// Known reports whether s is one of the run stops above.
func (s RunStop) Known() bool {
	switch s {
	case RunDone, RunBudget, RunInterrupted, RunError:
		return true
	}
	return false
}

// String is the run's stop as report.json writes it.
func (s RunStop) String() string { return string(s) }

// Sentence is the stop for a person, report.json's stop_reason: "done",
// "interrupted", "error", "stopped by max-duration"; by is the budget
// that stopped the run.
func (s RunStop) Sentence(by Budget) string {
	switch s {
	case RunBudget:
		return "stopped by " + by.String()
	case RunDone, RunInterrupted, RunError:
		return s.String()
	}
	return s.String()
}

// MarshalText writes the run's stop: exactly its text.
func (s RunStop) MarshalText() ([]byte, error) { return []byte(s), nil }

// UnmarshalText reads a run's stop back, whatever the text: a report is
// read whole even when it has a stop this polite does not know.
func (s *RunStop) UnmarshalText(b []byte) error {
	*s = RunStop(b)
	return nil
}

// Budget names a limit a run spends against, as the flag that sets it is
// named (the retry budget has two): report.json's budgets_bound.
type Budget string

// The budgets of a run.
const (
	BudgetMaxRequests Budget = "max-requests" // --max-requests: requests of the run
	BudgetMaxBytes    Budget = "max-bytes"    // --max-bytes: bytes of bodies kept
	BudgetMaxDuration Budget = "max-duration" // --max-duration: the run's time
	BudgetMaxPerHost  Budget = "max-per-host" // --max-per-host: requests to one host
	BudgetRetry       Budget = "retry-budget" // --retry-base and --retry-ratio: retries the successes earn
)

// Known reports whether b is one of the budgets above.
func (b Budget) Known() bool {
	switch b {
	case BudgetMaxRequests, BudgetMaxBytes, BudgetMaxDuration, BudgetMaxPerHost, BudgetRetry:
		return true
	}
	return false
}

// String is the budget's name as report.json writes it.
func (b Budget) String() string { return string(b) }

// MarshalText writes the budget's name: exactly its text.
func (b Budget) MarshalText() ([]byte, error) { return []byte(b), nil }

// UnmarshalText reads a budget's name back, whatever the text: a report
// is read whole even when it names a budget this polite does not know.
func (b *Budget) UnmarshalText(text []byte) error {
	*b = Budget(text)
	return nil
}
