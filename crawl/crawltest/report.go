package crawltest

import "strings"

// HostOrder returns the hosts in the order a report.html page shows them
// in the part that starts at the first occurrence of from, up to the next
// section: table rows (data-host) and timelines (aria-label). The report's
// tests use it on the page as written and as a browser renders it.
func HostOrder(page, from string) []string {
	i := strings.Index(page, from)
	if i < 0 {
		return nil
	}
	part := page[i:]
	if end := strings.Index(part[1:], "<h2>"); end >= 0 {
		part = part[:end+1]
	}
	var hosts []string
	for _, attr := range []string{`data-host="`, `aria-label="timeline of `} {
		for rest := part; ; {
			j := strings.Index(rest, attr)
			if j < 0 {
				break
			}
			rest = rest[j+len(attr):]
			hosts = append(hosts, rest[:strings.IndexByte(rest, '"')])
		}
	}
	return hosts
}
