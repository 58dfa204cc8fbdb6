package sitemap

import (
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// rawEntry is an entry's fields as text, before they are checked. The
// has* flags tell an element given empty from one not given.
type rawEntry struct {
	loc, lastmod, priority, changefreq string
	hasLastmod, hasPriority            bool
	hasChangefreq                      bool
}

// maxField bounds the text kept of one field; longer text is cut (and a
// <loc> that long is bad anyway).
const maxField = MaxURLLength + 1

// check turns r into an Entry. bad is why the entry must be skipped; note
// is a problem that does not skip it (an unknown changefreq, dropped; a
// lastmod that cannot be read, dropped too: noLastMod).
func (r rawEntry) check() (e Entry, bad, note string, noLastMod bool) {
	loc := strings.TrimSpace(r.loc)
	if err := checkLoc(loc); err != nil {
		return e, fmt.Sprintf("bad URL %s: %v", quote(loc), err), "", false
	}
	e = Entry{Loc: loc, Priority: 0.5}
	if r.hasLastmod {
		// lastmod is optional: a URL whose lastmod cannot be read is
		// kept, as if it had none (it is then asked for as usual).
		t, until, err := ParseLastMod(r.lastmod)
		if err != nil {
			note, noLastMod = fmt.Sprintf("unreadable lastmod %s for %s (%v), kept without it", quote(r.lastmod), loc, err), true
		}
		e.LastMod, e.LastModUntil = t, until
	}
	if r.hasPriority {
		pr, err := parsePriority(r.priority)
		if err != nil {
			return e, fmt.Sprintf("bad priority %s for %s: %v", quote(r.priority), loc, err), "", false
		}
		e.Priority = pr
	}
	if r.hasChangefreq {
		cf := strings.ToLower(strings.TrimSpace(r.changefreq))
		switch cf {
		case "always", "hourly", "daily", "weekly", "monthly", "yearly", "never":
			e.ChangeFreq = cf
		default:
			note = join(note, fmt.Sprintf("unknown changefreq %s for %s, ignored", quote(r.changefreq), loc))
		}
	}
	return e, "", note, noLastMod
}

// join joins two notes on one entry.
func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// quote quotes s for a message, cut to 80 bytes.
func quote(s string) string {
	if len(s) > 80 {
		return strconv.Quote(s[:80]) + "..."
	}
	return strconv.Quote(s)
}

// checkLoc says what is wrong with a listed URL: the protocol wants an
// absolute http or https URL under 2,048 characters, escaped.
func checkLoc(loc string) error {
	switch {
	case loc == "":
		return fmt.Errorf("empty")
	case len(loc) > MaxURLLength:
		return fmt.Errorf("longer than %d characters", MaxURLLength)
	case strings.ContainsAny(loc, " \t\r\n\"<>\\^`{|}"):
		return fmt.Errorf("unescaped space or reserved character")
	}
	u, err := url.Parse(loc)
	if err != nil {
		return fmt.Errorf("unparsable")
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("not an absolute http or https URL")
	case u.Host == "" || u.Hostname() == "":
		return fmt.Errorf("no host")
	case u.User != nil:
		return fmt.Errorf("user info in the URL")
	}
	return nil
}

// ParseLastMod parses a W3C Datetime (the forms sitemaps.org allows):
// YYYY, YYYY-MM, YYYY-MM-DD, and YYYY-MM-DDThh:mm[:ss[.s+]]TZD with TZD Z
// or ±hh:mm. It returns the instant, and until, the last instant the
// value can mean: for the date forms the start of the period in UTC and
// its end in the furthest time zone (UTC-12); for a time, t itself.
func ParseLastMod(s string) (t, until time.Time, err error) {
	s = strings.TrimSpace(s)
	if len(s) > 40 {
		return t, t, fmt.Errorf("not a W3C datetime")
	}
	var end func(time.Time) time.Time
	switch len(s) {
	case 4:
		t, err = time.Parse("2006", s)
		end = func(t time.Time) time.Time { return t.AddDate(1, 0, 0) }
	case 7:
		t, err = time.Parse("2006-01", s)
		end = func(t time.Time) time.Time { return t.AddDate(0, 1, 0) }
	case 10:
		t, err = time.Parse(time.DateOnly, s)
		end = func(t time.Time) time.Time { return t.AddDate(0, 0, 1) }
	default:
		t, err = parseDateTime(s)
		if err != nil {
			return time.Time{}, time.Time{}, err
		}
		return Clamp(t), Clamp(t), nil
	}
	if err != nil {
		return time.Time{}, time.Time{}, fmt.Errorf("not a W3C datetime")
	}
	return Clamp(t), Clamp(end(t).Add(12*time.Hour - time.Nanosecond)), nil
}

// The instants polite can store (Unix nanoseconds in an int64): from
// 1677-09-21 to 2262-04-11 (UTC).
var (
	MinTime = time.Unix(0, math.MinInt64).UTC()
	MaxTime = time.Unix(0, math.MaxInt64).UTC()
)

// Clamp brings t into [MinTime, MaxTime], so that a server's date in the
// year 9999 (or 0001) is the latest (earliest) instant polite can store,
// never one that wraps around. 0001-01-01, Go's zero time, is MinTime
// too: a date read, not a date absent.
func Clamp(t time.Time) time.Time {
	switch {
	case t.Before(MinTime):
		return MinTime
	case t.After(MaxTime):
		return MaxTime
	}
	return t
}

// parseDateTime reads the forms with a time, which must carry a zone.
func parseDateTime(s string) (time.Time, error) {
	date, clock, ok := strings.Cut(s, "T")
	if !ok || len(date) != 10 {
		return time.Time{}, fmt.Errorf("not a W3C datetime")
	}
	layout := "2006-01-02T15:04"
	switch {
	case len(clock) >= 6 && clock[5] == ':':
		layout += ":05"
		if len(clock) > 8 && clock[8] == '.' {
			layout += ".999999999"
		}
	}
	if !strings.HasSuffix(clock, "Z") && !strings.ContainsAny(clock[min(5, len(clock)):], "+-") {
		return time.Time{}, fmt.Errorf("a time without a time zone")
	}
	t, err := time.Parse(layout+"Z07:00", s)
	if err != nil {
		return time.Time{}, fmt.Errorf("not a W3C datetime")
	}
	return t.UTC(), nil
}

// parsePriority reads a decimal from 0.0 to 1.0: digits with at most one
// point, nothing else (no sign, exponent, NaN or hex).
func parsePriority(s string) (float64, error) {
	s = strings.TrimSpace(s)
	digits, points := 0, 0
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == '.':
			points++
		default:
			digits = -1 << 30
		}
	}
	if digits <= 0 || points > 1 || len(s) > 20 {
		return 0, fmt.Errorf("not a decimal")
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || f > 1 {
		return 0, fmt.Errorf("not between 0.0 and 1.0")
	}
	return f, nil
}
