package crawltest

import (
	"fmt"
	"math/rand"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// NightsConfig is a site whose pages change at mixed rates, night after
// night (Nights): Daily of its Pages change every night, Weekly once a
// week on average, the rest never. Every LastModEvery-th page (0: none)
// is listed in /sitemap.xml with its lastmod.
type NightsConfig struct {
	Pages         int
	Daily, Weekly float64 // shares of the pages, the first ones
	LastModEvery  int
	Seed          int64 // each night's changes are drawn from it
}

// Nights is a site of pages that change night after night, drawn from a
// fixed seed, that keeps count of the changes a crawler caught: the
// night a change happened and the night a 200 first served it. It is
// safe for concurrent use. Paths:
//
//	/robots.txt   allows everything and names /sitemap.xml
//	/sitemap.xml  the pages N with N%LastModEvery == 0, with their lastmod
//	/n/N          page N: its version in the body, an ETag, 304 to a
//	              matching If-None-Match
//
// Call Night before each night's crawl.
type Nights struct {
	cfg  NightsConfig
	rate []float64
	rng  *rand.Rand

	mu      sync.Mutex
	night   int
	version []int
	lastMod []time.Time
	pending []int // the night of the oldest change no 200 has served yet; -1 if none
	tally   NightsTally
}

// NightsTally is what a Nights site counted over its nights.
type NightsTally struct {
	Requests   int // every request but robots.txt's: pages and the sitemap
	Pages      int // page requests
	NotMod     int // 304 answers
	Changes    int // page changes, over every night
	CaughtSame int // changes a 200 served the night they happened
	CaughtTwo  int // the night they happened or the next
	// The same of the pages the sitemap lists with lastmod.
	LastModChanges, LastModSame int
	PerNight                    []int // Requests of each night
}

// NewNights returns the site before its first night, every page at
// version 0, last modified at born.
func NewNights(cfg NightsConfig, born time.Time) *Nights {
	s := &Nights{cfg: cfg, rate: make([]float64, cfg.Pages), rng: rand.New(rand.NewSource(cfg.Seed)), night: -1,
		version: make([]int, cfg.Pages), lastMod: make([]time.Time, cfg.Pages), pending: make([]int, cfg.Pages)}
	for i := range s.rate {
		switch f := float64(i) / float64(cfg.Pages); {
		case f < cfg.Daily:
			s.rate[i] = 1
		case f < cfg.Daily+cfg.Weekly:
			s.rate[i] = 1.0 / 7
		}
		s.lastMod[i], s.pending[i] = born, -1
	}
	return s
}

// Night starts the next night, whose crawl starts at at (on the crawl's
// clock): after the first, each page changes with its night's chance,
// an hour before at.
func (s *Nights) Night(at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.night++
	s.tally.PerNight = append(s.tally.PerNight, 0)
	if s.night == 0 {
		return
	}
	for i, r := range s.rate {
		if s.rng.Float64() >= r {
			continue
		}
		s.version[i]++
		s.lastMod[i] = at.Add(-time.Hour).Truncate(time.Second)
		s.tally.Changes++
		if s.listed(i) {
			s.tally.LastModChanges++
		}
		if s.pending[i] < 0 {
			s.pending[i] = s.night
		}
	}
}

// Tally returns what the site counted so far.
func (s *Nights) Tally() NightsTally {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tally
	t.PerNight = append([]int(nil), t.PerNight...)
	return t
}

// PagePaths lists the pages' paths.
func (s *Nights) PagePaths() []string {
	ps := make([]string, s.cfg.Pages)
	for i := range ps {
		ps[i] = "/n/" + strconv.Itoa(i)
	}
	return ps
}

func (s *Nights) listed(i int) bool { return s.cfg.LastModEvery > 0 && i%s.cfg.LastModEvery == 0 }

func (s *Nights) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	base := "http://" + r.Host
	if r.URL.Path == "/robots.txt" {
		fmt.Fprintf(w, "User-agent: *\nDisallow:\nSitemap: %s/sitemap.xml\n", base)
		return
	}
	if s.night >= 0 {
		s.tally.Requests++
		s.tally.PerNight[s.night]++
	}
	if r.URL.Path == "/sitemap.xml" {
		w.Header().Set("Content-Type", "application/xml")
		fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?>`+"\n"+`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`+"\n")
		for i := range s.cfg.Pages {
			if s.listed(i) {
				fmt.Fprintf(w, "<url><loc>%s/n/%d</loc><lastmod>%s</lastmod></url>\n", base, i, s.lastMod[i].UTC().Format(time.RFC3339))
			}
		}
		fmt.Fprint(w, "</urlset>\n")
		return
	}
	i, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/n/"))
	if !strings.HasPrefix(r.URL.Path, "/n/") || err != nil || i < 0 || i >= s.cfg.Pages {
		http.NotFound(w, r)
		return
	}
	s.tally.Pages++
	etag := fmt.Sprintf(`"v%d"`, s.version[i])
	w.Header().Set("ETag", etag)
	if r.Header.Get("If-None-Match") == etag {
		s.tally.NotMod++
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if p := s.pending[i]; p >= 0 {
		if p == s.night {
			s.tally.CaughtSame++
			if s.listed(i) {
				s.tally.LastModSame++
			}
		}
		if p >= s.night-1 {
			s.tally.CaughtTwo++
		}
		s.pending[i] = -1
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, "<!doctype html><title>page %d</title><p>page %d, version %d</p>\n", i, i, s.version[i])
}
