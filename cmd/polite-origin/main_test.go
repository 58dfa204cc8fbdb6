package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestRunServesUntilCanceled(t *testing.T) {
	seeds := filepath.Join(t.TempDir(), "seeds.txt")
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, []string{"-hosts", "4", "-seeds", seeds, "-for", "30s"}, pw, io.Discard)
		pw.Close()
	}()

	sc := bufio.NewScanner(pr)
	var head []string
	for sc.Scan() {
		head = append(head, sc.Text())
		if sc.Text() == "ready" {
			break
		}
	}
	if len(head) != 6 || head[5] != "ready" {
		t.Fatalf("output before ready = %q, want 4 origins, the seed file, ready", head)
	}
	for i, line := range head[:4] {
		prefix := "origin " + string(rune('1'+i)) + ": http://127.0.0.1:"
		if !strings.HasPrefix(line, prefix) {
			t.Errorf("line %d = %q, want prefix %q", i, line, prefix)
		}
	}
	if !strings.Contains(head[0], "Disallow /private, Crawl-delay 1") {
		t.Errorf("origin 1 = %q, want its robots described", head[0])
	}

	data, err := os.ReadFile(seeds)
	if err != nil {
		t.Fatalf("read seeds: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if !strings.HasPrefix(lines[0], "#") {
		t.Errorf("seed file starts %q, want a comment", lines[0])
	}
	if got, want := len(lines), 1+4*3; got != want {
		t.Errorf("seed file has %d lines, want %d", got, want)
	}
	for _, want := range []string{"/private/report\n", "/page/1\n", "/page/0\n"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("seed file lacks %q", want)
		}
	}

	// Ask origin 1 for a disallowed seed, origin 2 twice (burst 1: a 429).
	c := &http.Client{} // no wall-clock bound: go test -timeout ends a hang
	for _, u := range []string{lines[3], lines[5], lines[5]} {
		resp, err := c.Get(u)
		if err != nil {
			t.Fatalf("GET %s: %v", u, err)
		}
		resp.Body.Close()
	}

	cancel()
	var tail []string
	for sc.Scan() {
		tail = append(tail, sc.Text())
	}
	if got := <-code; got != 0 {
		t.Errorf("exit code %d, want 0", got)
	}
	want := []string{
		"origin 1: 1 requests, 0 429s, 0 503s, 1 disallowed hits",
		"origin 2: 2 requests, 1 429s, 0 503s, 0 disallowed hits",
		"origin 3: 0 requests, 0 429s, 0 503s, 0 disallowed hits",
		"origin 4: 0 requests, 0 429s, 0 503s, 0 disallowed hits",
	}
	if strings.Join(tail, "\n") != strings.Join(want, "\n") {
		t.Errorf("exit report:\n%s\nwant:\n%s", strings.Join(tail, "\n"), strings.Join(want, "\n"))
	}
}

func TestRunRefuses(t *testing.T) {
	cases := []struct {
		name string
		args []string
	}{
		{"public address", []string{"-listen", "0.0.0.0"}},
		{"private address", []string{"-listen", "192.168.1.1"}},
		{"hostname", []string{"-listen", "example.com"}},
		{"no hosts", []string{"-hosts", "0"}},
		{"bad flag", []string{"-nope"}},
		{"stray argument", []string{"extra"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out strings.Builder
			if got := run(context.Background(), tc.args, &out, io.Discard); got != 2 {
				t.Errorf("exit code %d, want 2", got)
			}
			if out.Len() != 0 {
				t.Errorf("stdout %q, want nothing", out.String())
			}
		})
	}
}

func TestRunStopsAfterFor(t *testing.T) {
	var out strings.Builder
	start := time.Now()
	if got := run(context.Background(), []string{"-hosts", "1", "-for", "50ms"}, &out, io.Discard); got != 0 {
		t.Errorf("exit code %d, want 0", got)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("ran %v, want about 50ms", took)
	}
	if !strings.Contains(out.String(), "ready\norigin 1: 0 requests") {
		t.Errorf("output %q, want ready then the counters", out.String())
	}
}
