package cmd

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl"
	"github.com/polite-crawler/polite/crawl/crawltest"
	"github.com/polite-crawler/polite/crawl/report"
)

func TestProgressLayout(t *testing.T) {
	snap := crawl.Progress{Done: 420, Total: 1000, Rate: 3.24, HostsActive: 12, HostsBackingOff: 2, Throttled: 5, Elapsed: 140 * time.Second}
	tests := []struct {
		name     string
		cols     int
		s        crawl.Progress
		want     string
		minWidth int
	}{
		{"wide terminal", 160, snap, "420/1000 URLs, 3.2 req/s, 12 hosts active, 2 backing off, 5 x 429/503, ETA 3m13s", 30},
		{"unknown width", 0, snap, "420/1000 URLs, 3.2 req/s, 12 hosts active, 2 backing off, 5 x 429/503, ETA 3m13s", 10},
		{"narrow terminal", 70, snap, "420/1000 3.2/s 12 hosts 2 slow 5 thr ETA 3m13s", 5},
		{"nothing done yet", 160, crawl.Progress{Total: 10, HostsActive: 1}, "0/10 URLs, 0.0 req/s, 1 host active, 0 backing off, 0 x 429/503, ETA -", 30},
		{"all done", 160, crawl.Progress{Done: 10, Total: 10, Elapsed: time.Second}, "10/10 URLs, 0.0 req/s, 0 hosts active, 0 backing off, 0 x 429/503, finishing", 30},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProgress(&bytes.Buffer{}, true)
			p.cols = func() int { return tt.cols }
			got, width := p.layout(tt.s)
			if got != tt.want {
				t.Errorf("text %q, want %q", got, tt.want)
			}
			if width < tt.minWidth {
				t.Errorf("bar width %d, want at least %d", width, tt.minWidth)
			}
			if tt.cols > 0 && len(got)+width+9 > tt.cols {
				t.Errorf("line of %d columns does not fit %d", len(got)+width+9, tt.cols)
			}
		})
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestLogLinesAboveBar writes log lines while the bar is updated from
// another goroutine: every log line must come out whole, on a line of its
// own (what the terminal shows after the last carriage return), and the
// bar must be drawn again after it.
func TestLogLinesAboveBar(t *testing.T) {
	var out syncBuffer
	p := newProgress(&out, true)
	p.cols = func() int { return 120 }
	p.update(crawl.Progress{Total: 50, HostsActive: 2})
	log := p.logWriter()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := range 50 {
			p.update(crawl.Progress{Done: i, Total: 50, HostsActive: 2, Elapsed: time.Duration(i+1) * time.Second})
		}
	}()
	go func() {
		defer wg.Done()
		for i := range 20 {
			fmt.Fprintf(log, "level=INFO msg=\"host backing off\" n=%d\n", i)
		}
	}()
	wg.Wait()
	p.finish(&report.Report{DurationS: 10, Totals: report.Totals{Requests: 50, Done: 47, NotModified: 2, Dead: 1}})

	seen := map[string]bool{}
	lines := strings.Split(out.String(), "\n")
	// The log lines, each followed by the bar drawn again; then the last
	// frame with the final counts, on a line of its own.
	logLines, final := lines[:len(lines)-2], lines[len(lines)-2]
	for i, line := range logLines {
		shown := line[strings.LastIndex(line, "\r")+1:] // what stays on the terminal's line
		if !strings.HasPrefix(shown, "level=INFO") {
			t.Errorf("line %d shows %q, want a whole log line", i, shown)
			continue
		}
		seen[shown] = true
		if !strings.Contains(lines[i+1], "URLs,") {
			t.Errorf("no bar drawn after log line %d: next output %q", i, lines[i+1])
		}
	}
	if len(seen) != 20 {
		t.Errorf("%d distinct log lines on the screen, want 20:\n%q", len(seen), out.String())
	}
	shown := strings.TrimSpace(final[strings.LastIndex(final, "\r")+1:])
	if want := "100% [##############################]  50/50 URLs, 5.0 req/s, 0 hosts active, 0 backing off, 0 x 429/503, took 10.0s"; shown != want {
		t.Errorf("last frame %q, want %q", shown, want)
	}
	if lines[len(lines)-1] != "" {
		t.Errorf("after finish the cursor is on %q, want a new line", lines[len(lines)-1])
	}
}

// TestProgressTotalNeverShrinks feeds snapshots whose total goes down (a
// URL left for another run, a count that lags): the bar keeps the largest
// total it showed, and the last frame shows the run's final counts.
func TestProgressTotalNeverShrinks(t *testing.T) {
	tests := []struct {
		name  string
		snaps []crawl.Progress
		final *report.Report
		want  string // the last frame's counts
	}{
		{"total goes down", []crawl.Progress{{Done: 0, Total: 6}, {Done: 0, Total: 3}, {Done: 1, Total: 3}}, nil, "1/6 URLs"},
		{"done above total", []crawl.Progress{{Done: 4, Total: 2}}, nil, "4/4 URLs"},
		{"final counts from the report", []crawl.Progress{{Done: 0, Total: 3}},
			&report.Report{DurationS: 1, Totals: report.Totals{Done: 2, Excluded: 1}}, "3/3 URLs"},
		{"a run that left URLs waiting", []crawl.Progress{{Done: 2, Total: 9}},
			&report.Report{DurationS: 1, Totals: report.Totals{Done: 4, Waiting: 5}}, "4/9 URLs"},
		{"final frame without any snapshot", nil, &report.Report{DurationS: 1, Totals: report.Totals{Done: 3}}, "3/3 URLs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			p := newProgress(&out, true)
			p.cols = func() int { return 160 }
			for _, s := range tt.snaps {
				p.update(s)
			}
			if tt.final != nil {
				p.finish(tt.final)
			}
			frames := strings.Split(out.String(), "\r")
			last := ""
			for _, f := range frames {
				if strings.Contains(f, "URLs,") {
					last = f
				}
			}
			if !strings.Contains(last, " "+tt.want+",") {
				t.Errorf("last frame %q, want %s", last, tt.want)
			}
			for _, f := range frames {
				if strings.Contains(f, "/3 URLs") && strings.Contains(out.String(), "/6 URLs") && strings.Index(out.String(), f) > strings.Index(out.String(), "/6 URLs") {
					t.Errorf("the total shrank: frame %q after a total of 6", f)
				}
			}
		})
	}
}

// TestCrawlProgressBar runs polite crawl with stderr a terminal or not,
// and with --quiet and --progress: the bar appears only when it should,
// and never on stdout.
func TestCrawlProgressBar(t *testing.T) {
	_, srv := crawltest.Serve(crawltest.Config{})
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	seeds := filepath.Join(dir, "seeds.txt")
	if err := os.WriteFile(seeds, []byte(srv.URL+"/a\n"+srv.URL+"/b\n"+srv.URL+"/c\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		tty     bool
		flags   []string
		wantBar bool
	}{
		{"terminal", true, nil, true},
		{"not a terminal (cron, pipe)", false, nil, false},
		{"terminal, --quiet", true, []string{"--quiet"}, false},
		{"terminal, --progress never", true, []string{"--progress", "never"}, false},
		{"not a terminal, --progress always", false, []string{"--progress", "always"}, true},
		{"--quiet wins over --progress always", false, []string{"--quiet", "--progress", "always"}, false},
		{"terminal, JSON logs", true, []string{"--log-format", "json"}, false},
		{"JSON logs, --progress always", false, []string{"--log-format", "json", "--progress", "always"}, true},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := []string{"crawl", "--db", filepath.Join(dir, fmt.Sprintf("p%d.db", i)), "--out", filepath.Join(dir, fmt.Sprintf("out%d", i)),
				"--floor", "5ms", "--start", "5ms", "--decrease", "5ms"}
			args = append(append(args, tt.flags...), seeds)
			var out, errOut bytes.Buffer
			code := Main(context.Background(), args, IO{In: strings.NewReader(""), Out: &out, ErrOut: &errOut, IsTTY: func() bool { return tt.tty }})
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, out.String(), errOut.String())
			}
			if got := strings.Contains(errOut.String(), "URLs,"); got != tt.wantBar {
				t.Errorf("bar on stderr: %v, want %v\nstderr: %q", got, tt.wantBar, errOut.String())
			}
			if strings.Contains(out.String(), "URLs,") || strings.Contains(out.String(), "\r") {
				t.Errorf("the bar reached stdout: %q", out.String())
			}
			// -q prints no summary for a run that ends 0.
			if got, want := strings.Contains(out.String(), "3 done"), !slices.Contains(tt.flags, "--quiet"); got != want {
				t.Errorf("summary on stdout: %v, want %v\nstdout: %q", got, want, out.String())
			}
		})
	}
}
