package report

import (
	"fmt"
	"strings"

	"github.com/polite-crawler/polite/crawl/sitemap"
	"github.com/polite-crawler/polite/crawl/urls"
)

// Sitemaps is what --sitemaps did in a run, in report.json.
type Sitemaps struct {
	Read        int             `json:"read"`                 // sitemaps fetched and read (2xx)
	NotModified int             `json:"not_modified"`         // re-read conditionally: 304
	URLs        int             `json:"urls"`                 // URLs found and queued (new or known)
	Refused     int             `json:"refused"`              // URLs and sitemaps the protocol or --scope does not allow
	Unchanged   int             `json:"unchanged"`            // pages not requested: lastmod not after their last fetch
	Errors      int             `json:"errors"`               // sitemaps cut, malformed, refused or not fetched
	NoLastMod   int             `json:"no_lastmod,omitempty"` // URLs kept without their lastmod, which could not be read
	Sitemaps    []*SitemapStats `json:"sitemaps"`
}

// SitemapStats is one sitemap's share of a run.
type SitemapStats struct {
	URL       string   `json:"url"`
	From      string   `json:"from,omitempty"`   // "robots.txt", "seed", or the index that lists it
	Status    int      `json:"status,omitempty"` // 0 when not fetched this run (or no answer)
	Kind      string   `json:"kind,omitempty"`   // urlset, index, text
	Gzip      bool     `json:"gzip,omitempty"`
	Bytes     int64    `json:"bytes,omitempty"`      // uncompressed bytes read
	URLs      int      `json:"urls"`                 // URLs (or an index's sitemaps) queued
	Refused   int      `json:"refused"`              // listed but not allowed
	Bad       int      `json:"bad,omitempty"`        // entries left out as malformed
	NoLastMod int      `json:"no_lastmod,omitempty"` // URLs kept without their lastmod, which could not be read
	Unchanged int      `json:"unchanged"`            // pages it lists not requested by lastmod
	Error     string   `json:"error,omitempty"`      // why it was cut or not read
	Problems  []string `json:"problems,omitempty"`   // the first problems, with their line
}

// Took takes in what reading the sitemap found: its kind, size, bad
// entries, the error that cut it and its first problems, before the
// problems noted while it was read (URLs refused), at most max in all.
func (s *SitemapStats) Took(res *sitemap.Result, max int) {
	s.Kind, s.Gzip, s.Bytes, s.Bad, s.NoLastMod = res.Kind.String(), res.Gzip, res.Bytes, res.Skipped, res.NoLastMod
	if err := res.Err(); err != nil {
		s.Error = err.Error()
	}
	noted := s.Problems
	s.Problems = nil
	for i, p := range res.Problems {
		if i == max {
			break
		}
		s.Problems = append(s.Problems, p.String())
	}
	for _, p := range noted {
		if len(s.Problems) >= max {
			break
		}
		s.Problems = append(s.Problems, p)
	}
}

// SumSitemaps sums a run's sitemaps, in the order it met them; nil when
// there is none.
func SumSitemaps(stats []*SitemapStats) *Sitemaps {
	if len(stats) == 0 {
		return nil
	}
	r := &Sitemaps{Sitemaps: stats}
	for _, s := range stats {
		switch {
		case s.Status == 304:
			r.NotModified++
		case s.Status/100 == 2:
			r.Read++
		}
		if s.Error != "" {
			r.Errors++
		}
		if s.Kind != sitemap.Index.String() { // an index's URLs are sitemaps, counted with theirs
			r.URLs += s.URLs
		}
		r.Refused += s.Refused
		r.Unchanged += s.Unchanged
		r.NoLastMod += s.NoLastMod
	}
	return r
}

// writeText adds the sitemaps' lines to the text summary: the totals,
// the sitemaps whose pages were skipped by lastmod, and the errors.
func (r *Sitemaps) writeText(b *strings.Builder) {
	if r == nil {
		return
	}
	fmt.Fprintf(b, "  sitemaps: %d read, %d not modified, %d %s found, %d skipped by lastmod, %d refused, %d %s\n",
		r.Read, r.NotModified, r.URLs, Plural(r.URLs, "URL", "URLs"), r.Unchanged, r.Refused, r.Errors, Plural(r.Errors, "error", "errors"))
	if r.NoLastMod > 0 {
		fmt.Fprintf(b, "    %d %s kept without a lastmod that could not be read\n", r.NoLastMod, Plural(r.NoLastMod, "URL", "URLs"))
	}
	shown := 0
	for _, s := range r.Sitemaps {
		if s.Unchanged > 0 && shown < textLimit {
			fmt.Fprintf(b, "    %s: %d unchanged\n", s.URL, s.Unchanged)
			shown++
		}
	}
	shown = 0
	for _, s := range r.Sitemaps {
		if s.Error == "" {
			continue
		}
		if shown == textLimit {
			fmt.Fprintf(b, "    ... and %d more sitemap errors (report.json)\n", r.Errors-textLimit)
			break
		}
		fmt.Fprintf(b, "  sitemap error: %s: %s\n", s.URL, urls.Clip(s.Error, 200))
		shown++
	}
}
