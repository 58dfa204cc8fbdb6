package robotscache

import (
	"slices"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// Deferred is a Cache whose writes wait for Flush, so that the copies a
// crawl's loop settles between two of its commits are stored in one
// transaction, not one each. Reads see the copies waiting. Only one
// goroutine (the loop) may use it.
type Deferred struct {
	Cache
	waiting []frontier.RobotsCopy
}

// Defer returns a Deferred writing to c.
func Defer(c Cache) *Deferred { return &Deferred{Cache: c} }

// Robots returns host's copy: the newest waiting one, else the stored one.
func (d *Deferred) Robots(host string) (frontier.RobotsCopy, bool, error) {
	if i := slices.IndexFunc(d.waiting, func(c frontier.RobotsCopy) bool { return c.Host == host }); i >= 0 {
		return d.waiting[i], true, nil
	}
	return d.Cache.Robots(host)
}

// PutRobots keeps cs for the next Flush, each replacing a waiting copy
// of its host.
func (d *Deferred) PutRobots(cs ...frontier.RobotsCopy) error {
	if err := frontier.CheckRobotsCopies(cs); err != nil {
		return err
	}
	for _, c := range cs {
		d.waiting = slices.DeleteFunc(d.waiting, func(w frontier.RobotsCopy) bool { return w.Host == c.Host })
		d.waiting = append(d.waiting, c)
	}
	return nil
}

// Flush stores the waiting copies in one transaction. They are dropped
// either way: a copy not stored is fetched again by a later run.
func (d *Deferred) Flush() error {
	if len(d.waiting) == 0 {
		return nil
	}
	err := d.Cache.PutRobots(d.waiting...)
	d.waiting = d.waiting[:0]
	return err
}
