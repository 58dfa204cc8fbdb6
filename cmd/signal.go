package cmd

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	"github.com/polite-crawler/polite/crawl"
)

// stopSignals are the signals that end a run as SIGTERM does: dispatching
// stops, in-flight requests finish, state and the run's end are saved,
// and polite exits 128 plus the signal's number.
var stopSignals = []struct {
	sig  os.Signal
	name string
	code int
}{
	{syscall.SIGHUP, "SIGHUP", crawl.ExitHangup},
	{os.Interrupt, "SIGINT", crawl.ExitInterrupted},
	{syscall.SIGPIPE, "SIGPIPE", crawl.ExitBrokenPipe},
	{syscall.SIGTERM, "SIGTERM", crawl.ExitTerminated},
}

// signalLog is where the signal notices go: the running command's logger
// once it has one (so that --log-format json holds), else text on stderr.
var signalLog atomic.Pointer[slog.Logger]

// signalContext is cancelled by the first stop signal, with a
// crawl.Interrupted cause; a second signal exits at once. Catching SIGPIPE
// also turns a write to a closed stdout or stderr into an EPIPE error
// instead of a silent death, so the run's end is saved.
func signalContext() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	ch := make(chan os.Signal, 2)
	sigs := make([]os.Signal, len(stopSignals))
	for i, s := range stopSignals {
		sigs[i] = s.sig
	}
	signal.Notify(ch, sigs...)
	go func() {
		first := true
		for sig := range ch {
			code, name := crawl.ExitTerminated, sig.String()
			for _, s := range stopSignals {
				if s.sig == sig {
					code, name = s.code, s.name
				}
			}
			switch {
			case sig == syscall.SIGPIPE && !first:
				// Every later write to the closed pipe raises one more
				// (the notice below too): only a person's signal is a
				// second one.
				continue
			case !first:
				notice(fmt.Sprintf("second %s, exiting at once", name), name, code)
				os.Exit(code)
			}
			first = false
			notice("finishing in-flight requests and saving state (again to exit at once)", name, code)
			cancel(&crawl.Interrupted{Signal: name, Code: code})
		}
	}()
	return ctx, func() { signal.Stop(ch); cancel(nil) }
}

// notice tells of a stop signal: through the running crawl's logger, or
// as text on stderr. A closed pipe is told only to a crawl's log: any
// other command just stops writing (Main exits quietly on EPIPE).
func notice(msg, name string, code int) {
	if l := signalLog.Load(); l != nil {
		l.Warn(msg, "signal", name, "exit", code)
		return
	}
	if name != "SIGPIPE" {
		fmt.Fprintf(os.Stderr, "polite: %s: %s\n", name, msg)
	}
}
