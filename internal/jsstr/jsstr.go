// Package jsstr gives Go the few JavaScript string semantics that seed 002's
// TypeScript relies on, so that ports of it (heuristics' context quality,
// agent's CRAG routing) split, trim and measure text exactly as the seed
// does: JavaScript's \s, String.prototype.trim, a length in UTF-16 code
// units, and a /i pattern that folds ASCII case only.
package jsstr

import "strings"

// IsSpace reports whether r is in JavaScript's \s (WhiteSpace and
// LineTerminator): Go's unicode.IsSpace differs on U+0085 and U+FEFF.
func IsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return 0x2000 <= r && r <= 0x200A
}

// SpaceClass is IsSpace as the body of a regexp character class.
const SpaceClass = `\t\n\v\f\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}`

// Trim is String.prototype.trim.
func Trim(s string) string { return strings.TrimFunc(s, IsSpace) }

// Len is a string's length in UTF-16 code units.
func Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// ASCIIFold spells each ASCII letter of the words as a two-case class and
// joins the words with "|", so that a pattern ignores ASCII case only, as a
// JavaScript /i regexp does without the u flag: Go's (?i) would also let
// "ſ" (U+017F) match "s".
func ASCIIFold(words ...string) string {
	var b strings.Builder
	for i, w := range words {
		if i > 0 {
			b.WriteByte('|')
		}
		for _, c := range []byte(w) {
			b.WriteString("[" + strings.ToLower(string(c)) + strings.ToUpper(string(c)) + "]")
		}
	}
	return b.String()
}
