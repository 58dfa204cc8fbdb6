package browsertest

import (
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/polite-crawler/polite/crawl/report"
	"github.com/polite-crawler/polite/crawl/report/reporttest"
)

// sampleReport is package report's sample report (sampleReport in its
// tests), read from the file its TestSampleReportFile keeps equal to it.
func sampleReport(t *testing.T) *report.Report {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "report", "testdata", "sample-report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r report.Report
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

// chromium returns the headless browser to test report.html with, or "".
func chromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// TestReportHTMLInBrowser opens report.html in headless Chromium, takes a
// screenshot and fails on anything the page logs to its console. A control
// page with a console error shows that the console check sees errors.
// Set POLITE_SCREENSHOT to a file name to keep the report's screenshot.
func TestReportHTMLInBrowser(t *testing.T) {
	t.Parallel()
	browser := chromium()
	if browser == "" {
		t.Skip("chromium is not installed (apt-get install chromium); report.html is still checked statically by TestWriteHTML")
	}
	dir := t.TempDir()
	var page bytes.Buffer
	if err := sampleReport(t).WriteHTML(&page); err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(dir, "report.html")
	control := filepath.Join(dir, "control.html")
	must(t, os.WriteFile(report, page.Bytes(), 0o644))
	must(t, os.WriteFile(control, []byte(`<!doctype html><html lang="en"><head><title>control</title></head><body><h1 style="font-size:120px">control page</h1><script>console.error("control error")</script></body></html>`), 0o644))

	tests := []struct {
		name        string
		file        string
		wantConsole bool
	}{
		{"report.html", report, false},
		{"control page with a console error", control, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // one browser each, with its own profile and screenshot
			shot := filepath.Join(dir, strings.TrimSuffix(filepath.Base(tt.file), ".html")+".png")
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu",
				"--disable-background-networking", "--disable-component-update", "--disable-sync",
				"--disable-extensions", "--no-first-run", "--host-resolver-rules=MAP * ~NOTFOUND",
				"--user-data-dir="+filepath.Join(dir, "profile-"+filepath.Base(shot)),
				"--enable-logging=stderr", "--v=0",
				"--screenshot="+shot, "--window-size=1200,900", "file://"+tt.file)
			var stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stderr, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("chromium: %v\n%s", err, stderr.String())
			}
			var console []string
			for _, line := range strings.Split(stderr.String(), "\n") {
				if strings.Contains(line, ":CONSOLE") || strings.Contains(line, "Uncaught") {
					console = append(console, line)
				}
			}
			if got := len(console) > 0; got != tt.wantConsole {
				t.Errorf("console messages %q; want some: %v", console, tt.wantConsole)
			}
			checkScreenshot(t, shot)
			if keep := os.Getenv("POLITE_SCREENSHOT"); keep != "" && !tt.wantConsole {
				if b, err := os.ReadFile(shot); err == nil {
					must(t, os.WriteFile(keep, b, 0o644))
				}
			}
		})
	}
}

// checkScreenshot fails unless shot is a 1200x900 PNG with something drawn.
func checkScreenshot(t *testing.T, shot string) {
	t.Helper()
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	b := img.Bounds()
	if b.Dx() != 1200 || b.Dy() != 900 {
		t.Errorf("screenshot is %dx%d, want 1200x900", b.Dx(), b.Dy())
	}
	inked := 0
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			if r, g, bl, _ := img.At(x, y).RGBA(); r < 0xc000 || g < 0xc000 || bl < 0xc000 {
				inked++
			}
		}
	}
	if inked < 50 {
		t.Errorf("screenshot is blank (%d dark samples)", inked)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestReportHTMLOrderInBrowser reads report.html as headless Chromium
// built it (its DOM, dumped) and checks that the hosts come in order of
// trouble in both tables and the timelines: throttled, dead, skipped, the
// rest.
func TestReportHTMLOrderInBrowser(t *testing.T) {
	t.Parallel()
	browser := chromium()
	if browser == "" {
		t.Skip("chromium is not installed (apt-get install chromium); the order is still checked statically by TestWriteHTML")
	}
	dir := t.TempDir()
	r := sampleReport(t)
	// Calm hosts first in the report, the order a run may list them in.
	api, docs, slow, never := r.Hosts[0], r.Hosts[1], r.Hosts[2], r.Hosts[3]
	r.Hosts = []*report.HostStats{docs, never, slow, api}
	var page bytes.Buffer
	if err := r.WriteHTML(&page); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "report.html")
	must(t, os.WriteFile(file, page.Bytes(), 0o644))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-extensions", "--no-first-run", "--host-resolver-rules=MAP * ~NOTFOUND",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--dump-dom", "file://"+file)
	var dom, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &dom, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	want := []string{"api.example.org", "slow.example.net", "never.example.com:8443", "docs.example.org"}
	for _, part := range []string{`<table id="answers">`, `<table id="pacing">`, `<h2>Timelines</h2>`} {
		if got := reporttest.HostOrder(dom.String(), part); !slices.Equal(got, want) {
			t.Errorf("in the browser, hosts after %s come in order %q, want %q", part, got, want)
		}
	}
}
