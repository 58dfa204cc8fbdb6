package cmd

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"polite/crawl"
)

// progress draws the crawl's progress bar on stderr, when it is on, and
// keeps log lines from garbling it: a log line clears the bar, is written
// above it, and the bar is drawn again.
type progress struct {
	mu  sync.Mutex
	w   io.Writer
	bar *progressbar.ProgressBar
}

func newProgress(w io.Writer, on bool) *progress {
	p := &progress{w: w}
	if on {
		p.bar = progressbar.NewOptions64(-1,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetWidth(24),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionSetRenderBlankState(true),
			progressbar.OptionClearOnFinish(),
			progressbar.OptionSpinnerType(14),
		)
	}
	return p
}

// update shows a crawl snapshot.
func (p *progress) update(s crawl.Progress) {
	if p.bar == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if s.Total > 0 && int64(s.Total) != p.bar.GetMax64() {
		p.bar.ChangeMax64(int64(s.Total))
	}
	p.bar.Describe(fmt.Sprintf("%.1f req/s, %d hosts active, %d backing off, %d throttled", s.Rate, s.HostsActive, s.HostsBackingOff, s.Throttled))
	p.bar.Set64(int64(s.Done))
}

func (p *progress) finish() {
	if p.bar == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.bar.Finish()
	p.bar.Clear()
}

// logWriter is where log lines go while the bar may be drawn.
func (p *progress) logWriter() io.Writer {
	if p.bar == nil {
		return p.w
	}
	return logAboveBar{p}
}

type logAboveBar struct{ p *progress }

func (l logAboveBar) Write(b []byte) (int, error) {
	l.p.mu.Lock()
	defer l.p.mu.Unlock()
	l.p.bar.Clear()
	n, err := l.p.w.Write(b)
	l.p.bar.RenderBlank()
	return n, err
}
