package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/polite-crawler/polite/crawl/crawltest"
)

// scaleRun is one run of the scale scenario: the throughput scenario's
// crawl (the binary, floors 0) over -hosts origins of pages pages each.
type scaleRun struct {
	hosts, pages int
	again        bool // the smallest size run again, after the others
	f            crawlerFigures
}

func (r scaleRun) urls() int { return r.hosts * r.pages }

// runScale crawls -hosts origins once for each -scale-pages size, one
// after the other, then the first size again: what polite keeps must not
// grow with the pages of a run, nor its rate fall. The rates are compared
// with the mean of the first size's two runs, one before the others and
// one after: it lasts seconds, and the machine's other work moved a
// single run of it by a tenth.
func (b *bench) runScale(ctx context.Context) error {
	o := b.opts
	if _, err := os.Stat(o.polite); err != nil {
		return fmt.Errorf("polite binary: %w (build it with make build, or pass -polite)", err)
	}
	sizes := o.scalePages
	if len(sizes) > 1 {
		sizes = append(sizes[:len(sizes):len(sizes)], sizes[0])
	}
	for i, pages := range sizes {
		r := scaleRun{hosts: o.hosts, pages: pages, again: i > 0 && i == len(o.scalePages)}
		b.progress("scale: %s crawl, %d hosts x %d pages", o.polite, r.hosts, pages)
		f, err := scaleCrawl(ctx, o, pages)
		if err != nil {
			return err
		}
		r.f = f
		b.scale = append(b.scale, r)
	}
	return nil
}

// smallestRate is the mean pages/s of the first size's runs.
func smallestRate(rs []scaleRun) float64 {
	sum, n := 0.0, 0
	for _, r := range rs {
		if r.pages == rs[0].pages {
			sum, n = sum+r.f.rate(), n+1
		}
	}
	return sum / float64(n)
}

// largestRun is the run of the most pages.
func largestRun(rs []scaleRun) scaleRun {
	last := rs[0]
	for _, r := range rs {
		if r.urls() > last.urls() {
			last = r
		}
	}
	return last
}

func scaleCrawl(ctx context.Context, o options, pages int) (crawlerFigures, error) {
	origins := startOrigins(o.hosts, crawltest.Config{Robots: robotsTxt, Pages: pages, Links: 3, Log: true})
	defer closeOrigins(origins)
	urls := make([]string, 0, o.hosts*pages)
	for p := range pages {
		for _, or := range origins {
			urls = append(urls, or.srv.URL+"/page/"+strconv.Itoa(p))
		}
	}
	dir, err := os.MkdirTemp("", "polite-bench-scale-")
	if err != nil {
		return crawlerFigures{}, err
	}
	defer os.RemoveAll(dir)
	return runBinary(ctx, o, dir, urls, origins)
}

// runLimit bounds a crawl of n URLs: throughputTimeout, or 200 pages a
// second for the scale scenario's longer runs.
func runLimit(n int) time.Duration {
	return max(throughputTimeout, time.Duration(n)*5*time.Millisecond)
}

// printScale writes the scale scenario's block.
func printScale(w io.Writer, rs []scaleRun) {
	fmt.Fprintf(w, "scale: the throughput crawl (floors 0, the binary) over ever more pages, one run after the other\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "hosts x pages\tpages\tpages/s\tpeak RSS MB\tin SQLite\ton disk\twall s\tCPU s\tpages/s over the first size's mean")
	base := smallestRate(rs)
	for _, r := range rs {
		again := ""
		if r.again {
			again = " again"
		}
		fmt.Fprintf(tw, "%d x %d%s\t%d\t%.0f\t%.1f\t%d/%d\t%d/%d\t%.1f\t%.1f\t%.2f\n", r.hosts, r.pages, again, r.f.pages, r.f.rate(), r.f.rssMB(),
			r.f.recorded, r.urls(), r.f.onDisk, r.urls(), r.f.wall.Seconds(), r.f.cpu.Seconds(), r.f.rate()/base)
	}
	tw.Flush()
}

// scaleTarget is the scale scenario's line of the targets.
func scaleTarget(rs []scaleRun) string {
	first, last, base := rs[0], largestRun(rs), smallestRate(rs)
	peak, all := 0.0, true
	for _, r := range rs {
		peak = max(peak, r.f.rssMB())
		all = all && r.f.recorded == r.urls() && r.f.onDisk == r.urls()
	}
	return fmt.Sprintf("scale (%d to %d pages): peak RSS < 80 MB in every run, pages/s of the largest >= 0.90 of the smallest's (the mean of its runs), every page kept: %s (%.1f MB, %.2f)",
		first.urls(), last.urls(), verdict(peak < 80 && last.f.rate() >= 0.9*base && all), peak, last.f.rate()/base)
}
