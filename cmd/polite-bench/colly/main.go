// Command polite-colly is the bench's colly crawler: it fetches every URL
// of a seed file once with github.com/gocolly/colly/v2, configured as its
// users configure it for speed (Async, one request at a time per host, a
// global limit, keep-alive, bodies read and dropped), and prints how many
// pages answered 2xx and how long the crawl took:
//
//	polite-colly -concurrency 16 SEEDS
//
// It is a module of its own so that polite's go.mod never lists colly;
// make bench builds it beside polite-bench.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"net/url"
	"os"
	"sync/atomic"
	"time"

	"github.com/gocolly/colly/v2"
)

func main() {
	concurrency := flag.Int("concurrency", 16, "requests at once over all hosts")
	agent := flag.String("user-agent", "polite-bench-colly", "User-Agent header")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: polite-colly [-concurrency N] SEEDS")
		os.Exit(2)
	}
	seeds, hosts, err := readSeeds(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "polite-colly:", err)
		os.Exit(1)
	}
	pages, failed, wall, err := crawl(seeds, hosts, *concurrency, *agent)
	if err != nil {
		fmt.Fprintln(os.Stderr, "polite-colly:", err)
		os.Exit(1)
	}
	fmt.Printf("pages %d failed %d wall_ns %d\n", pages, failed, wall.Nanoseconds())
}

// readSeeds reads one URL a line and the hosts (host:port) they name.
func readSeeds(path string) (seeds, hosts []string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		u, err := url.Parse(sc.Text())
		if err != nil || u.Host == "" {
			return nil, nil, fmt.Errorf("%s:%d: not a URL: %q", path, line, sc.Text())
		}
		seeds = append(seeds, u.String())
		if !seen[u.Host] {
			seen[u.Host] = true
			hosts = append(hosts, u.Host)
		}
	}
	return seeds, hosts, sc.Err()
}

// crawl visits every seed: parallelism 1 for each host (a limit rule per
// host), at most concurrency requests at once over all of them.
func crawl(seeds, hosts []string, concurrency int, agent string) (pages, failed int64, wall time.Duration, err error) {
	c := colly.NewCollector(colly.Async(true), colly.UserAgent(agent))
	for _, h := range hosts {
		if err := c.Limit(&colly.LimitRule{DomainGlob: h, Parallelism: 1}); err != nil {
			return 0, 0, 0, err
		}
	}
	slots := make(chan struct{}, concurrency)
	c.OnRequest(func(*colly.Request) { slots <- struct{}{} })
	c.OnScraped(func(r *colly.Response) {
		if r.StatusCode/100 == 2 {
			atomic.AddInt64(&pages, 1)
		}
		<-slots
	})
	c.OnError(func(*colly.Response, error) {
		atomic.AddInt64(&failed, 1)
		<-slots
	})
	start := time.Now()
	for _, s := range seeds {
		if err := c.Visit(s); err != nil {
			return 0, 0, 0, fmt.Errorf("visit %s: %w", s, err)
		}
	}
	c.Wait()
	return pages, failed, time.Since(start), nil
}
