package lex

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// joinDigitGroups is s with the commas that group a number's digits
// taken out, so that "1,000" is the word "1000" as "1000" is, not the
// two words "1" and "000": a run of digits and commas whose groups after
// the first have three digits each (1,234,567), or the last three and
// the others two (Indian, 1,00,000), the first of one to three. Other
// commas between digits (a list, "1,2,3"; a decimal comma, "1,5") are
// left as they are. The spaces that group digits in French and SI
// typography, no-break, narrow no-break and thin (1 000 000), are taken
// out as commas are; an ordinary space is not, as "3 100" may be two
// numbers. The one space between a number and its "%" (French "50 %")
// is taken out too, so that it is the word "50%" as "50%" is.
func joinDigitGroups(s string) string {
	if !strings.ContainsAny(s, groupSeparators) && !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	var few [8]int // the groups of a run, on the stack for most numbers
	last := 0      // s[last:] is not yet written
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsDigit(r) || i > 0 && startsAfterDigit(s[:i]) {
			i += w
			continue
		}
		end, groups := digitRun(s, i, few[:0])
		join := len(groups) > 1 && grouped(groups)
		gap := spaceBeforePercent(s[end:])
		if join || gap > 0 {
			b.WriteString(s[last:i])
			if num := s[i:end]; join {
				b.WriteString(strings.Map(dropSeparator, num))
			} else {
				b.WriteString(num)
			}
			last = end + gap
		}
		i = end + gap
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// spaceBeforePercent is the width of the one space (ordinary, no-break,
// narrow no-break or thin) that rest starts with before a "%", 0 when it
// does not start so.
func spaceBeforePercent(rest string) int {
	r, w := utf8.DecodeRuneInString(rest)
	if (r == ' ' || strings.ContainsRune(groupSeparators[1:], r)) && strings.HasPrefix(rest[w:], "%") {
		return w
	}
	return 0
}

// groupSeparators are the characters that group a number's digits: a
// comma, a no-break space, a narrow no-break space and a thin space.
const groupSeparators = ",\u00a0\u202f\u2009"

// dropSeparator is strings.Map's rule that drops a group separator.
func dropSeparator(r rune) rune {
	if strings.ContainsRune(groupSeparators, r) {
		return -1
	}
	return r
}

// startsAfterDigit reports whether the text before ends with a digit or
// a group separator: a run of digits starts after neither.
func startsAfterDigit(before string) bool {
	r, _ := utf8.DecodeLastRuneInString(before)
	return unicode.IsDigit(r) || strings.ContainsRune(groupSeparators, r)
}

// digitRun reads the run of digits and single group separators between
// digits, all of one kind, from i, returning where it ends and the number
// of digits of each group, appended to groups.
func digitRun(s string, i int, groups []int) (end int, _ []int) {
	n := 0
	sep := rune(-1) // the run's separator, once one is seen
	for i < len(s) {
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case unicode.IsDigit(r):
			n++
			i += w
			continue
		case n > 0 && (r == sep || sep < 0 && strings.ContainsRune(groupSeparators, r)):
			if next, _ := utf8.DecodeRuneInString(s[i+w:]); unicode.IsDigit(next) {
				groups = append(groups, n)
				n, sep = 0, r
				i += w
				continue
			}
		}
		break
	}
	return i, append(groups, n)
}

// grouped reports whether groups are the digit counts of a number
// grouped in thousands (3, 3, ...) or in the Indian way (2, ..., 3), its
// first group of one to three digits.
func grouped(groups []int) bool {
	if groups[0] < 1 || groups[0] > 3 || groups[len(groups)-1] != 3 {
		return false
	}
	western, indian := true, groups[0] <= 2
	for _, g := range groups[1 : len(groups)-1] {
		western = western && g == 3
		indian = indian && g == 2
	}
	return western || indian
}
