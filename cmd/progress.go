package cmd

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/report"
)

// progress draws the crawl's progress bar on stderr, when it is on, and
// keeps log lines from garbling it: a log line clears the bar, is written
// above it, and the bar is drawn again. It is safe for concurrent use.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	on    bool
	cols  func() int               // terminal width; 0 when unknown
	bar   *progressbar.ProgressBar // nil until the first snapshot
	shown bool                     // the bar is on the screen
	last  crawl.Progress
	ended bool // the run is over: the frame shows its final counts
}

// newProgress returns a progress display writing to w; with on false it
// draws nothing and passes log lines through.
func newProgress(w io.Writer, on bool) *progress {
	p := &progress{w: w, on: on, cols: func() int { return 0 }}
	if f, ok := w.(*os.File); ok {
		p.cols = func() int {
			c, _, err := term.GetSize(int(f.Fd()))
			if err != nil {
				return 0
			}
			return c
		}
	}
	return p
}

// update shows a crawl snapshot.
func (p *progress) update(s crawl.Progress) {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.draw(s)
}

// draw shows s; the caller holds p.mu. The total never shrinks: a URL
// known once stays counted, whether it was done or left for another run.
func (p *progress) draw(s crawl.Progress) {
	s.Total = max(s.Total, s.Done, p.last.Total)
	p.last = s
	desc, width := p.layout(s)
	total := int64(max(s.Total, 1))
	if p.bar == nil {
		p.bar = progressbar.NewOptions64(total,
			progressbar.OptionSetWriter(p.w),
			progressbar.OptionSetWidth(width),
			progressbar.OptionSetDescription(desc),
			progressbar.OptionShowDescriptionAtLineEnd(),
			progressbar.OptionSetPredictTime(false),
			progressbar.OptionSetTheme(progressbar.Theme{Saucer: "#", SaucerPadding: "-", BarStart: "[", BarEnd: "]"}),
		)
	} else if total != p.bar.GetMax64() {
		p.bar.ChangeMax64(total)
	}
	p.bar.Describe(desc)
	p.bar.Set64(int64(s.Done))
	p.shown = true
}

// layout returns the text after the bar and the bar's width for the
// terminal: a shorter text when the long one does not fit.
func (p *progress) layout(s crawl.Progress) (string, int) {
	eta := "ETA -"
	if s.Done > 0 && s.Total > s.Done {
		left := time.Duration(float64(s.Elapsed) / float64(s.Done) * float64(s.Total-s.Done))
		eta = "ETA " + report.HumanDuration(left.Seconds())
	} else if s.Total > 0 && s.Done >= s.Total {
		eta = "finishing"
	}
	if p.ended {
		eta = "took " + report.HumanDuration(s.Elapsed.Seconds())
	}
	long := fmt.Sprintf("%d/%d URLs, %.1f req/s, %d %s active, %d backing off, %d x 429/503, %s",
		s.Done, s.Total, s.Rate, s.HostsActive, plural(s.HostsActive, "host", "hosts"), s.HostsBackingOff, s.Throttled, eta)
	cols := p.cols()
	if cols <= 0 {
		cols = 100
	}
	// "100% [" + bar + "] " + text: 8 columns besides the bar and the text,
	// and one spare so that the line never wraps.
	room := cols - 9 - len(long)
	if room >= 10 {
		return long, min(room, 30)
	}
	short := fmt.Sprintf("%d/%d %.1f/s %d hosts %d slow %d thr %s", s.Done, s.Total, s.Rate, s.HostsActive, s.HostsBackingOff, s.Throttled, eta)
	return short, max(cols-9-len(short), 5)
}

// finish draws the run's final counts from its report and leaves that
// last frame on its own line, above the summary.
func (p *progress) finish(rep *report.Report) {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if rep != nil {
		t := rep.Totals
		final := p.last
		final.Done = t.Done + t.NotModified + t.Excluded + t.Dead
		final.Total = max(final.Done+t.Waiting, final.Done)
		final.Requests, final.Throttled = t.Requests, t.Throttled
		final.HostsActive, final.HostsBackingOff = 0, 0
		if rep.DurationS > 0 {
			final.Rate = float64(t.Requests) / rep.DurationS
			final.Elapsed = time.Duration(rep.DurationS * float64(time.Second))
		}
		p.last = crawl.Progress{} // the final counts are the truth, larger or not
		p.ended = true
		p.draw(final)
	}
	if p.bar == nil {
		return
	}
	p.bar.Exit()
	fmt.Fprintln(p.w)
	p.shown = false
}

// logWriter is where log lines go while the bar may be drawn.
func (p *progress) logWriter() io.Writer {
	if !p.on {
		return p.w
	}
	return logAboveBar{p}
}

// logAboveBar writes each log line above the bar.
type logAboveBar struct{ p *progress }

func (l logAboveBar) Write(b []byte) (int, error) {
	l.p.mu.Lock()
	defer l.p.mu.Unlock()
	if !l.p.shown {
		return l.p.w.Write(b)
	}
	l.p.bar.Clear()
	n, err := l.p.w.Write(b)
	l.p.bar.RenderBlank()
	return n, err
}
