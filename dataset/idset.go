package dataset

import "hash/maphash"

// idSet is the set of ids a dataset read has met, to refuse a duplicate.
// It keeps 16 bytes an id however long the id (a 64-bit hash and the line
// it was first on), so that a read of 100k records holds about 2 MB, not
// the ids' text.
//
// Two distinct ids share a hash with probability about n²/2⁶⁵ for n ids
// (3e-10 at 100k, 3e-8 at a million): the later one is then refused as a
// duplicate of the earlier. The hash is seeded afresh for every set, so
// such a refusal does not repeat when the dataset is read again; an exact
// check would hold every id's text, which is what made memory grow with
// the dataset.
type idSet struct {
	seed  maphash.Seed
	lines map[uint64]int // hash of an id -> the line it was first on
}

func newIDSet() *idSet {
	return &idSet{seed: maphash.MakeSeed(), lines: map[uint64]int{}}
}

// add records id, met on line. When id was met before, it returns the
// line of its first occurrence and true, and records nothing.
func (s *idSet) add(id string, line int) (first int, dup bool) {
	h := maphash.String(s.seed, id)
	if first, dup := s.lines[h]; dup {
		return first, true
	}
	s.lines[h] = line
	return 0, false
}
