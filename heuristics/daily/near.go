package daily

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// digitAt returns the value of the digit that starts s[i:], an ASCII
// digit or a Thai one (๐-๙, U+0E50-U+0E59), and its length in bytes; -1
// and 0 when none does.
func digitAt(s string, i int) (int, int) {
	if c := s[i]; c >= '0' && c <= '9' {
		return int(c - '0'), 1
	}
	if i+2 < len(s) && s[i] == 0xe0 && s[i+1] == 0xb9 && s[i+2] >= 0x90 && s[i+2] <= 0x99 {
		return int(s[i+2] - 0x90), 3
	}
	return -1, 0
}

// hasDigit reports whether s holds an ASCII or a Thai digit.
func hasDigit(s string) bool {
	for i := 0; i < len(s); i++ {
		if _, n := digitAt(s, i); n > 0 {
			return true
		}
	}
	return false
}

// atoiDigits reads s, ASCII or Thai digits only, as a number.
func atoiDigits(s string) (int, bool) {
	v := 0
	if s == "" {
		return 0, false
	}
	for i := 0; i < len(s); {
		d, n := digitAt(s, i)
		if n == 0 || v > 1e8 {
			return 0, false
		}
		v = 10*v + d
		i += n
	}
	return v, true
}

// maxThaiRunes bounds a Thai word of a gap: Thai has no spaces between
// words, so a run of Thai letters counts as one field of a gap only up to
// this length (about three Thai words).
const maxThaiRunes = 12

// near reports whether text[from:to], the gap between two words of one
// sentence, leaves them in one clause and close: no clause punctuation
// (, ; : ( ) and dashes), no digit, and at most fields words, a Thai run
// counting as one when it is short.
func near(text string, from, to, fields int) bool {
	if from > to {
		return false
	}
	gap := text[from:to]
	if strings.ContainsAny(gap, ",;:()!?\u2013\u2014") || hasDigit(gap) {
		return false
	}
	fs := strings.Fields(gap)
	if len(fs) > fields {
		return false
	}
	for _, f := range fs {
		if strings.ContainsFunc(f, thaiLetter) && utf8.RuneCountInString(f) > maxThaiRunes {
			return false
		}
	}
	return true
}

// sameClause reports whether text[from:to] holds no clause punctuation.
func sameClause(text string, from, to int) bool {
	return from <= to && !strings.ContainsAny(text[from:to], ",;:()!?\u2013\u2014")
}

// thaiLetter reports whether r is of the Thai script and not a digit: a
// letter, vowel or tone mark.
func thaiLetter(r rune) bool { return unicode.Is(unicode.Thai, r) && !unicode.IsDigit(r) }
