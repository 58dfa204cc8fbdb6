package crawltest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestNights: a daily page changes every night and its change is caught
// the night a 200 serves it, or the next; a page that never changes
// answers 304 to its ETag; the sitemap lists every LastModEvery-th page
// with the lastmod of its last change.
func TestNights(t *testing.T) {
	t.Parallel()
	born := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(n int) time.Time { return born.Add(time.Duration(30+n) * 24 * time.Hour) }
	s := NewNights(NightsConfig{Pages: 10, Daily: 0.2, LastModEvery: 5, Seed: 1}, born)
	get := func(path, etag string) (int, string, string) {
		t.Helper()
		r := httptest.NewRequest(http.MethodGet, path, nil)
		if etag != "" {
			r.Header.Set("If-None-Match", etag)
		}
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		body, _ := io.ReadAll(w.Result().Body)
		return w.Code, w.Header().Get("ETag"), string(body)
	}
	s.Night(at(0))
	for _, p := range s.PagePaths() {
		if code, _, _ := get(p, ""); code != 200 {
			t.Fatalf("night 0 %s: %d, want 200", p, code)
		}
	}
	s.Night(at(1))
	if code, etag, _ := get("/n/0", `"v0"`); code != 200 || etag != `"v1"` {
		t.Errorf("night 1, daily /n/0: %d %s, want 200 and its second version", code, etag)
	}
	if code, _, _ := get("/n/5", `"v0"`); code != 304 {
		t.Errorf("night 1, unchanging /n/5: %d, want 304", code)
	}
	s.Night(at(2))
	get("/n/1", `"v0"`) // changed on nights 1 and 2: the first caught within two nights, not the same night
	_, _, sm := get("/sitemap.xml", "")
	want := "<loc>http://example.com/n/0</loc><lastmod>" + at(2).Add(-time.Hour).Format(time.RFC3339) + "</lastmod>"
	if !strings.Contains(sm, want) || !strings.Contains(sm, "/n/5</loc><lastmod>"+born.Format(time.RFC3339)) || strings.Contains(sm, "/n/1<") {
		t.Errorf("sitemap:\n%s\nwant /n/0 last modified on night 2 (%s), /n/5 at birth, no /n/1", sm, want)
	}
	got := s.Tally()
	if got.Changes != 4 || got.CaughtSame != 1 || got.CaughtTwo != 2 || got.LastModChanges != 2 || got.LastModSame != 1 ||
		got.Pages != 13 || got.NotMod != 1 || got.Requests != 14 || len(got.PerNight) != 3 {
		t.Errorf("tally %+v; want 4 changes, 1 caught the same night, 2 within two, 1 of 2 lastmod changes the same night, 13 pages, 1 304, 14 requests over 3 nights", got)
	}
}
