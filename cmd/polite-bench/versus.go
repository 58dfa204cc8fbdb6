package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"
)

// peer is a crawler measured beside polite in the throughput scenario:
// colly, or another polite binary (-baseline) for a before/after ratio
// from the same run.
type peer struct {
	name   string
	f      crawlerFigures
	kept   bool // polite: what it kept is counted
	shared bool // on PostgreSQL: compared with this polite's own workers
}

// baseline runs the -baseline binary over urls, plain or with --warc, in
// the folder sub of dir; again names a second run of it.
func (b *bench) baseline(ctx context.Context, dir, sub string, warc bool, again string, urls []string, origins []*origin) (peer, error) {
	o := b.opts
	name, extra := "baseline "+filepath.Base(o.baseline), []string(nil)
	if warc {
		name, extra = name+" --warc", []string{"--warc"}
	}
	b.progress("throughput: %s%s, %d URLs", name, again, len(urls))
	d := filepath.Join(dir, sub)
	if err := os.Mkdir(d, 0o700); err != nil {
		return peer{}, err
	}
	bo := o
	bo.polite = o.baseline
	f, err := runBinary(ctx, bo, d, urls, origins, extra...)
	if err != nil {
		return peer{}, err
	}
	if warc {
		if f.inWarc, err = warcCaptures(filepath.Join(d, "out", "warc")); err != nil {
			return peer{}, err
		}
	}
	return peer{name: name, f: f, kept: !warc}, nil // as polite's own rows: --warc's counts take in the requisites
}

// peers runs, in this order, the baseline binary again (its row is the
// mean of that run and first's, which ran before polite: the second of
// two runs in a row ran up to a tenth faster, whichever binary it was),
// the baseline with --warc and, under POLITE_TEST_POSTGRES, the
// baseline's workers on one PostgreSQL job (compared with this polite's);
// what is missing (no -baseline) is left out.
func (b *bench) peers(ctx context.Context, dir string, first peer, urls []string, origins []*origin) ([]peer, error) {
	o := b.opts
	var ps []peer
	if o.baseline != "" {
		p, err := b.baseline(ctx, dir, "base-again", false, " again", urls, origins)
		if err != nil {
			return nil, err
		}
		f := mean(first.f, p.f)
		f.recorded, f.onDisk = min(first.f.recorded, p.f.recorded), min(first.f.onDisk, p.f.onDisk)
		ps = append(ps, peer{name: p.name + " (mean of 2)", f: f, kept: true})
		if o.warc {
			if p, err = b.baseline(ctx, dir, "base-warc", true, "", urls, origins); err != nil {
				return nil, err
			}
			ps = append(ps, p)
		}
		if base := os.Getenv(benchPostgres); base != "" {
			name := fmt.Sprintf("baseline %s, %d workers on PostgreSQL", filepath.Base(o.baseline), sharedThroughputWorkers)
			b.progress("throughput: %s, %d URLs", name, len(urls))
			bo := o
			bo.polite = o.baseline
			f, _, err := runWorkers(ctx, bo, filepath.Join(dir, "base-pg"), base, urls, origins, sharedThroughputWorkers)
			if err != nil {
				return nil, err
			}
			ps = append(ps, peer{name: name, f: f, shared: true})
		}
	}
	return ps, nil
}

// colly runs the colly crawler (make bench builds it from its own module
// beside this program) over urls as a child process; ok is false when
// the binary is not there.
func (b *bench) colly(ctx context.Context, dir string, urls []string, origins []*origin) (f crawlerFigures, ok bool, err error) {
	o := b.opts
	if _, err := os.Stat(o.colly); err != nil {
		return f, false, nil
	}
	seeds, err := writeSeeds(dir, "colly-seeds.txt", urls)
	if err != nil {
		return f, true, err
	}
	ctx, cancel := context.WithTimeout(ctx, throughputTimeout)
	defer cancel()
	f, out, err := child(exec.CommandContext(ctx, o.colly, "-concurrency", strconv.Itoa(o.concurrency), "-user-agent", userAgent, seeds), "colly")
	if err != nil {
		return f, true, err
	}
	var pages, failed, wallNS int64
	if _, err := fmt.Sscanf(out, "pages %d failed %d wall_ns %d", &pages, &failed, &wallNS); err != nil {
		return f, true, fmt.Errorf("colly: output %q: %w", out, err)
	}
	if failed != 0 || pages != int64(len(urls)) {
		return f, true, fmt.Errorf("colly: %d pages, %d failed, of %d URLs", pages, failed, len(urls))
	}
	return f, true, served(origins, &f)
}

// besideRun is one run of the crawlers measured beside polite: the
// reference, colly (nil without its binary) and the durable reference.
type besideRun struct {
	reference, durable crawlerFigures
	colly              *crawlerFigures
}

// beside runs the crawlers measured beside polite once; they run once
// before polite and once after it (again: " again").
func (b *bench) beside(ctx context.Context, dir string, urls []string, origins []*origin, again string) (besideRun, error) {
	var r besideRun
	var err error
	b.progress("throughput: reference crawler%s, %d URLs", again, len(urls))
	if r.reference, err = reference(ctx, urls, b.opts.concurrency, origins); err != nil {
		return r, err
	}
	b.progress("throughput: colly%s, %d URLs", again, len(urls))
	c, ok, err := b.colly(ctx, dir, urls, origins)
	if err != nil {
		return r, err
	}
	if ok {
		r.colly = &c
	}
	b.progress("throughput: durable reference crawler%s, %d URLs", again, len(urls))
	r.durable, err = b.durableReference(ctx, dir, urls, origins)
	return r, err
}

// setBeside gives t the means of the runs before and after polite's.
func (t *throughputResult) setBeside(before, after besideRun) {
	r1, r2 := before.reference, after.reference
	t.reference = crawlerFigures{pages: (r1.pages + r2.pages) / 2, wall: (r1.wall + r2.wall) / 2, p90: (r1.p90 + r2.p90) / 2}
	t.note = fmt.Sprintf("reference: mean of one run before polite's (%.0f pages/s) and one after (%.0f pages/s), in this process",
		r1.rate(), r2.rate())
	if before.colly != nil && after.colly != nil {
		c := mean(*before.colly, *after.colly)
		t.colly = &c
	}
	d1, d2 := before.durable, after.durable
	t.durable = mean(d1, d2)
	t.durable.recorded, t.durable.onDisk = min(d1.recorded, d2.recorded), min(d1.onDisk, d2.onDisk)
}

// besideTargets are issue 36's targets against colly and for --warc,
// and the one docs/benchmarks.md proposes instead of colly's: polite at
// least 0.9 of the durable reference, which keeps what polite keeps.
// --warc is counted in requests, robots.txt included: a complete page is
// 1+benchRequisites of them.
func (t *throughputResult) besideTargets() []string {
	var out []string
	p := t.polite
	if t.colly != nil && t.durable.wall > 0 {
		r, d := p.rate()/t.colly.rate(), p.rate()/t.durable.rate()
		between := "" // the crawl without its start and end
		if t.colly.sustained() > 0 {
			between = fmt.Sprintf(", %.2f from the first request to 90%% of the pages", p.sustained()/t.colly.sustained())
		}
		out = append(out, fmt.Sprintf("throughput beside colly: polite >= 1.0 of colly's pages/s: %s (%.2f%s); >= 0.9 of the durable reference's, proposed instead: %s (%.2f; the durable reference is %.2f of colly)",
			verdict(r >= 1), r, between, verdict(d >= 0.9), d, t.durable.rate()/t.colly.rate()))
	}
	if w := t.withWarc; w != nil && w.wall > 0 && p.wall > 0 {
		plain := float64(t.urls()+t.hosts) / p.wall.Seconds()
		warc := float64(t.urls()*(1+benchRequisites)+t.hosts) / w.wall.Seconds()
		out = append(out, fmt.Sprintf("throughput --warc: >= 0.8 of the plain crawl's requests a second: %s (%.2f: %.0f against %.0f)",
			verdict(warc >= 0.8*plain), warc/plain, warc, plain))
	}
	return out
}

// mean is the mean of two runs of one crawler.
func mean(a, b crawlerFigures) crawlerFigures {
	return crawlerFigures{pages: (a.pages + b.pages) / 2, wall: (a.wall + b.wall) / 2, p90: (a.p90 + b.p90) / 2,
		rssKiB: max(a.rssKiB, b.rssKiB), cpu: (a.cpu + b.cpu) / 2,
		startup: (a.startup + b.startup) / 2, tail: (a.tail + b.tail) / 2}
}

// printRatios writes polite's ratios to colly and to the baseline.
func (t *throughputResult) printRatios(w io.Writer) {
	if t.colly != nil {
		fmt.Fprintf(w, "polite / colly: %.2f (to 90%%: %.2f)", t.polite.rate()/t.colly.rate(), t.polite.sustained()/t.colly.sustained())
		if t.withWarc != nil {
			fmt.Fprintf(w, "; polite --warc / colly: %.2f", t.withWarc.rate()/t.colly.rate())
		}
		fmt.Fprintln(w)
	}
	if t.withWarc != nil {
		fmt.Fprintf(w, "polite --warc / polite: %.2f\n", t.withWarc.rate()/t.polite.rate())
	}
	if d := t.durable; d.wall > 0 {
		ms := func(f crawlerFigures) float64 { return float64(f.cpu) / float64(time.Millisecond) / float64(t.urls()) }
		fmt.Fprintf(w, "polite / durable reference: %.2f pages/s", t.polite.rate()/d.rate())
		if t.colly != nil {
			fmt.Fprintf(w, "; durable reference / colly: %.2f", d.rate()/t.colly.rate())
		}
		fmt.Fprintf(w, "\nCPU a page: polite %.3f ms, durable reference %.3f ms", ms(t.polite), ms(d))
		if t.colly != nil {
			fmt.Fprintf(w, ", colly %.3f ms", ms(*t.colly))
		}
		fmt.Fprintln(w)
	}
	for i, p := range t.peers {
		this := t.polite
		switch {
		case p.shared && t.shared != nil:
			this = *t.shared
			fmt.Fprintf(w, "%s / baseline on SQLite: %.2f pages/s\n", p.name, p.f.rate()/t.peers[0].f.rate())
		case p.shared:
			continue
		case i == 1 && t.withWarc != nil:
			this = *t.withWarc
		}
		fmt.Fprintf(w, "this polite / %s: %.2f pages/s, %.2f CPU s, %.2f peak RSS\n", p.name, this.rate()/p.f.rate(),
			this.cpu.Seconds()/p.f.cpu.Seconds(), this.rssMB()/p.f.rssMB())
	}
}
