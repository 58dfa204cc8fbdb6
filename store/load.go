package store

import (
	"errors"
	"fmt"

	"github.com/polite-crawler/polite/crawl/frontier"
)

// A load is a long run of Enqueue calls (a seed file read a batch at a
// time) that share one transaction until EndLoad. Each transaction
// rewrites the index pages it touches, the partly filled ones of every
// host again and again: 100,000 seeds in one transaction write a third of
// the WAL frames that ten transactions of 10,000 do.

// BeginLoad makes the Enqueue calls until EndLoad share one transaction,
// which holds the writer: no other write may come from the caller's
// goroutine until EndLoad (others wait for it). A load already begun is
// an error. bytes is the size of the seed source being loaded, which
// sizes the writer's page cache for the load (loadCacheKiB).
func (s *SeedLoads) BeginLoad(bytes int64) error {
	s.loadMu.Lock()
	defer s.loadMu.Unlock()
	if s.load != nil {
		return errors.New("begin load: a load is under way")
	}
	tx, err := s.beginWrite("begin load")
	if err != nil {
		return err
	}
	if err := s.sizeCache(tx, loadCacheKiB(bytes)); err != nil {
		tx.Rollback()
		return fmt.Errorf("begin load: %w", err)
	}
	s.load = tx
	return nil
}

// EndLoad commits what the Enqueue calls since BeginLoad added. Without a
// load under way (none begun, or an Enqueue of it failed and rolled it
// back) it does nothing.
func (s *SeedLoads) EndLoad() error {
	s.loadMu.Lock()
	defer s.loadMu.Unlock()
	tx := s.load
	if tx == nil {
		return nil
	}
	s.load = nil
	return commit("end load", tx)
}

// enqueueLoad enqueues es in the load's transaction; ok is false when no
// load is under way. A failure rolls the load back.
func (f *Frontier) enqueueLoad(job string, es []frontier.Entry) (n int, ok bool, err error) {
	f.loadMu.Lock()
	defer f.loadMu.Unlock()
	if f.load == nil {
		return 0, false, nil
	}
	n, err = f.enqueue(f.load, job, es)
	if err != nil {
		f.rollbackLoad()
	}
	return n, true, err
}

func (c *conn) rollbackLoad() {
	if c.load != nil {
		c.load.Rollback()
		c.load = nil
	}
}
