package robots

// Values that are not rules: the product token an agent is matched by,
// Request-rate, and how long a fetched copy stays good.

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// ProductToken reduces a User-Agent string to the product token robots.txt
// groups are matched against: "polite/0.1 (+https://x)" -> "polite".
//
// It is the leading run of the characters RFC 9309 2.2.1 allows in a
// product token, [a-zA-Z_-], after leading white space; the first other
// character ends it. So a browser-style string yields its first product,
// "Mozilla/5.0 (compatible; FooBot/2.1)" -> "Mozilla", and a crawler that
// hides behind one should pass its own token (polite's --robots-agent).
// Case is kept; matching ignores it.
func ProductToken(userAgent string) string {
	s := strings.TrimLeftFunc(userAgent, unicode.IsSpace)
	end := 0
	for end < len(s) {
		c := s[end]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '-' || c == '_') {
			break
		}
		end++
	}
	return s[:end]
}

// errRate is wrapped by every ParseRequestRate error.
var errRate = errors.New("want requests/time, e.g. 1/5, 10/1m, 1/2h")

// ParseRequestRate reads a Request-rate value: "1/5", "10/1m", "1/2h".
//
// Both numbers are positive integers; the time is in seconds unless it
// ends in s, m or h (either case). White space around the value is
// ignored; anything else, such as a time-of-day window after it, is an
// error.
func ParseRequestRate(v string) (Rate, error) {
	s := strings.TrimSpace(v)
	n, t, ok := strings.Cut(s, "/")
	if !ok {
		return Rate{}, fmt.Errorf("parse request-rate %q: %w", v, errRate)
	}
	req, err := strconv.Atoi(n)
	if err != nil || req <= 0 {
		return Rate{}, fmt.Errorf("parse request-rate %q: requests: %w", v, errRate)
	}
	unit := time.Second
	if t != "" {
		switch t[len(t)-1] {
		case 's', 'S':
			t = t[:len(t)-1]
		case 'm', 'M':
			unit, t = time.Minute, t[:len(t)-1]
		case 'h', 'H':
			unit, t = time.Hour, t[:len(t)-1]
		}
	}
	per, err := strconv.Atoi(t)
	if err != nil || per <= 0 || int64(per) > int64(maxDelay/unit) {
		return Rate{}, fmt.Errorf("parse request-rate %q: time: %w", v, errRate)
	}
	return Rate{Requests: req, Per: time.Duration(per) * unit}, nil
}

// TTL returns how long a copy fetched with this Cache-Control header stays
// good: max-age when it is shorter than def, else def.
//
// RFC 9309 2.4 lets a crawler use standard cache control but not keep a
// copy longer than 24 hours, so a longer max-age is cut to def. no-store
// and no-cache give 0: the copy serves the run that fetched it and is
// fetched again on the next run. A missing or unreadable max-age gives
// def; of several max-age directives the shortest counts.
func TTL(cacheControl string, def time.Duration) time.Duration {
	ttl := def
	for _, d := range strings.Split(cacheControl, ",") {
		name, val, _ := strings.Cut(strings.TrimSpace(d), "=")
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "no-store", "no-cache":
			return 0
		case "max-age":
			secs, err := strconv.ParseInt(strings.Trim(strings.TrimSpace(val), `"`), 10, 64)
			if err != nil || secs < 0 {
				continue
			}
			if secs <= int64(ttl/time.Second) && time.Duration(secs)*time.Second < ttl {
				ttl = time.Duration(secs) * time.Second
			}
		}
	}
	return ttl
}
