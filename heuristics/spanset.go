package heuristics

import (
	"slices"
	"sort"
)

// spanSet is a paragraph's spans sorted by start, with the largest end of
// each prefix, so that the spans around an offset are found by binary
// search: a paragraph of many thousands of links is read in time near
// linear in its length, not in its length times its links.
type spanSet struct {
	spans  []span
	maxEnd []int
	// linkEnds are the ends of the link spans.
	linkEnds map[int]struct{}
}

// newSpanSet indexes spans (which it does not change).
func newSpanSet(spans []span) *spanSet {
	ss := &spanSet{spans: slices.Clone(spans), linkEnds: map[int]struct{}{}}
	slices.SortStableFunc(ss.spans, func(a, b span) int { return a.start - b.start })
	ss.maxEnd = make([]int, len(ss.spans))
	top := -1
	for i, sp := range ss.spans {
		top = max(top, sp.end)
		ss.maxEnd[i] = top
		if sp.kind == spanLink {
			ss.linkEnds[sp.end] = struct{}{}
		}
	}
	return ss
}

// around calls fn with each span that ends after lo and starts before hi,
// in order of start, until fn returns false.
func (ss *spanSet) around(lo, hi int, fn func(span) bool) {
	if ss == nil {
		return
	}
	i := sort.Search(len(ss.maxEnd), func(i int) bool { return ss.maxEnd[i] > lo })
	for ; i < len(ss.spans) && ss.spans[i].start < hi; i++ {
		if ss.spans[i].end > lo && !fn(ss.spans[i]) {
			return
		}
	}
}

// strictlyInside reports whether offset i falls inside a span, not at its
// edges.
func (ss *spanSet) strictlyInside(i int) bool {
	in := false
	ss.around(i, i, func(span) bool {
		in = true
		return false
	})
	return in
}

// covers reports whether offset off falls in a span (its start included).
func (ss *spanSet) covers(off int) bool {
	in := false
	ss.around(off, off+1, func(span) bool {
		in = true
		return false
	})
	return in
}

// linkEndsAt reports whether a link span ends at offset i.
func (ss *spanSet) linkEndsAt(i int) bool {
	if ss == nil {
		return false
	}
	_, ok := ss.linkEnds[i]
	return ok
}

// strip returns s[start:end] without the spans of the given kinds.
func (ss *spanSet) strip(s string, start, end int, kinds ...spanKind) string {
	var b []byte
	pos := start
	ss.around(start, end, func(sp span) bool {
		if !slices.Contains(kinds, sp.kind) || sp.end <= pos {
			return true
		}
		b = append(b, s[pos:max(sp.start, pos)]...)
		pos = min(sp.end, end)
		return true
	})
	if pos < end {
		b = append(b, s[pos:end]...)
	}
	return string(b)
}
