package reportdoc

import (
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// spanSet is a paragraph's spans sorted by start, with the largest end of
// each prefix, so that the spans around an offset are found by binary
// search: a paragraph of many thousands of links is read in time near
// linear in its length, not in its length times its links.
type spanSet struct {
	spans  []span
	maxEnd []int
	// linkEnds maps the end of each link span to its start.
	linkEnds map[int]int
}

// newSpanSet indexes spans (which it does not change).
func newSpanSet(spans []span) *spanSet {
	ss := &spanSet{spans: slices.Clone(spans), linkEnds: map[int]int{}}
	slices.SortStableFunc(ss.spans, func(a, b span) int { return a.start - b.start })
	ss.maxEnd = make([]int, len(ss.spans))
	top := -1
	for i, sp := range ss.spans {
		top = max(top, sp.end)
		ss.maxEnd[i] = top
		if sp.kind == spanLink {
			ss.linkEnds[sp.end] = sp.start
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

// linkAt returns the link span that starts at offset i, if any.
func (ss *spanSet) linkAt(i int) (span, bool) { return ss.kindAt(i, spanLink) }

// markerAt returns the citation marker span that starts at offset i, if any.
func (ss *spanSet) markerAt(i int) (span, bool) { return ss.kindAt(i, spanMarker) }

func (ss *spanSet) kindAt(i int, kind spanKind) (span, bool) {
	if ss == nil {
		return span{}, false
	}
	for j := sort.Search(len(ss.spans), func(j int) bool { return ss.spans[j].start >= i }); j < len(ss.spans) && ss.spans[j].start == i; j++ {
		if ss.spans[j].kind == kind {
			return ss.spans[j], true
		}
	}
	return span{}, false
}

// linkEndsAt reports whether a link span ends at offset i.
func (ss *spanSet) linkEndsAt(i int) bool {
	if ss == nil {
		return false
	}
	_, ok := ss.linkEnds[i]
	return ok
}

// trimClosingLinks returns end moved back over the links that close the
// sentence s[start:end] after its terminal mark ("grew.[A](u) [B](v)"):
// citations, whose words are no part of its claim. Without a terminal
// mark before them, the links are the sentence's own and end stays.
func (ss *spanSet) trimClosingLinks(s string, start, end int) int {
	cut := end
	for ss != nil {
		t := start + len(strings.TrimRightFunc(s[start:cut], unicode.IsSpace))
		ls, ok := ss.linkEnds[t]
		if !ok || ls < start {
			break
		}
		cut = ls
	}
	if cut == end {
		return end
	}
	if r, _ := utf8.DecodeLastRuneInString(strings.TrimRightFunc(s[start:cut], unicode.IsSpace)); strings.ContainsRune(terminalMarks, r) {
		return cut
	}
	return end
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

// citationEnd returns the end of the link or marker span that starts at
// offset i, the longest when several do.
func (ss *spanSet) citationEnd(i int) (int, bool) {
	if ss == nil {
		return 0, false
	}
	end, ok := 0, false
	for j := sort.Search(len(ss.spans), func(j int) bool { return ss.spans[j].start >= i }); j < len(ss.spans) && ss.spans[j].start == i; j++ {
		if k := ss.spans[j].kind; k == spanLink || k == spanMarker {
			end, ok = max(end, ss.spans[j].end), true
		}
	}
	return end, ok
}

// citationAt reports whether a link or marker span starts at offset i.
func (ss *spanSet) citationAt(i int) bool {
	_, ok := ss.citationEnd(i)
	return ok
}

// citationEndsAt reports whether a link or marker span ends at offset i.
func (ss *spanSet) citationEndsAt(i int) bool {
	found := false
	ss.around(i-1, i, func(sp span) bool {
		found = sp.end == i && (sp.kind == spanLink || sp.kind == spanMarker)
		return !found
	})
	return found
}
