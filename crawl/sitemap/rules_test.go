package sitemap

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestCheckURL(t *testing.T) {
	const sm = "https://shop.example/catalog/sitemap.xml"
	cases := []struct {
		name   string
		page   string
		in     Listed
		robots []string // Sitemap lines of the page's host
		want   error
	}{
		{"under the folder", "https://shop.example/catalog/a", Listed{Sitemap: sm}, nil, nil},
		{"deeper under the folder", "https://shop.example/catalog/x/y?z=1", Listed{Sitemap: sm}, nil, nil},
		{"the folder itself", "https://shop.example/catalog/", Listed{Sitemap: sm}, nil, nil},
		{"outside the folder", "https://shop.example/images/a.png", Listed{Sitemap: sm}, nil, ErrOutsideFolder},
		{"folder name as a prefix only", "https://shop.example/catalogue/a", Listed{Sitemap: sm}, nil, ErrOutsideFolder},
		{"the folder without its slash", "https://shop.example/catalog", Listed{Sitemap: sm}, nil, ErrOutsideFolder},
		{"outside the folder though robots.txt names the sitemap", "https://shop.example/images/a.png", Listed{Sitemap: sm}, []string{sm}, ErrOutsideFolder},
		{"root sitemap covers the host", "https://shop.example/any/where", Listed{Sitemap: "https://shop.example/sitemap.xml"}, nil, nil},
		{"root sitemap covers the bare host", "https://shop.example", Listed{Sitemap: "https://shop.example/sitemap.xml"}, nil, nil},
		{"query of the sitemap ignored", "https://shop.example/a", Listed{Sitemap: "https://shop.example/sitemap.php?page=2"}, nil, nil},
		{"host case and default port", "https://SHOP.example:443/catalog/a", Listed{Sitemap: "https://shop.example/catalog/s.xml"}, nil, nil},
		{"escaped path compared as escaped", "https://shop.example/caf%C3%A9/a", Listed{Sitemap: "https://shop.example/caf%C3%A9/s.xml"}, nil, nil},

		{"other scheme", "http://shop.example/catalog/a", Listed{Sitemap: sm}, nil, ErrOtherHost},
		{"other port", "https://shop.example:8443/catalog/a", Listed{Sitemap: sm}, nil, ErrOtherHost},
		{"subdomain", "https://www.shop.example/catalog/a", Listed{Sitemap: sm}, nil, ErrOtherHost},
		{"other host, no robots.txt lines", "https://other.example/a", Listed{Sitemap: sm}, nil, ErrOtherHost},
		{"other host names another sitemap", "https://other.example/a", Listed{Sitemap: sm}, []string{"https://shop.example/sitemap.xml"}, ErrOtherHost},
		{"other host names the sitemap", "https://other.example/anywhere", Listed{Sitemap: sm}, []string{"https://elsewhere.example/s.xml", sm}, nil},
		{"other host names it in other case", "https://other.example/a", Listed{Sitemap: sm}, []string{"HTTPS://Shop.Example:443/catalog/sitemap.xml "}, nil},
		{"other host names the index", "https://other.example/a", Listed{Sitemap: sm, Index: "https://shop.example/index.xml"}, []string{"https://shop.example/index.xml"}, nil},
		{"other host names the sitemap with another query", "https://other.example/a", Listed{Sitemap: "https://shop.example/s.php?p=1"}, []string{"https://shop.example/s.php?p=2"}, ErrOtherHost},
		{"private address, other host", "http://169.254.169.254/latest/meta-data/", Listed{Sitemap: sm}, nil, ErrOtherHost},

		{"relative URL", "/catalog/a", Listed{Sitemap: sm}, nil, ErrBadURL},
		{"not http", "ftp://shop.example/catalog/a", Listed{Sitemap: sm}, nil, ErrBadURL},
		{"bad sitemap URL", "https://shop.example/a", Listed{Sitemap: "sitemap.xml"}, nil, ErrBadURL},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckURL(tc.page, tc.in, tc.robots)
			if !errors.Is(err, tc.want) || (err == nil) != (tc.want == nil) {
				t.Errorf("CheckURL(%q) = %v, want %v", tc.page, err, tc.want)
			}
			if err != nil && !strings.Contains(err.Error(), tc.page) && !strings.Contains(err.Error(), tc.in.Sitemap) {
				t.Errorf("error %q names neither the URL nor the sitemap", err)
			}
		})
	}
}

func TestCheckChild(t *testing.T) {
	const idx = "https://shop.example/sitemaps/index.xml"
	cases := []struct {
		name   string
		child  string
		robots []string // Sitemap lines of the child's host
		want   error
	}{
		{"same folder", "https://shop.example/sitemaps/a.xml.gz", nil, nil},
		{"same host, any path", "https://shop.example/other/b.txt", nil, nil},
		{"other host", "https://cdn.example/s.xml", nil, ErrOtherHost},
		{"other scheme", "http://shop.example/sitemaps/a.xml", nil, ErrOtherHost},
		{"other host naming the child", "https://cdn.example/s.xml", []string{"https://cdn.example/s.xml"}, nil},
		{"other host naming the index", "https://cdn.example/s.xml", []string{idx}, nil},
		{"relative", "a.xml", nil, ErrBadURL},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckChild(tc.child, idx, tc.robots)
			if !errors.Is(err, tc.want) || (err == nil) != (tc.want == nil) {
				t.Errorf("CheckChild(%q) = %v, want %v", tc.child, err, tc.want)
			}
		})
	}
}

func TestUnchanged(t *testing.T) {
	fetched := time.Date(2024, 5, 2, 10, 0, 0, 0, time.UTC)
	entry := func(s string) Entry {
		if s == "" {
			return Entry{Loc: "https://a.example/"}
		}
		lm, until, err := ParseLastMod(s)
		if err != nil {
			t.Fatalf("ParseLastMod(%q): %v", s, err)
		}
		return Entry{Loc: "https://a.example/", LastMod: lm, LastModUntil: until}
	}
	cases := []struct {
		name      string
		lastmod   string
		lastFetch time.Time
		want      bool
	}{
		{"no lastmod", "", fetched, false},
		{"never fetched", "2024-01-01T00:00:00Z", time.Time{}, false},
		{"lastmod before the fetch", "2024-05-02T09:59:59Z", fetched, true},
		{"lastmod at the fetch", "2024-05-02T10:00:00Z", fetched, true},
		{"lastmod after the fetch", "2024-05-02T10:00:01Z", fetched, false},
		{"zone taken into account", "2024-05-02T11:30:00+02:00", fetched, true},
		{"zone taken into account, after", "2024-05-02T05:30:00-05:00", fetched, false},
		{"lastmod in the future", "2030-01-01T00:00:00Z", fetched, false},
		{"date of an earlier day", "2024-05-01", fetched, false},  // may mean 11:59 on the 2nd in UTC-12
		{"date two days before", "2024-04-30", fetched, true},     // over everywhere by 12:00 UTC on the 1st
		{"date of the fetch's day", "2024-05-02", fetched, false}, // the day is not over
		{"month of the fetch", "2024-05", fetched, false},         // the month is not over
		{"earlier month", "2024-03", fetched, true},               // over
		{"earlier year", "2023", fetched, true},                   // over
		{"fraction of a second", "2024-05-02T09:59:59.5Z", fetched, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Unchanged(entry(tc.lastmod), tc.lastFetch); got != tc.want {
				t.Errorf("Unchanged(lastmod %q, fetched %v) = %v, want %v", tc.lastmod, tc.lastFetch, got, tc.want)
			}
		})
	}
}

func TestParseLastMod(t *testing.T) {
	cases := []struct {
		in      string
		t       string // RFC 3339 in UTC; "" for an error
		until   string
		wantErr string
	}{
		{"2024", "2024-01-01T00:00:00Z", "2025-01-01T11:59:59.999999999Z", ""},
		{"2024-02", "2024-02-01T00:00:00Z", "2024-03-01T11:59:59.999999999Z", ""},
		{"2024-02-29", "2024-02-29T00:00:00Z", "2024-03-01T11:59:59.999999999Z", ""},
		{"2024-05-01T10:30Z", "2024-05-01T10:30:00Z", "2024-05-01T10:30:00Z", ""},
		{"2024-05-01T10:30+02:00", "2024-05-01T08:30:00Z", "2024-05-01T08:30:00Z", ""},
		{"2024-05-01T10:30:15-03:30", "2024-05-01T14:00:15Z", "2024-05-01T14:00:15Z", ""},
		{"2024-05-01T10:30:15.25Z", "2024-05-01T10:30:15.25Z", "2024-05-01T10:30:15.25Z", ""},
		{" 2024-05-01 ", "2024-05-01T00:00:00Z", "2024-05-02T11:59:59.999999999Z", ""},
		{"2024-05-01T10:30:15", "", "", "a time without a time zone"},
		{"2024-05-01 10:30:15Z", "", "", "not a W3C datetime"},
		{"2023-02-29", "", "", "not a W3C datetime"},
		{"2024-13", "", "", "not a W3C datetime"},
		{"yesterday", "", "", "not a W3C datetime"},
		{"", "", "", "not a W3C datetime"},
		{"2024-05-01T25:00Z", "", "", "not a W3C datetime"},
		{"Wed, 01 May 2024 10:00:00 GMT", "", "", "not a W3C datetime"},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			got, until, err := ParseLastMod(tc.in)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Errorf("ParseLastMod(%q) = %v, %v, want error %q", tc.in, got, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseLastMod(%q): %v", tc.in, err)
			}
			if g := got.Format(time.RFC3339Nano); g != tc.t {
				t.Errorf("ParseLastMod(%q) = %s, want %s", tc.in, g, tc.t)
			}
			if g := until.Format(time.RFC3339Nano); g != tc.until {
				t.Errorf("ParseLastMod(%q) until %s, want %s", tc.in, g, tc.until)
			}
		})
	}
}

func TestSeedPriority(t *testing.T) {
	cases := []struct {
		in   string // <priority>, "" when absent
		want int
	}{
		{"", 0}, {"0.5", 0}, {"1.0", 5}, {"1", 5}, {"0.0", -5}, {"0", -5}, {".8", 3}, {"0.75", 3}, {"0.74", 2}, {"0.05", -4}, {"0.04", -5},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			e, bad, _, _ := rawEntry{loc: "https://a.example/", priority: tc.in, hasPriority: tc.in != ""}.check()
			if bad != "" {
				t.Fatalf("priority %q: %s", tc.in, bad)
			}
			if got := e.SeedPriority(); got != tc.want {
				t.Errorf("priority %q (%v): SeedPriority %d, want %d", tc.in, e.Priority, got, tc.want)
			}
		})
	}
	for _, bad := range []string{"-0.1", "1.01", "NaN", "inf", "1e-1", "0x1p-2", "+0.5", "0.5.5", ".", "half"} {
		if _, why, _, _ := (rawEntry{loc: "https://a.example/", priority: bad, hasPriority: true}).check(); !strings.Contains(why, "bad priority") {
			t.Errorf("priority %q accepted (%q), want it refused", bad, why)
		}
	}
}

// A lastmod past 2262 or before 1678 is the latest (earliest) instant
// polite can store, never one that wraps: 9999-12-31 is after any fetch,
// so the page is asked for; a year of five digits is no W3C datetime.
func TestParseLastModOutsideStorableRange(t *testing.T) {
	fetched := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		in        string
		lm, until time.Time
		unchanged bool
	}{
		{"9999-12-31", MaxTime, MaxTime, false},
		{"9999", MaxTime, MaxTime, false},
		{"9999-12-31T23:59:59Z", MaxTime, MaxTime, false},
		{"2262-12-31", MaxTime, MaxTime, false},
		{"0001-01-01", MinTime, MinTime, true},
		{"1677-01-01T00:00:00Z", MinTime, MinTime, true},
	}
	for _, tc := range cases {
		lm, until, err := ParseLastMod(tc.in)
		if err != nil || !lm.Equal(tc.lm) || !until.Equal(tc.until) {
			t.Errorf("ParseLastMod(%q) = %v, %v, %v; want %v, %v", tc.in, lm, until, err, tc.lm, tc.until)
		}
		if !time.Unix(0, until.UnixNano()).Equal(until) {
			t.Errorf("%q: %v wraps when stored", tc.in, until)
		}
		if got := Unchanged(Entry{LastMod: lm, LastModUntil: until}, fetched); got != tc.unchanged {
			t.Errorf("%q: Unchanged = %v, want %v", tc.in, got, tc.unchanged)
		}
	}
	if _, _, err := ParseLastMod("10000-01-01"); err == nil {
		t.Error("ParseLastMod(10000-01-01) read, want an error")
	}
}
