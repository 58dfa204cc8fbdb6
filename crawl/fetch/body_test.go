package fetch

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"runtime"
	"testing"
	"time"
)

// lyingServer answers every request on a loopback listener with a
// Content-Length of announced bytes and then sends only body before it
// closes the connection.
func lyingServer(tb testing.TB, announced int64, body string) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				br := bufio.NewReader(conn)
				for {
					line, err := br.ReadString('\n')
					if err != nil || line == "\r\n" {
						break
					}
				}
				fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n%s", announced, body)
			}()
		}
	}()
	return "http://" + ln.Addr().String() + "/big"
}

// TestLyingContentLengthCostsWhatArrives: responses that announce 10 MiB
// and send 12 bytes cost each request what arrived (a read chunk and the
// connection's buffers), not what was announced, and none is kept.
func TestLyingContentLengthCostsWhatArrives(t *testing.T) {
	// Not parallel: it measures the process's allocations, which the parallel tests would share.
	u := lyingServer(t, 10<<20, "twelve bytes")
	cfg := DefaultOptions()
	cfg.AllowPrivate = true
	cfg.Timeout = 5 * time.Second
	f := mustNew(t, cfg)
	defer f.Close()
	const n = 16
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := 0; i < n; i++ {
		resp := f.Get(context.Background(), mustURLOf(t, u), nil)
		if resp.Err == nil || resp.Body != nil {
			t.Fatalf("request %d: status %d, %d bytes, err %v; want a failure and no body", i, resp.Status, len(resp.Body), resp.Err)
		}
		if resp.Reason != "reset" {
			t.Errorf("request %d: reason %q (%v), want reset", i, resp.Reason, resp.Err)
		}
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / n; per > 256<<10 {
		t.Errorf("each request allocated %d KiB, want under 256 KiB for 12 bytes announced as 10 MiB", per>>10)
	}
}

// BenchmarkLyingContentLength: 16 requests in parallel, each announcing
// 10 MiB and sending 12 bytes. B/op is what one request costs.
func BenchmarkLyingContentLength(b *testing.B) {
	u := lyingServer(b, 10<<20, "twelve bytes")
	cfg := DefaultOptions()
	cfg.AllowPrivate = true
	f := mustNew(b, cfg)
	defer f.Close()
	target := mustURLOf(b, u)
	b.ReportAllocs()
	b.SetParallelism(max(1, 16/runtime.GOMAXPROCS(0))) // about 16 at once
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if resp := f.Get(context.Background(), target, nil); resp.Err == nil {
				b.Errorf("status %d: a short body was taken as whole", resp.Status)
			}
		}
	})
}
