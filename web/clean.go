package web

import "strings"

// noteControlsRemoved is the Document note of a page that had characters
// removed by cleanText.
const noteControlsRemoved = "control characters removed"

// cleanText returns s without the characters that act on a terminal or
// reorder text on screen instead of being text: the C0 and C1 control
// characters but tab and line feed (a carriage return, alone or before a
// line feed, and a next line, U+0085, become a line feed), DEL, and the
// bidirectional embeddings, overrides and isolates (U+202A-U+202E,
// U+2066-U+2069). A page's text is quoted in reports printed on a
// terminal, so an escape sequence in it would be obeyed there, and an
// override would show a quote other than the one checked. Right-to-left
// marks (U+200E, U+200F, U+061C) are kept: they reorder nothing but
// neutral characters. removed reports whether any character was dropped.
func cleanText(s string) (clean string, removed bool) {
	if !strings.ContainsFunc(s, unclean) {
		return s, false
	}
	var b strings.Builder
	b.Grow(len(s))
	for i, r := range s {
		switch {
		case r == '\r':
			if !strings.HasPrefix(s[i+1:], "\n") {
				b.WriteByte('\n')
			}
		case r == '\u0085':
			b.WriteByte('\n')
		case unclean(r):
			removed = true
		default:
			b.WriteRune(r)
		}
	}
	return b.String(), removed
}

// unclean reports whether cleanText changes r.
func unclean(r rune) bool {
	switch {
	case r == '\t' || r == '\n':
		return false
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	}
	return r >= '\u202a' && r <= '\u202e' || r >= '\u2066' && r <= '\u2069'
}
