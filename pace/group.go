package pace

import (
	"strings"
	"time"
)

// SetNameFloor sets one source's floor of name, one of the names paced
// together under key (polite's --pace-by domain or ip: one pace for
// several hosts). The key's floor for src is the strictest its names set:
// a Crawl-delay of 5 s on one name and of 1 s on another leaves the group
// at 5 s, and a name that drops its floor (d zero) leaves the others'.
// With name equal to key it is SetFloor.
func (p *Pacer) SetNameFloor(key, name string, d time.Duration, src FloorSource) {
	h := p.entry(key)
	if h.nameFloors == nil {
		h.nameFloors = make(map[FloorSource]map[string]time.Duration)
	}
	names := h.nameFloors[src]
	if names == nil {
		names = make(map[string]time.Duration)
		h.nameFloors[src] = names
	}
	name = strings.ToLower(name)
	if d <= 0 {
		delete(names, name)
	} else {
		names[name] = d
	}
	var strictest time.Duration
	for _, nd := range names {
		strictest = max(strictest, nd)
	}
	p.SetFloor(key, strictest, src)
}
