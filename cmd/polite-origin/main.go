// Command polite-origin runs a few throttling test origins on loopback
// ports, each with its own personality, for demonstrating polite by hand:
//
//	polite-origin [-listen 127.0.0.1] [-hosts 3] [-seeds FILE] [-for 2m]
//
// It prints one line per origin, writes a seed file naming a few URLs on
// each (a page, a path robots.txt disallows, a 404), prints "ready", and
// serves until -for has passed or SIGINT/SIGTERM arrives; then it prints
// what each origin counted. It listens on loopback addresses only.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/polite-crawler/polite/crawl/crawltest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// personality is one kind of demo origin.
type personality struct {
	cfg      crawltest.Config
	private  string // a path its robots.txt disallows
	describe string
}

// personalities returns the demo origins' kinds; host i takes kind i mod 3.
func personalities() []personality {
	return []personality{
		{
			cfg: crawltest.Config{
				Robots: "User-agent: *\nDisallow: /private\nCrawl-delay: 1\n",
				Pages:  20, Links: 3, Requisites: 3,
			},
			private:  "/private/report",
			describe: "unlimited, robots Disallow /private, Crawl-delay 1",
		},
		{
			cfg: crawltest.Config{
				Rate: 1, Burst: 1, RetryAfter: 2 * time.Second,
				Robots: "User-agent: *\nDisallow: /admin\n",
				Pages:  20, Links: 3, Requisites: 3,
			},
			private:  "/admin/",
			describe: "token bucket 1/s burst 1, 429 with Retry-After 2, robots Disallow /admin",
		},
		{
			cfg: crawltest.Config{
				Capacity: 5, QueueMax: 3,
				Rate: 5, Burst: 5, RateLimitHeaders: true,
				Robots: "User-agent: *\nDisallow: /tmp\n",
				Pages:  20, Links: 3, Requisites: 3,
			},
			private:  "/tmp/cache",
			describe: "queueing capacity 5/s queue 3 (503 when full), RateLimit headers 5/s burst 5, robots Disallow /tmp",
		},
	}
}

type demoOrigin struct {
	origin *crawltest.Origin
	server *http.Server
	url    string
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("polite-origin", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1", "loopback address to listen on")
	hosts := fs.Int("hosts", 3, "number of origins")
	seeds := fs.String("seeds", "", "write a seed file here")
	dur := fs.Duration("for", 2*time.Minute, "stop after this long (0: until a signal)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 || *hosts < 1 || *hosts > 100 {
		fmt.Fprintln(stderr, "polite-origin: -hosts must be 1..100 and no arguments are taken")
		return 2
	}
	if err := checkLoopback(*listen); err != nil {
		fmt.Fprintf(stderr, "polite-origin: %v\n", err)
		return 2
	}

	kinds := personalities()
	origins := make([]demoOrigin, 0, *hosts)
	defer func() { shutdown(origins) }()
	for i := range *hosts {
		k := kinds[i%len(kinds)]
		ln, err := net.Listen("tcp", net.JoinHostPort(*listen, "0"))
		if err != nil {
			fmt.Fprintf(stderr, "polite-origin: listen %s: %v\n", *listen, err)
			return 1
		}
		o := crawltest.New(k.cfg)
		srv := &http.Server{Handler: o, ReadHeaderTimeout: 10 * time.Second}
		go func() {
			if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				fmt.Fprintf(stderr, "polite-origin: serve: %v\n", err)
			}
		}()
		d := demoOrigin{origin: o, server: srv, url: "http://" + ln.Addr().String()}
		origins = append(origins, d)
		fmt.Fprintf(stdout, "origin %d: %s  %s\n", i+1, d.url, k.describe)
	}
	if *seeds != "" {
		if err := writeSeeds(*seeds, origins, kinds); err != nil {
			fmt.Fprintf(stderr, "polite-origin: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "seeds: %s\n", *seeds)
	}
	fmt.Fprintln(stdout, "ready")

	if *dur > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *dur)
		defer cancel()
	}
	<-ctx.Done()
	shutdown(origins)
	for i, d := range origins {
		s := d.origin.Stats()
		fmt.Fprintf(stdout, "origin %d: %d requests, %d 429s, %d 503s, %d disallowed hits\n",
			i+1, s.Requests, s.ByStatus[http.StatusTooManyRequests], s.ByStatus[http.StatusServiceUnavailable], s.Disallowed)
	}
	origins = nil
	return 0
}

// checkLoopback refuses any address but a loopback one.
func checkLoopback(host string) error {
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("-listen %q: only a loopback address is allowed", host)
	}
	return nil
}

// writeSeeds writes a seed file: a comment, then two pages and a disallowed
// path for each origin. It writes a temporary file and renames it.
func writeSeeds(name string, origins []demoOrigin, kinds []personality) error {
	var b strings.Builder
	b.WriteString("# polite-origin demo seeds: two pages and a path robots.txt disallows per origin\n")
	for i, d := range origins {
		k := kinds[i%len(kinds)]
		for _, p := range []string{"/page/0", "/page/1", k.private} {
			b.WriteString(d.url + p + "\n")
		}
	}
	tmp := name + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("write seeds %s: %w", name, err)
	}
	if err := os.Rename(tmp, name); err != nil {
		return fmt.Errorf("write seeds %s: %w", name, err)
	}
	return nil
}

// shutdown stops every origin's server, giving requests in flight a moment.
func shutdown(origins []demoOrigin) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	for _, d := range origins {
		if err := d.server.Shutdown(ctx); err != nil {
			_ = d.server.Close()
		}
	}
}
