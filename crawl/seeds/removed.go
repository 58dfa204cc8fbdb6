package seeds

import (
	"hash/maphash"
	"slices"
)

// seedSet is the seeds of one reading of a seed file, held as 64-bit
// hashes of their URLs: 8 bytes a seed, so that a million seeds cost
// 8 MB rather than their text. Two URLs of one hash are one seed to it:
// a removed seed may stay, one chance in 2^64 per pair.
type seedSet struct {
	seed   maphash.Seed
	hashes []uint64
	sorted bool
}

// grow makes room for n seeds at once, so that a million seeds cost 8 MB
// and not the copies of a growing slice.
func (s *seedSet) grow(n int) {
	s.init()
	s.hashes = slices.Grow(s.hashes, n)
}

func (s *seedSet) init() {
	if s.hashes == nil {
		s.seed = maphash.MakeSeed()
		s.hashes = []uint64{}
	}
}

func (s *seedSet) add(u string) {
	s.init()
	s.hashes = append(s.hashes, maphash.String(s.seed, u))
	s.sorted = false
}

// has reports whether u was added.
func (s *seedSet) has(u string) bool {
	s.init()
	if !s.sorted {
		slices.Sort(s.hashes)
		s.sorted = true
	}
	_, ok := slices.BinarySearch(s.hashes, maphash.String(s.seed, u))
	return ok
}

// dropRemoved makes the seed file the truth for the job's seeds once it
// was read to its end: a seed the job took from an earlier reading that
// this one no longer has is taken out of the frontier, so it gets no
// request. The URLs found by following it stay, and so does everything
// stored for the other URLs.
func (l *Loader) dropRemoved(db Store) error {
	if !l.prune || l.skipped || !l.eof {
		return nil
	}
	n, err := db.DropRemovedSeeds(l.Job, l.hashes.has)
	l.hashes = seedSet{}
	if err != nil {
		return err
	}
	if n > 0 {
		l.Log.Info("seed lines removed from the seed file: their URLs are no longer fetched", "removed", n)
	}
	return nil
}
