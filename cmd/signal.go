package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sync"
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
	var (
		mu    sync.Mutex
		first = true
	)
	stopFor := func(sig os.Signal, tell bool) {
		code, name := crawl.ExitTerminated, sig.String()
		for _, s := range stopSignals {
			if s.sig == sig {
				code, name = s.code, s.name
			}
		}
		mu.Lock()
		was := first
		first = false
		mu.Unlock()
		switch {
		case sig == syscall.SIGPIPE && !was:
			// Every later write to the closed pipe raises one more
			// (the notice below too): only a person's signal is a
			// second one.
			return
		case !was:
			notice(fmt.Sprintf("second %s, exiting at once", name), name, code)
			os.Exit(code)
		}
		intr := &crawl.Interrupted{Signal: name, Code: code}
		if sig == syscall.SIGPIPE {
			cancel(intr) // before a notice that may block on the broken log
		}
		if tell {
			notice("finishing in-flight requests and saving state (again to exit at once)", name, code)
		}
		cancel(intr)
	}
	brokenPipe.Store(&stopFor)
	go func() {
		for sig := range ch {
			stopFor(sig, true)
		}
	}()
	return ctx, func() { signal.Stop(ch); brokenPipe.Store(nil); cancel(nil) }
}

// brokenPipe stops the run as SIGPIPE does, at once: set by
// signalContext, nil when the process takes no signals (tests calling Main).
var brokenPipe atomic.Pointer[func(os.Signal, bool)]

// pipeWatch is w, whose first write failing with EPIPE stops the run there
// and then, not when the SIGPIPE the write raised is delivered: by then a
// short crawl may have ended, and its end been saved as a success. The
// log it carries is the closed pipe, so nothing is told there (and a
// write from inside the logger's own lock must not log again).
type pipeWatch struct{ w io.Writer }

func (p pipeWatch) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	if errors.Is(err, syscall.EPIPE) {
		if stop := brokenPipe.Load(); stop != nil {
			(*stop)(syscall.SIGPIPE, false)
		}
	}
	return n, err
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
